/**
 * What every area of the demo shares, so each builds its rows deterministically: name-based ids (UUID version 5 in
 * a demo namespace), the seeded generator names, prices and organisation numbers are drawn from, the names and
 * ids of the records scenarios refer to ({@link DEMO_IDS}), and the timeline every record is dated on.
 */
import { type BillingPeriod, calendarMonthOf } from "@propline/billing/InvoiceRun"
import { luhnCheckDigit, norwegianCheckDigit } from "@propline/booking/OrganisationNumber"
import { Either } from "effect"
import { createHash } from "node:crypto"

// ---------------------------------------------------------------------------------------------------------------
// Deterministic ids and numbers
// ---------------------------------------------------------------------------------------------------------------

/** Namespace of the demo's name-based ids (a random UUID fixed once). */
const DEMO_NAMESPACE = "5c0f4d2e-9a57-4b1e-8f0a-6d3c2b1a0e97"

/** UUID version 5 (RFC 9562 5.5): SHA-1 of the namespace and `name`, so a name always gives the same id. */
export const demoId = (name: string): string => {
  const namespace = Buffer.from(DEMO_NAMESPACE.replaceAll("-", ""), "hex")
  const bytes = createHash("sha1").update(namespace).update(name, "utf8").digest().subarray(0, 16)
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** Mulberry32: a small seeded generator; enough for demo data, never for secrets. Returns [0, 1). */
export const seededRandom = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  /** An integer from `min` to `max`, both inclusive. */
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  const digits = (count: number): string => Array.from({ length: count }, () => String(int(0, 9))).join("")
  return { int, digits, chance: (probability: number) => next() < probability }
}

export type Random = ReturnType<typeof seededRandom>

const digitsOf = (text: string): ReadonlyArray<number> => [...text].map(Number)

/** A Swedish aktiebolag's number: 559 (the series registered since 2013), six digits, the Luhn digit. */
export const swedishOrganisationNumber = (random: Random): string => {
  const body = `559${random.digits(6)}`
  return `${body}${luhnCheckDigit(digitsOf(body))}`
}

/** A Norwegian number: 9, seven digits, the MOD11 digit (drawn again when the remainder gives 10). */
export const norwegianOrganisationNumber = (random: Random): string => {
  for (;;) {
    const body = `9${random.digits(7)}`
    const check = norwegianCheckDigit(digitsOf(body))
    if (check !== undefined) return `${body}${check}`
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Names of the notable records
// ---------------------------------------------------------------------------------------------------------------

/** Name of the first demo organization; the demo is found by it and {@link DEMO_IDS}.organization. */
export const DEMO_ORGANIZATION_NAME = "Nordhavn Workspaces AB"
/** Name of the second, small organization (tenant-isolation checks). */
export const SECOND_ORGANIZATION_NAME = "Fjord Offices AS"
/** Name of the demo Application in each organization (roles `billing` and `booking`, granted the root context; it may sell every bookable resource). */
export const DEMO_APPLICATION_NAME = "Demo ERP connector"

/**
 * Ids of the records scenarios refer to. Stable across databases: they are name-based, not random.
 * - `doubleBilledProposal`: a proposal of this month's run whose parking charge is already on
 *   `manualInvoice`; passing it answers 409 `BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED`.
 * - `creditNote` credits `creditedInvoice` (last month's run), both in the send queue.
 */
export const DEMO_IDS = {
  organization: demoId("organization:nordhavn"),
  rootContext: demoId("context:nordhavn:root"),
  lastMonthRun: demoId("run:nordhavn:last-month"),
  currentMonthRun: demoId("run:nordhavn:current-month"),
  manualRun: demoId("run:nordhavn:manual"),
  creditedInvoice: demoId("invoice:nordhavn:last-month:SE-08"),
  creditNote: demoId("credit-note:nordhavn:SE-08"),
  manualInvoice: demoId("invoice:nordhavn:manual:SE-04"),
  doubleBilledProposal: demoId("proposal:nordhavn:current-month:SE-04"),
  secondOrganization: demoId("organization:fjord"),
  secondRootContext: demoId("context:fjord:root"),
  secondInvoice: demoId("invoice:fjord:last-month:FJ-01"),
  secondProposal: demoId("proposal:fjord:current-month:FJ-01")
} as const


// ---------------------------------------------------------------------------------------------------------------
// The timeline
// ---------------------------------------------------------------------------------------------------------------

export const HOUR = 3_600_000
export const DAY = 24 * HOUR

/** The UTC date of `at`: `2026-11-22`. */
export const isoDate = (at: Date): string => at.toISOString().slice(0, 10)
/** The month of `period`: `2026-11`. */
export const monthLabel = (period: BillingPeriod): string => period.periodStart.slice(0, 7)

/** The value of a domain function the demo's own inputs must satisfy; a refusal is a bug in the catalog. */
export const orDie = <A, E>(either: Either.Either<A, E>): A =>
  Either.getOrThrowWith(either, (error) => new Error(`demo catalog: ${String(error)}`))

/** The moments every area dates its records from; records are made before `now`. */
export interface DemoTimeline {
  readonly now: Date
  /** `now` as a UTC date. */
  readonly today: string
  /** The calendar month (UTC) before the one containing `now`. */
  readonly lastMonth: BillingPeriod
  /** The calendar month (UTC) containing `now`. */
  readonly thisMonth: BillingPeriod
  /** `ms` milliseconds before `now`. */
  readonly ago: (ms: number) => Date
  /** When the organizations were set up: 120 days before `now`. */
  readonly setupAt: Date
}

export const demoTimeline = (now: Date): DemoTimeline => {
  const today = isoDate(now)
  const ago = (ms: number) => new Date(now.getTime() - ms)
  return {
    now,
    today,
    lastMonth: orDie(calendarMonthOf(today, -1)),
    thisMonth: orDie(calendarMonthOf(today, 0)),
    ago,
    setupAt: ago(120 * DAY)
  }
}
