/** Building blocks every page uses: fields with their messages, problems, tables, filters and paging. */
import { type FormEvent, type ReactNode, useEffect, useId, useRef, useState } from "react"
import { fieldMessages, messageAt, messageFor } from "../ErrorMessages.js"
import type { Problem, Result } from "./api.js"
import { hrefWith, Link, navigate, useLocation } from "./router.js"
import { useLoad } from "./session.js"
import { useCanChange } from "./ui/Change.js"
import { useDialog } from "./ui/Dialog.js"

/** A problem above a form or a view: its readable message (or `message`), and its code when it has one. */
export const ProblemNotice = ({ problem, message }: { readonly problem: Problem | undefined; readonly message?: string | undefined }) =>
  problem === undefined ? null : (
    <div className="notice notice-error" role="alert">
      <p>{message ?? messageFor(problem)}</p>
      {problem.code !== undefined && problem.code !== "VALIDATION_FAILED" ? (
        <p className="code">
          Code <code>{problem.code}</code>
        </p>
      ) : null}
    </div>
  )

/**
 * A labelled input with its hint and the message of the issue that names it: the field `name`, or, with `pointer`,
 * the issues at that JSON Pointer or inside it (a field in a row of a form: `/priceRules/0/amountMinorUnits`).
 */
export const Field = (props: {
  readonly label: string
  readonly name: string
  readonly pointer?: string
  readonly problem?: Problem | undefined
  readonly hint?: ReactNode
  readonly children: (input: { id: string; name: string; "aria-describedby"?: string; "aria-invalid"?: boolean }) => ReactNode
}) => {
  const id = useId()
  const message = props.pointer === undefined ? fieldMessages(props.problem)[props.name] : messageAt(props.problem, props.pointer)
  const describedBy = [props.hint === undefined ? undefined : `${id}-hint`, message === undefined ? undefined : `${id}-error`]
    .filter((x) => x !== undefined)
    .join(" ")
  return (
    <div className={message === undefined ? "field" : "field field-invalid"}>
      <label htmlFor={id}>{props.label}</label>
      {props.hint === undefined ? null : (
        <p className="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      )}
      {props.children({
        id,
        name: props.name,
        ...(describedBy === "" ? {} : { "aria-describedby": describedBy }),
        ...(message === undefined ? {} : { "aria-invalid": true })
      })}
      {message === undefined ? null : (
        <p className="field-error" id={`${id}-error`}>
          {message}
        </p>
      )}
    </div>
  )
}

/** The message of a field that is a group of inputs (a fieldset of checkboxes); `pointer` as for {@link Field}. */
export const GroupError = (props: {
  readonly problem: Problem | undefined
  readonly name: string
  readonly pointer?: string
  readonly exact?: boolean
}) => {
  const { problem, name, pointer } = props
  const message = pointer === undefined ? fieldMessages(problem)[name] : messageAt(problem, pointer, props.exact)
  return message === undefined ? null : <p className="field-error">{message}</p>
}

/**
 * Copying `text` to the clipboard: `copy` for a button, and `status`, the line that says how it went (a screen
 * reader announces it).
 */
export const useCopy = (text: string) => {
  const [copied, setCopied] = useState<"copied" | "failed" | undefined>()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text)
      setCopied("copied")
    } catch {
      setCopied("failed")
    }
  }
  const status = (
    <p role="status" className="copy-status">
      {copied === "copied" ? "Copied to the clipboard." : copied === "failed" ? "Copying failed: select the text and copy it." : ""}
    </p>
  )
  return { copy, status }
}

/**
 * A secret shown once (an Application's client secret, a webhook's signing secret): `children` say what it is for,
 * then the value in a read-only input labelled with its last four characters and a button that copies it. The
 * console keeps it nowhere.
 */
export const SecretOnce = (props: {
  readonly heading: string
  readonly secret: string
  readonly lastFour: string
  readonly children: ReactNode
}) => {
  const id = useId()
  const copying = useCopy(props.secret)
  return (
    <section className="secret-once" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>{props.heading}</h2>
      {props.children}
      <div className="secret-value">
        <label htmlFor={`${id}-value`}>Secret ending in {props.lastFour}</label>
        <input id={`${id}-value`} readOnly value={props.secret} onFocus={(event) => event.target.select()} />
        <button type="button" onClick={copying.copy}>
          Copy secret
        </button>
      </div>
      {copying.status}
    </section>
  )
}

/**
 * A button whose change waits for a confirmation in the page rather than a browser dialog: pressing it opens the
 * console's dialog (`ui/Dialog.tsx`) with `question`, what will happen (`body`), the confirming button (`confirm`)
 * and "Cancel", focus on "Cancel"; cancelling or Escape closes it and gives focus back to the button. A read-only
 * operator finds it disabled, saying why (`ui/Change.tsx`), unless it changes their `own` account.
 */
export const ConfirmButton = (props: {
  readonly label: ReactNode
  readonly question: ReactNode
  readonly body?: ReactNode
  readonly confirm: string
  readonly onConfirm: () => unknown
  readonly disabled?: boolean
  /** The buttons' style: `danger` for a change that can't be undone, `secondary` for a quieter one. */
  readonly tone?: "danger" | "secondary"
  /** A change to the signed-in operator's own account, which a read-only operator may make too. */
  readonly own?: boolean
}) => {
  const dialog = useDialog()
  const can = useCanChange()
  const allowed = can.allowed || props.own === true
  const ask = async () => {
    const confirmed = await dialog.confirm({
      title: props.question,
      ...(props.body === undefined ? {} : { body: props.body }),
      confirm: props.confirm,
      ...(props.tone === "danger" ? { tone: "danger" as const } : {})
    })
    if (confirmed) await props.onConfirm()
  }
  return (
    <button type="button" className={props.tone} onClick={() => void ask()} disabled={props.disabled === true || !allowed} title={allowed ? undefined : can.why}>
      {props.label}
    </button>
  )
}

/** Loading, failure or the content. */
export const Loading = () => (
  <p className="loading" role="status">
    Loading…
  </p>
)

/** A page's heading and its actions. */
export const PageHeader = ({ title, children }: { readonly title: string; readonly children?: ReactNode }) => (
  <header className="page-header">
    <h1>{title}</h1>
    {children === undefined ? null : <div className="actions">{children}</div>}
  </header>
)

/**
 * A table that scrolls sideways on a narrow screen instead of breaking the layout. `narrow` names the columns
 * (1-based) a phone-sized screen (below 600 px) leaves out, so the key ones fit without scrolling; the record's page
 * has them all.
 */
export const Table = ({
  caption,
  head,
  children,
  narrow
}: {
  readonly caption: string
  readonly head: ReadonlyArray<string>
  readonly children: ReactNode
  readonly narrow?: ReadonlyArray<number> | undefined
}) => (
  <div className="table-scroll" role="region" aria-label={caption} tabIndex={0}>
    <table {...(narrow === undefined ? {} : { "data-narrow": narrow.join(" ") })}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {head.map((column) => (
            <th key={column} scope="col">
              {column}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  </div>
)

export const Empty = ({ columns, text }: { readonly columns: number; readonly text: string }) => (
  <tr>
    <td colSpan={columns} className="empty">
      {text}
    </td>
  </tr>
)

/** The query of the current URL as a record. */
export const useQuery = (): Record<string, string> => Object.fromEntries(useLocation().search.entries())

export interface FilterSpec {
  readonly name: string
  readonly label: string
  /** A select's options; a text input without them. */
  readonly options?: ReadonlyArray<readonly [value: string, label: string]>
  readonly placeholder?: string
  readonly type?: "text" | "date"
}

/**
 * A filter form whose values live in the URL: applying it starts again at the first page. Its issues (a filter
 * the API refused) show beside the inputs.
 */
export const Filters = ({ specs, problem }: { readonly specs: ReadonlyArray<FilterSpec>; readonly problem?: Problem | undefined }) => {
  const { pathname } = useLocation()
  const query = useQuery()
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(specs.map((spec) => [spec.name, query[spec.name] ?? ""]))
  )
  const apply = (event: FormEvent) => {
    event.preventDefault()
    navigate(hrefWith(pathname, values))
  }
  const clear = () => {
    setValues(Object.fromEntries(specs.map((spec) => [spec.name, ""])))
    navigate(pathname)
  }
  return (
    <form className="filters" role="search" aria-label="Filters" onSubmit={apply}>
      {specs.map((spec) => (
        <Field key={spec.name} label={spec.label} name={spec.name} problem={problem}>
          {(input) =>
            spec.options === undefined ? (
              <input
                {...input}
                type={spec.type ?? "search"}
                placeholder={spec.placeholder}
                value={values[spec.name] ?? ""}
                onChange={(event) => setValues({ ...values, [spec.name]: event.target.value })}
              />
            ) : (
              <select {...input} value={values[spec.name] ?? ""} onChange={(event) => setValues({ ...values, [spec.name]: event.target.value })}>
                <option value="">Any</option>
                {spec.options.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            )
          }
        </Field>
      ))}
      <div className="filter-actions">
        <button type="submit">Apply</button>
        <button type="button" className="secondary" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  )
}

/** Paging links: back to the first page, and the next page from the answer's `nextCursor`. */
export const Pager = ({ nextCursor }: { readonly nextCursor: string | null }) => {
  const { pathname } = useLocation()
  const query = useQuery()
  const onLaterPage = query["cursor"] !== undefined
  if (!onLaterPage && nextCursor === null) return null
  return (
    <nav className="pager" aria-label="Pages">
      {onLaterPage ? <Link href={hrefWith(pathname, { ...query, cursor: undefined })}>First page</Link> : <span />}
      {nextCursor === null ? null : (
        <Link href={hrefWith(pathname, { ...query, cursor: nextCursor })} rel="next">
          Next page
        </Link>
      )}
    </nav>
  )
}

/** A status as a labelled badge (colour is never the only signal: the word is there). */
export const Status = ({ value }: { readonly value: string }) => <span className={`status status-${value}`}>{value}</span>

/** A definition list of label → value. */
export const Facts = ({ items }: { readonly items: ReadonlyArray<readonly [string, ReactNode]> }) => (
  <dl className="facts">
    {items.map(([label, value]) => (
      <div key={label}>
        <dt>{label}</dt>
        <dd>{value}</dd>
      </div>
    ))}
  </dl>
)

/** A page of a list as the API answers it. */
export interface ListAnswer<A> {
  readonly items: ReadonlyArray<A>
  readonly nextCursor: string | null
}

/**
 * A list page: heading, filters in the URL, the table of the current page, paging. `fetch` reads the URL's query
 * (filters and cursor) and calls the API; a refused filter shows its message beside its input.
 */
export const ListPage = <A,>(props: {
  readonly title: string
  readonly actions?: ReactNode
  readonly intro?: string
  readonly filters: ReadonlyArray<FilterSpec>
  readonly fetch: (query: Readonly<Record<string, string>>) => Promise<Result<ListAnswer<A>>>
  readonly head: ReadonlyArray<string>
  /** The columns a phone-sized screen leaves out (see {@link Table}). */
  readonly narrow?: ReadonlyArray<number>
  readonly empty: string
  /** A row; `reload` fetches the page again after a row's action changed it. */
  readonly row: (item: A, reload: () => void) => ReactNode
  /** Changing it fetches the page again (a form beside the list created a record). */
  readonly version?: number
  /** Shown above the table: a form that adds to the list, an action's outcome. */
  readonly children?: ReactNode
}) => {
  const query = useQuery()
  const key = JSON.stringify(query)
  const { load, reload } = useLoad(`${props.title} ${key}`, () => props.fetch(query))
  // A new `version` reads the page again, keeping the table on screen until the answer.
  const version = useRef(props.version)
  useEffect(() => {
    if (version.current === props.version) return
    version.current = props.version
    reload()
  }, [props.version])
  const problem = load._tag === "failed" ? load.problem : undefined
  return (
    <>
      <PageHeader title={props.title}>{props.actions}</PageHeader>
      {props.intro === undefined ? null : <p className="hint">{props.intro}</p>}
      {props.children}
      <Filters key={key} problem={problem} specs={props.filters} />
      <ProblemNotice problem={problem} />
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "loaded" ? (
        <>
          <Table caption={props.title} head={props.head} narrow={props.narrow}>
            {load.value.items.length === 0 ? <Empty columns={props.head.length} text={props.empty} /> : null}
            {load.value.items.map((item) => props.row(item, reload))}
          </Table>
          <Pager nextCursor={load.value.nextCursor} />
        </>
      ) : null}
    </>
  )
}

/**
 * A record's page: loads it, shows the heading (`title` of the record once loaded, `fallback` before and on a
 * failure), a link back to its list, and the record's content.
 */
export const RecordPage = <A,>(props: {
  readonly loadKey: string
  readonly fetch: () => Promise<Result<A>>
  readonly fallback: string
  readonly title: (record: A) => string
  readonly back: readonly [href: string, label: string]
  readonly children: (record: A, reload: () => void) => ReactNode
}) => {
  const { load, reload } = useLoad(props.loadKey, props.fetch)
  return (
    <>
      <PageHeader title={load._tag === "loaded" ? props.title(load.value) : props.fallback}>
        <Link href={props.back[0]}>{props.back[1]}</Link>
      </PageHeader>
      {load._tag === "loading" ? <Loading /> : null}
      {load._tag === "failed" ? <ProblemNotice problem={load.problem} /> : null}
      {load._tag === "loaded" ? props.children(load.value, reload) : null}
    </>
  )
}
