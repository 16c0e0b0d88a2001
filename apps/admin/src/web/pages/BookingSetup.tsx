/**
 * Setting up booking: a resource's whole setup (what it is, its booking rules, opening hours, closures, price rules
 * and night stays) created or replaced in one form; add-on products; which add-ons a resource offers and which
 * Applications may sell it. The booking service validates every value: its issues show beside the field (or row)
 * their path names, its refusals above the form.
 *
 * Money is typed in the currency's main unit (125.50) and sent in minor units; VAT is typed in percent and sent in
 * basis points.
 */
import { type FormEvent, type ReactNode, useState } from "react"
import type { AddOnProductSetup, ResourceDetail, ResourceSetup } from "@propline/contract/BookingAdmin"
import type { ContextNode } from "@propline/contract/OrganizationAdmin"
import { call, type Problem, type Result } from "../api.js"
import { Link, navigate } from "../router.js"
import { useAction, useLoad } from "../session.js"
import { Field, GroupError, Loading, PageHeader, ProblemNotice } from "../ui.js"
import { ChangeForm } from "../ui/Change.js"
import { TimeZoneInput } from "../ui/TimeZoneInput.js"

const WEEKDAYS: ReadonlyArray<readonly [number, string]> = [
  [1, "Monday"],
  [2, "Tuesday"],
  [3, "Wednesday"],
  [4, "Thursday"],
  [5, "Friday"],
  [6, "Saturday"],
  [7, "Sunday"]
]
const CURRENCIES = ["SEK", "NOK", "DKK", "EUR", "USD", "GBP"] as const
const UNITS = [
  ["hour", "per hour"],
  ["half-day", "per half day"],
  ["day", "per day"],
  ["session", "per session"],
  ["night", "per night"]
] as const

type Currency = (typeof CURRENCIES)[number]
type Unit = (typeof UNITS)[number][0]

/** "125.5" → 12550; a value that is not a number stays NaN, which the client's schema refuses at its field. */
const toMinor = (text: string) => (text.trim() === "" ? Number.NaN : Math.round(Number(text.replace(",", ".")) * 100))
const fromMinor = (minor: number) => (minor / 100).toFixed(2)
/** "25" (%) → 2500 basis points. */
const toBasisPoints = (text: string) => (text.trim() === "" ? Number.NaN : Math.round(Number(text.replace(",", ".")) * 100))
const int = (text: string) => (text.trim() === "" ? Number.NaN : Number(text))

/** The organization's operational contexts as select options, indented by depth. */
const ContextSelect = (props: { readonly input: object; readonly value: string; readonly onChange: (id: string) => void; readonly contexts: ReadonlyArray<ContextNode> }) => (
  <select {...props.input} value={props.value} onChange={(event) => props.onChange(event.target.value)}>
    <option value="">Choose…</option>
    {props.contexts.map((context) => (
      <option key={context.id} value={context.id}>
        {context.name} ({context.kind})
      </option>
    ))}
  </select>
)

/** A number input bound to a text state (so a half-typed value stays as typed). */
/** The currency a resource or an add-on product is priced in (`/currency`). */
const CurrencyField = (props: { readonly value: Currency; readonly problem: Problem | undefined; readonly onChange: (currency: Currency) => void }) => (
  <Field label="Currency" name="currency" pointer="/currency" problem={props.problem}>
    {(input) => (
      <select {...input} value={props.value} onChange={(event) => props.onChange(event.target.value as Currency)}>
        {CURRENCIES.map((currency) => (
          <option key={currency}>{currency}</option>
        ))}
      </select>
    )}
  </Field>
)

/** The operational context a resource or an add-on product belongs to (`/operationalContextId`). */
const ContextField = (props: {
  readonly value: string
  readonly contexts: ReadonlyArray<ContextNode>
  readonly problem: Problem | undefined
  readonly onChange: (id: string) => void
}) => (
  <Field label="Operational context" name="operationalContextId" pointer="/operationalContextId" problem={props.problem}>
    {(input) => <ContextSelect input={input} value={props.value} contexts={props.contexts} onChange={props.onChange} />}
  </Field>
)

/** An optional description (`/description`). */
const DescriptionField = (props: { readonly value: string; readonly problem: Problem | undefined; readonly onChange: (text: string) => void }) => (
  <Field label="Description (optional)" name="description" pointer="/description" problem={props.problem}>
    {(input) => <textarea {...input} rows={2} value={props.value} onChange={(event) => props.onChange(event.target.value)} />}
  </Field>
)

const NumberInput = (props: { readonly input: object; readonly value: string; readonly onChange: (text: string) => void }) => (
  <input {...props.input} type="text" inputMode="decimal" value={props.value} onChange={(event) => props.onChange(event.target.value)} />
)

interface OpeningDraft {
  readonly weekday: string
  readonly opens: string
  readonly closes: string
}

/** Rows of weekly opening periods (a resource's opening hours, a product's delivery hours). */
const OpeningRows = (props: {
  readonly legend: string
  readonly hint: string
  readonly pointer: string
  readonly rows: ReadonlyArray<OpeningDraft>
  readonly onChange: (rows: ReadonlyArray<OpeningDraft>) => void
  readonly problem: Problem | undefined
}) => {
  const set = (index: number, patch: Partial<OpeningDraft>) => props.onChange(props.rows.map((row, at) => (at === index ? { ...row, ...patch } : row)))
  return (
    <fieldset>
      <legend>{props.legend}</legend>
      <p className="hint">{props.hint}</p>
      <GroupError problem={props.problem} name="" pointer={props.pointer} exact />
      {props.rows.map((row, index) => (
        <div className="setup-row" key={index}>
          <Field label="Day" name="weekday" pointer={`${props.pointer}/${index}/weekday`} problem={props.problem}>
            {(input) => (
              <select {...input} value={row.weekday} onChange={(event) => set(index, { weekday: event.target.value })}>
                {WEEKDAYS.map(([weekday, name]) => (
                  <option key={weekday} value={String(weekday)}>
                    {name}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Opens" name="opens" pointer={`${props.pointer}/${index}/opens`} problem={props.problem}>
            {(input) => <input {...input} type="text" placeholder="08:00" value={row.opens} onChange={(event) => set(index, { opens: event.target.value })} />}
          </Field>
          <Field label="Closes" name="closes" pointer={`${props.pointer}/${index}/closes`} problem={props.problem}>
            {(input) => <input {...input} type="text" placeholder="17:00" value={row.closes} onChange={(event) => set(index, { closes: event.target.value })} />}
          </Field>
          <button type="button" className="secondary" onClick={() => props.onChange(props.rows.filter((_, at) => at !== index))}>
            Remove<span className="visually-hidden"> period {index + 1}</span>
          </button>
        </div>
      ))}
      <button type="button" className="secondary" onClick={() => props.onChange([...props.rows, { weekday: "1", opens: "08:00", closes: "17:00" }])}>
        Add a period
      </button>
    </fieldset>
  )
}

const toOpenings = (rows: ReadonlyArray<OpeningDraft>) => rows.map((row) => ({ weekday: Number(row.weekday), opens: row.opens, closes: row.closes }))
const fromOpenings = (rows: ReadonlyArray<{ readonly weekday: number; readonly opens: string; readonly closes: string }>): ReadonlyArray<OpeningDraft> =>
  rows.map((row) => ({ weekday: String(row.weekday), opens: row.opens, closes: row.closes }))

interface RuleDraft {
  readonly name: string
  readonly unit: Unit
  readonly amount: string
  readonly vat: string
  readonly weekdays: ReadonlyArray<number>
  readonly from: string
  readonly to: string
}

const RULES = [
  "minDurationMinutes",
  "maxDurationMinutes",
  "durationIncrementMinutes",
  "startIncrementMinutes",
  "minimumNoticeMinutes",
  "horizonDays",
  "bufferBeforeMinutes",
  "bufferAfterMinutes",
  "holdMinutes"
] as const
type RuleField = (typeof RULES)[number]

const RULE_LABELS: Record<RuleField, readonly [string, string]> = {
  minDurationMinutes: ["Shortest booking", "minutes"],
  maxDurationMinutes: ["Longest booking", "minutes"],
  durationIncrementMinutes: ["Length in steps of", "minutes"],
  startIncrementMinutes: ["Starts every", "minutes after midnight"],
  minimumNoticeMinutes: ["Minimum notice", "minutes before the start"],
  horizonDays: ["Bookable ahead", "days"],
  bufferBeforeMinutes: ["Set-up buffer", "minutes before"],
  bufferAfterMinutes: ["Clearing buffer", "minutes after"],
  holdMinutes: ["A request holds its slot for", "minutes, waiting for approval"]
}

interface ResourceDraft {
  readonly name: string
  readonly kind: "room" | "desk" | "parking"
  readonly operationalContextId: string
  readonly description: string
  readonly timeZone: string
  readonly capacity: string
  readonly currency: Currency
  readonly rules: Readonly<Record<RuleField, string>>
  readonly weekly: ReadonlyArray<OpeningDraft>
  readonly closures: ReadonlyArray<{ readonly fromDate: string; readonly toDate: string }>
  readonly priceRules: ReadonlyArray<RuleDraft>
  readonly byNight: boolean
  readonly nightStays: { readonly checkInTime: string; readonly checkOutTime: string; readonly minNights: string; readonly maxNights: string }
  /** Minutes; empty: free cancellation until the start. */
  readonly cancellationNotice: string
  /** Percent of the price; empty: late cancellations refused. */
  readonly lateCharge: string
}

const NEW_RESOURCE: ResourceDraft = {
  name: "",
  kind: "room",
  operationalContextId: "",
  description: "",
  timeZone: "Europe/Stockholm",
  capacity: "1",
  currency: "SEK",
  rules: {
    minDurationMinutes: "60",
    maxDurationMinutes: "480",
    durationIncrementMinutes: "30",
    startIncrementMinutes: "30",
    minimumNoticeMinutes: "60",
    horizonDays: "90",
    bufferBeforeMinutes: "0",
    bufferAfterMinutes: "0",
    holdMinutes: "1440"
  },
  weekly: [1, 2, 3, 4, 5].map((weekday) => ({ weekday: String(weekday), opens: "08:00", closes: "17:00" })),
  closures: [],
  priceRules: [{ name: "Hourly", unit: "hour", amount: "", vat: "25", weekdays: [1, 2, 3, 4, 5], from: "", to: "" }],
  byNight: false,
  nightStays: { checkInTime: "15:00", checkOutTime: "11:00", minNights: "1", maxNights: "14" },
  cancellationNotice: "",
  lateCharge: ""
}

const toDraft = (setup: ResourceSetup): ResourceDraft => ({
  name: setup.name,
  kind: setup.kind,
  operationalContextId: setup.operationalContextId,
  description: setup.description ?? "",
  timeZone: setup.timeZone,
  capacity: String(setup.capacity),
  currency: setup.currency,
  rules: Object.fromEntries(RULES.map((field) => [field, String(setup[field])])) as Record<RuleField, string>,
  weekly: fromOpenings(setup.openingHours.weekly),
  closures: setup.openingHours.closures,
  priceRules: setup.priceRules.map((rule) => ({
    name: rule.name,
    unit: rule.unit,
    amount: fromMinor(rule.amountMinorUnits),
    vat: String(rule.vatRateBasisPoints / 100),
    weekdays: rule.weekdays,
    from: rule.window?.from ?? "",
    to: rule.window?.to ?? ""
  })),
  byNight: setup.nightStays !== undefined,
  nightStays:
    setup.nightStays === undefined
      ? NEW_RESOURCE.nightStays
      : {
          checkInTime: setup.nightStays.checkInTime,
          checkOutTime: setup.nightStays.checkOutTime,
          minNights: String(setup.nightStays.minNights),
          maxNights: String(setup.nightStays.maxNights)
        },
  cancellationNotice: setup.cancellationNoticeMinutes === undefined ? "" : String(setup.cancellationNoticeMinutes),
  lateCharge: setup.lateCancellationChargeBasisPoints === undefined ? "" : String(setup.lateCancellationChargeBasisPoints / 100)
})

const toSetup = (draft: ResourceDraft): ResourceSetup =>
  ({
    operationalContextId: draft.operationalContextId,
    kind: draft.kind,
    name: draft.name,
    ...(draft.description.trim() === "" ? {} : { description: draft.description }),
    timeZone: draft.timeZone,
    capacity: int(draft.capacity),
    currency: draft.currency,
    openingHours: { weekly: toOpenings(draft.weekly), closures: draft.closures },
    ...(Object.fromEntries(RULES.map((field) => [field, int(draft.rules[field])])) as Record<RuleField, number>),
    ...(draft.byNight
      ? {
          nightStays: {
            checkInTime: draft.nightStays.checkInTime,
            checkOutTime: draft.nightStays.checkOutTime,
            minNights: int(draft.nightStays.minNights),
            maxNights: int(draft.nightStays.maxNights)
          }
        }
      : {}),
    ...(draft.cancellationNotice.trim() === "" ? {} : { cancellationNoticeMinutes: int(draft.cancellationNotice) }),
    ...(draft.lateCharge.trim() === "" ? {} : { lateCancellationChargeBasisPoints: toBasisPoints(draft.lateCharge) }),
    priceRules: draft.priceRules.map((rule) => ({
      name: rule.name,
      unit: rule.unit,
      amountMinorUnits: toMinor(rule.amount),
      vatRateBasisPoints: toBasisPoints(rule.vat),
      weekdays: rule.weekdays,
      ...(rule.from === "" && rule.to === "" ? {} : { window: { from: rule.from, to: rule.to } })
    }))
  }) as ResourceSetup

/** A setup form's state: the draft and its changes, and saving it (busy, its problem), then going on. */
const useSetupForm = <Draft, Saved>(initial: Draft, save: (draft: Draft) => Promise<Result<Saved>>, then: (saved: Saved) => void) => {
  const [draft, setDraft] = useState(initial)
  const action = useAction()
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    const saved = await action.run(() => save(draft))
    if (saved !== undefined) then(saved)
  }
  return { draft, set: (patch: Partial<Draft>) => setDraft({ ...draft, ...patch }), action, problem: action.problem, submit }
}

/** The organization's contexts, loaded for a form; the form itself once they are there. */
const WithContexts = ({ children }: { readonly children: (contexts: ReadonlyArray<ContextNode>) => ReactNode }) => {
  const organization = useLoad("organization", () => call((client) => client.organization.get()))
  if (organization.load._tag === "loading") return <Loading />
  if (organization.load._tag === "failed") return <ProblemNotice problem={organization.load.problem} />
  return <>{children(organization.load.value.contexts)}</>
}

const PriceRuleRow = (props: {
  readonly rule: RuleDraft
  readonly index: number
  readonly currency: string
  readonly problem: Problem | undefined
  readonly set: (patch: Partial<RuleDraft>) => void
  readonly remove: () => void
}) => {
  const { rule, index, problem, set } = props
  const at = `/priceRules/${index}`
  return (
    <fieldset className="price-rule">
      <legend>Price rule {index + 1}</legend>
      <div className="setup-row">
        <Field label="Name" name="name" pointer={`${at}/name`} problem={problem}>
          {(input) => <input {...input} type="text" value={rule.name} onChange={(event) => set({ name: event.target.value })} />}
        </Field>
        <Field label="Unit" name="unit" pointer={`${at}/unit`} problem={problem}>
          {(input) => (
            <select {...input} value={rule.unit} onChange={(event) => set({ unit: event.target.value as Unit })}>
              {UNITS.map(([unit, label]) => (
                <option key={unit} value={unit}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label={`Net price (${props.currency})`} name="amount" pointer={`${at}/amountMinorUnits`} problem={problem}>
          {(input) => <NumberInput input={input} value={rule.amount} onChange={(amount) => set({ amount })} />}
        </Field>
        <Field label="VAT (%)" name="vat" pointer={`${at}/vatRateBasisPoints`} problem={problem}>
          {(input) => <NumberInput input={input} value={rule.vat} onChange={(vat) => set({ vat })} />}
        </Field>
      </div>
      <fieldset className="weekdays">
        <legend>Days</legend>
        <GroupError problem={problem} name="" pointer={`${at}/weekdays`} />
        {WEEKDAYS.map(([weekday, name]) => (
          <label key={weekday} className="choice-inline">
            <input
              type="checkbox"
              checked={rule.weekdays.includes(weekday)}
              onChange={() =>
                set({
                  weekdays: rule.weekdays.includes(weekday)
                    ? rule.weekdays.filter((day) => day !== weekday)
                    : [...rule.weekdays, weekday].sort((a, b) => a - b)
                })
              }
            />{" "}
            {name.slice(0, 3)}
            <span className="visually-hidden">{name.slice(3)}</span>
          </label>
        ))}
      </fieldset>
      <div className="setup-row">
        <Field label="From (optional)" name="from" pointer={`${at}/window/from`} hint="Empty: all day." problem={problem}>
          {(input) => <input {...input} type="text" placeholder="08:00" value={rule.from} onChange={(event) => set({ from: event.target.value })} />}
        </Field>
        <Field label="To (optional)" name="to" pointer={`${at}/window/to`} problem={problem}>
          {(input) => <input {...input} type="text" placeholder="17:00" value={rule.to} onChange={(event) => set({ to: event.target.value })} />}
        </Field>
        <button type="button" className="secondary" onClick={props.remove}>
          Remove<span className="visually-hidden"> price rule {index + 1}</span>
        </button>
      </div>
      <GroupError problem={problem} name="" pointer={`${at}/window`} exact />
    </fieldset>
  )
}

/** The whole setup of a resource; `resourceId` replaces that resource's, else a new one is created. */
const ResourceForm = (props: { readonly initial: ResourceDraft; readonly resourceId?: string; readonly contexts: ReadonlyArray<ContextNode> }) => {
  const { draft, set, action, problem, submit } = useSetupForm(
    props.initial,
    (current) => {
      const payload = toSetup(current)
      return call((client) =>
        props.resourceId === undefined
          ? client.booking.createResource({ payload })
          : client.booking.replaceResource({ path: { resourceId: props.resourceId }, payload })
      )
    },
    (saved) => navigate(`/booking/resources/${saved.resource.id}`)
  )
  const text = (label: string, field: "name", hint?: string) => (
    <Field label={label} name={field} pointer={`/${field}`} problem={problem} {...(hint === undefined ? {} : { hint })}>
      {(input) => <input {...input} type="text" value={draft[field]} onChange={(event) => set({ [field]: event.target.value })} />}
    </Field>
  )
  return (
    <ChangeForm className="form form-wide" onSubmit={submit} noValidate>
      <ProblemNotice problem={problem} />
      <fieldset>
        <legend>The resource</legend>
        {text("Name", "name")}
        <div className="setup-row">
          <Field label="Kind" name="kind" pointer="/kind" problem={problem}>
            {(input) => (
              <select {...input} value={draft.kind} onChange={(event) => set({ kind: event.target.value as ResourceDraft["kind"] })}>
                <option value="room">Room</option>
                <option value="desk">Desk</option>
                <option value="parking">Parking</option>
              </select>
            )}
          </Field>
          <Field label="Seats" name="capacity" pointer="/capacity" problem={problem}>
            {(input) => <NumberInput input={input} value={draft.capacity} onChange={(capacity) => set({ capacity })} />}
          </Field>
          <CurrencyField value={draft.currency} problem={problem} onChange={(currency) => set({ currency })} />
        </div>
        <ContextField value={draft.operationalContextId} contexts={props.contexts} problem={problem} onChange={(operationalContextId) => set({ operationalContextId })} />
        <Field label="Time zone" name="timeZone" pointer="/timeZone" problem={problem} hint="Type to search the IANA names (Europe/Stockholm): opening hours, windows and the horizon are read in it.">
          {(input) => <TimeZoneInput input={input} value={draft.timeZone} onChange={(timeZone) => set({ timeZone })} />}
        </Field>
        <DescriptionField value={draft.description} problem={problem} onChange={(description) => set({ description })} />
      </fieldset>
      <fieldset>
        <legend>Booking rules</legend>
        <div className="setup-grid">
          {RULES.map((field) => (
            <Field key={field} label={RULE_LABELS[field][0]} hint={RULE_LABELS[field][1]} name={field} pointer={`/${field}`} problem={problem}>
              {(input) => <NumberInput input={input} value={draft.rules[field]} onChange={(value) => set({ rules: { ...draft.rules, [field]: value } })} />}
            </Field>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Cancellation terms</legend>
        <p className="hint">
          A pending request is cancelled free until it starts. An approved booking is cancelled free until the notice before its start; after
          that a website cancels it only by accepting the late charge, and with no charge set not at all.
        </p>
        <div className="setup-row">
          <Field
            label="Free cancellation until"
            hint="minutes before the start; empty: until the start"
            name="cancellationNoticeMinutes"
            pointer="/cancellationNoticeMinutes"
            problem={problem}
          >
            {(input) => <NumberInput input={input} value={draft.cancellationNotice} onChange={(cancellationNotice) => set({ cancellationNotice })} />}
          </Field>
          <Field
            label="Late cancellation charge (%)"
            hint="of the booking's price, sent in basis points (50 % = 5000); empty: late cancellations are refused"
            name="lateCancellationChargeBasisPoints"
            pointer="/lateCancellationChargeBasisPoints"
            problem={problem}
          >
            {(input) => <NumberInput input={input} value={draft.lateCharge} onChange={(lateCharge) => set({ lateCharge })} />}
          </Field>
        </div>
      </fieldset>
      <OpeningRows
        legend="Opening hours"
        hint="Local times; 24:00 ends a day. A day may have several periods."
        pointer="/openingHours/weekly"
        rows={draft.weekly}
        onChange={(weekly) => set({ weekly })}
        problem={problem}
      />
      <fieldset>
        <legend>Closures</legend>
        <p className="hint">Whole days closed, first and last day included.</p>
        {draft.closures.map((closure, index) => (
          <div className="setup-row" key={index}>
            <Field label="From" name="fromDate" pointer={`/openingHours/closures/${index}/fromDate`} problem={problem}>
              {(input) => (
                <input
                  {...input}
                  type="date"
                  value={closure.fromDate}
                  onChange={(event) => set({ closures: draft.closures.map((c, at) => (at === index ? { ...c, fromDate: event.target.value } : c)) })}
                />
              )}
            </Field>
            <Field label="To" name="toDate" pointer={`/openingHours/closures/${index}/toDate`} problem={problem}>
              {(input) => (
                <input
                  {...input}
                  type="date"
                  value={closure.toDate}
                  onChange={(event) => set({ closures: draft.closures.map((c, at) => (at === index ? { ...c, toDate: event.target.value } : c)) })}
                />
              )}
            </Field>
            <button type="button" className="secondary" onClick={() => set({ closures: draft.closures.filter((_, at) => at !== index) })}>
              Remove<span className="visually-hidden"> closure {index + 1}</span>
            </button>
            <GroupError problem={problem} name="" pointer={`/openingHours/closures/${index}`} exact />
          </div>
        ))}
        <button type="button" className="secondary" onClick={() => set({ closures: [...draft.closures, { fromDate: "", toDate: "" }] })}>
          Add a closure
        </button>
      </fieldset>
      <fieldset>
        <legend>Price rules</legend>
        <p className="hint">Net prices; rules of one unit must not claim the same hours on a weekday.</p>
        <GroupError problem={problem} name="" pointer="/priceRules" exact />
        {draft.priceRules.map((rule, index) => (
          <PriceRuleRow
            key={index}
            rule={rule}
            index={index}
            currency={draft.currency}
            problem={problem}
            set={(patch) => set({ priceRules: draft.priceRules.map((r, at) => (at === index ? { ...r, ...patch } : r)) })}
            remove={() => set({ priceRules: draft.priceRules.filter((_, at) => at !== index) })}
          />
        ))}
        <button
          type="button"
          className="secondary"
          onClick={() => set({ priceRules: [...draft.priceRules, { ...NEW_RESOURCE.priceRules[0]!, name: "", unit: draft.byNight ? "night" : "hour" }] })}
        >
          Add a price rule
        </button>
      </fieldset>
      <fieldset>
        <legend>Stays</legend>
        <label className="choice">
          <input type="checkbox" checked={draft.byNight} onChange={() => set({ byNight: !draft.byNight })} /> Priced by the night (bookings are stays of whole nights; every
          price rule is per night)
        </label>
        {draft.byNight ? (
          <div className="setup-grid">
            {(
              [
                ["checkInTime", "Check-in time"],
                ["checkOutTime", "Check-out time"],
                ["minNights", "Fewest nights"],
                ["maxNights", "Most nights"]
              ] as const
            ).map(([field, label]) => (
              <Field key={field} label={label} name={field} pointer={`/nightStays/${field}`} problem={problem}>
                {(input) => (
                  <input
                    {...input}
                    type="text"
                    value={draft.nightStays[field]}
                    onChange={(event) => set({ nightStays: { ...draft.nightStays, [field]: event.target.value } })}
                  />
                )}
              </Field>
            ))}
          </div>
        ) : null}
      </fieldset>
      <button type="submit" disabled={action.busy}>
        {action.busy ? "Saving…" : props.resourceId === undefined ? "Create resource" : "Save the setup"}
      </button>
    </ChangeForm>
  )
}

export const NewResourcePage = () => (
  <>
    <PageHeader title="New resource">
      <Link href="/booking/resources">All resources</Link>
    </PageHeader>
    <WithContexts>{(contexts) => <ResourceForm initial={NEW_RESOURCE} contexts={contexts} />}</WithContexts>
  </>
)

export const EditResourcePage = ({ id }: { readonly id: string }) => {
  const setup = useLoad(`resource setup ${id}`, () => call((client) => client.booking.resourceSetup({ path: { resourceId: id } })))
  const loaded = setup.load._tag === "loaded" ? setup.load.value : undefined
  return (
    <>
      <PageHeader title={loaded === undefined ? "Set up the resource" : `Set up ${loaded.name}`}>
        <Link href={`/booking/resources/${id}`}>Back to the resource</Link>
      </PageHeader>
      {setup.load._tag === "loading" ? <Loading /> : null}
      {setup.load._tag === "failed" ? <ProblemNotice problem={setup.load.problem} /> : null}
      {loaded === undefined ? null : <WithContexts>{(contexts) => <ResourceForm initial={toDraft(loaded)} resourceId={id} contexts={contexts} />}</WithContexts>}
    </>
  )
}

/** The add-ons a resource offers (the organization's products in its currency) and the Applications that sell it. */
export const ResourceOffer = ({ detail, onDone }: { readonly detail: ResourceDetail; readonly onDone: () => void }) => {
  const products = useLoad("add-on products for an offer", () => call((client) => client.booking.listAddOnProducts({ urlParams: { limit: 100 } })))
  const applications = useLoad("applications for sellers", () => call((client) => client.applications.list({ urlParams: { status: "active", limit: 100 } })))
  const [chosen, setChosen] = useState<ReadonlyArray<string>>(() => detail.addOnProducts.map((product) => product.id))
  const [seller, setSeller] = useState("")
  const action = useAction()
  const resourceId = detail.resource.id
  const offer = async (event: FormEvent) => {
    event.preventDefault()
    if ((await action.run(() => call((client) => client.booking.offerAddOnProducts({ path: { resourceId }, payload: { addOnProductIds: chosen } })))) !== undefined) onDone()
  }
  const allow = async (event: FormEvent) => {
    event.preventDefault()
    if (seller === "") return
    if ((await action.run(() => call((client) => client.booking.allowSeller({ path: { resourceId }, payload: { applicationId: seller } })))) !== undefined) onDone()
  }
  const selling = new Set(detail.sellers.map((s) => s.id))
  return (
    <>
      <ProblemNotice problem={action.problem} />
      <details className="form-panel">
        <summary>Choose the add-ons offered</summary>
        <ChangeForm className="form" onSubmit={offer} noValidate>
          {products.load._tag === "loading" ? <Loading /> : null}
          {products.load._tag === "failed" ? <ProblemNotice problem={products.load.problem} /> : null}
          {products.load._tag === "loaded" ? (
            <fieldset>
              <legend>Add-on products</legend>
              <GroupError problem={action.problem} name="addOnProductIds" />
              {products.load.value.items.length === 0 ? <p>No add-on product yet.</p> : null}
              {products.load.value.items.map((product) => (
                <label key={product.id} className="choice">
                  <input
                    type="checkbox"
                    checked={chosen.includes(product.id)}
                    onChange={() => setChosen(chosen.includes(product.id) ? chosen.filter((id) => id !== product.id) : [...chosen, product.id])}
                  />{" "}
                  {product.name} <span className="kind">{product.currency}</span>
                </label>
              ))}
            </fieldset>
          ) : null}
          <button type="submit" disabled={action.busy}>
            Save the add-ons
          </button>
        </ChangeForm>
      </details>
      <section aria-labelledby="sellers-heading">
        <h2 id="sellers-heading">Sold through</h2>
        <p>{detail.sellers.length === 0 ? "No Application sells it yet." : detail.sellers.map((s) => `${s.name} (${s.clientId})`).join(", ")}</p>
        <ChangeForm className="inline-form filters" onSubmit={allow} noValidate aria-label="Sellers">
          <Field label="Let an Application sell it" name="applicationId" problem={action.problem}>
            {(input) => (
              <select {...input} value={seller} onChange={(event) => setSeller(event.target.value)}>
                <option value="">Choose…</option>
                {applications.load._tag === "loaded"
                  ? applications.load.value.items
                      .filter((application) => !selling.has(application.id))
                      .map((application) => (
                        <option key={application.id} value={application.id}>
                          {application.name}
                        </option>
                      ))
                  : null}
              </select>
            )}
          </Field>
          <div className="filter-actions">
            <button type="submit" disabled={action.busy || seller === ""}>
              Allow
            </button>
          </div>
        </ChangeForm>
      </section>
    </>
  )
}

interface ProductDraft {
  readonly name: string
  readonly operationalContextId: string
  readonly description: string
  readonly category: "catering" | "equipment" | "service"
  readonly currency: Currency
  readonly price: string
  readonly vat: string
  readonly leadTimeMinutes: string
  readonly hasCutOff: boolean
  readonly cutOffDaysBefore: string
  readonly cutOffTime: string
  readonly maxQuantityPerLine: string
  readonly specialPortions: boolean
  readonly deliveryHours: ReadonlyArray<OpeningDraft>
  readonly retired: boolean
}

const NEW_PRODUCT: ProductDraft = {
  name: "",
  operationalContextId: "",
  description: "",
  category: "catering",
  currency: "SEK",
  price: "",
  vat: "12",
  leadTimeMinutes: "0",
  hasCutOff: false,
  cutOffDaysBefore: "1",
  cutOffTime: "15:00",
  maxQuantityPerLine: "50",
  specialPortions: false,
  deliveryHours: [],
  retired: false
}

const productDraft = (setup: AddOnProductSetup): ProductDraft => ({
  name: setup.name,
  operationalContextId: setup.operationalContextId,
  description: setup.description ?? "",
  category: setup.category,
  currency: setup.currency,
  price: fromMinor(setup.unitPriceMinorUnits),
  vat: String(setup.vatRateBasisPoints / 100),
  leadTimeMinutes: String(setup.leadTimeMinutes),
  hasCutOff: setup.cutOff !== undefined,
  cutOffDaysBefore: String(setup.cutOff?.daysBefore ?? 1),
  cutOffTime: setup.cutOff?.time ?? "15:00",
  maxQuantityPerLine: String(setup.maxQuantityPerLine),
  specialPortions: setup.specialPortions,
  deliveryHours: fromOpenings(setup.deliveryHours),
  retired: setup.retired
})

const productSetup = (draft: ProductDraft): AddOnProductSetup =>
  ({
    operationalContextId: draft.operationalContextId,
    name: draft.name,
    ...(draft.description.trim() === "" ? {} : { description: draft.description }),
    category: draft.category,
    currency: draft.currency,
    unitPriceMinorUnits: toMinor(draft.price),
    vatRateBasisPoints: toBasisPoints(draft.vat),
    leadTimeMinutes: int(draft.leadTimeMinutes),
    ...(draft.hasCutOff ? { cutOff: { daysBefore: int(draft.cutOffDaysBefore), time: draft.cutOffTime } } : {}),
    maxQuantityPerLine: int(draft.maxQuantityPerLine),
    specialPortions: draft.specialPortions,
    deliveryHours: toOpenings(draft.deliveryHours),
    retired: draft.retired
  }) as AddOnProductSetup

const ProductForm = (props: { readonly initial: ProductDraft; readonly productId?: string; readonly contexts: ReadonlyArray<ContextNode> }) => {
  const { draft, set, action, problem, submit } = useSetupForm(
    props.initial,
    (current) => {
      const payload = productSetup(current)
      return call((client) =>
        props.productId === undefined
          ? client.booking.createAddOnProduct({ payload })
          : client.booking.replaceAddOnProduct({ path: { productId: props.productId }, payload })
      )
    },
    () => navigate("/booking/add-on-products")
  )
  const numeric = (label: string, field: "price" | "vat" | "leadTimeMinutes" | "maxQuantityPerLine", pointer: string) => (
    <Field label={label} name={field} pointer={pointer} problem={problem}>
      {(input) => <NumberInput input={input} value={draft[field]} onChange={(value) => set({ [field]: value })} />}
    </Field>
  )
  return (
    <ChangeForm className="form form-wide" onSubmit={submit} noValidate>
      <ProblemNotice problem={problem} />
      <Field label="Name" name="name" pointer="/name" problem={problem}>
        {(input) => <input {...input} type="text" value={draft.name} onChange={(event) => set({ name: event.target.value })} />}
      </Field>
      <div className="setup-row">
        <Field label="Category" name="category" pointer="/category" problem={problem}>
          {(input) => (
            <select {...input} value={draft.category} onChange={(event) => set({ category: event.target.value as ProductDraft["category"] })}>
              <option value="catering">Catering</option>
              <option value="equipment">Equipment</option>
              <option value="service">Service</option>
            </select>
          )}
        </Field>
        <CurrencyField value={draft.currency} problem={problem} onChange={(currency) => set({ currency })} />
        {numeric(`Net unit price (${draft.currency})`, "price", "/unitPriceMinorUnits")}
        {numeric("VAT (%)", "vat", "/vatRateBasisPoints")}
      </div>
      <ContextField value={draft.operationalContextId} contexts={props.contexts} problem={problem} onChange={(operationalContextId) => set({ operationalContextId })} />
      <DescriptionField value={draft.description} problem={problem} onChange={(description) => set({ description })} />
      <div className="setup-row">
        {numeric("Lead time (minutes)", "leadTimeMinutes", "/leadTimeMinutes")}
        {numeric("Most per booking line", "maxQuantityPerLine", "/maxQuantityPerLine")}
      </div>
      <fieldset>
        <legend>Ordering</legend>
        <label className="choice">
          <input type="checkbox" checked={draft.hasCutOff} onChange={() => set({ hasCutOff: !draft.hasCutOff })} /> Orders close some days before the booking
        </label>
        {draft.hasCutOff ? (
          <div className="setup-row">
            <Field label="Days before" name="cutOffDaysBefore" pointer="/cutOff/daysBefore" problem={problem}>
              {(input) => <NumberInput input={input} value={draft.cutOffDaysBefore} onChange={(cutOffDaysBefore) => set({ cutOffDaysBefore })} />}
            </Field>
            <Field label="At (local time)" name="cutOffTime" pointer="/cutOff/time" problem={problem}>
              {(input) => <input {...input} type="text" value={draft.cutOffTime} onChange={(event) => set({ cutOffTime: event.target.value })} />}
            </Field>
          </div>
        ) : null}
        <label className="choice">
          <input type="checkbox" checked={draft.specialPortions} onChange={() => set({ specialPortions: !draft.specialPortions })} /> Guests may ask for special
          portions (allergies, diets)
        </label>
        <label className="choice">
          <input type="checkbox" checked={draft.retired} onChange={() => set({ retired: !draft.retired })} /> Retired: no longer sold
        </label>
      </fieldset>
      <OpeningRows
        legend="Delivery hours"
        hint="When it can be delivered; none: whenever the resource is open."
        pointer="/deliveryHours"
        rows={draft.deliveryHours}
        onChange={(deliveryHours) => set({ deliveryHours })}
        problem={problem}
      />
      <button type="submit" disabled={action.busy}>
        {action.busy ? "Saving…" : props.productId === undefined ? "Create add-on product" : "Save the add-on product"}
      </button>
    </ChangeForm>
  )
}

export const NewAddOnProductPage = () => (
  <>
    <PageHeader title="New add-on product">
      <Link href="/booking/add-on-products">All add-on products</Link>
    </PageHeader>
    <WithContexts>{(contexts) => <ProductForm initial={NEW_PRODUCT} contexts={contexts} />}</WithContexts>
  </>
)

export const EditAddOnProductPage = ({ id }: { readonly id: string }) => {
  const setup = useLoad(`add-on product setup ${id}`, () => call((client) => client.booking.addOnProductSetup({ path: { productId: id } })))
  const loaded = setup.load._tag === "loaded" ? setup.load.value : undefined
  return (
    <>
      <PageHeader title={loaded === undefined ? "Add-on product" : loaded.name}>
        <Link href="/booking/add-on-products">All add-on products</Link>
      </PageHeader>
      {setup.load._tag === "loading" ? <Loading /> : null}
      {setup.load._tag === "failed" ? <ProblemNotice problem={setup.load.problem} /> : null}
      {loaded === undefined ? null : <WithContexts>{(contexts) => <ProductForm initial={productDraft(loaded)} productId={id} contexts={contexts} />}</WithContexts>}
    </>
  )
}
