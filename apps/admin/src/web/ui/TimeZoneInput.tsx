/**
 * A time zone as a searchable list of IANA names (issue 25: it was a free-text box): an input with a `<datalist>`
 * of `Intl.supportedValuesOf("timeZone")` — typing "stock" offers Europe/Stockholm — that still takes any name the
 * browser doesn't list (the server validates it), so a zone the browser lacks is never refused here.
 */
import { useId } from "react"

/** The IANA names this browser knows, sorted; UTC first. */
const timeZones = (): ReadonlyArray<string> => {
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : []
  return ["UTC", ...[...known].filter((zone) => zone !== "UTC").sort()]
}

let cached: ReadonlyArray<string> | undefined

export const TimeZoneInput = (props: {
  readonly input: { id: string; name: string; "aria-describedby"?: string; "aria-invalid"?: boolean }
  readonly value: string
  readonly onChange: (value: string) => void
}) => {
  const listId = useId()
  cached ??= timeZones()
  return (
    <>
      <input
        {...props.input}
        type="text"
        list={listId}
        autoComplete="off"
        spellCheck={false}
        value={props.value}
        onChange={(event) => props.onChange(event.target.value)}
      />
      <datalist id={listId}>
        {cached.map((zone) => (
          <option key={zone} value={zone} />
        ))}
      </datalist>
    </>
  )
}
