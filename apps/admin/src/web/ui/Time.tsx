/** Times and calendar dates as the organization's locale writes them, with the ISO value on hover (`<time>`). */
import { calendarDay, dateTime, dateTimeSeconds } from "../format.js"

/** An instant, to the minute (or the second with `seconds`); "—" without one. */
export const When = ({ at, seconds }: { readonly at: Date | null | undefined; readonly seconds?: boolean }) =>
  at == null ? (
    <>—</>
  ) : (
    <time dateTime={at.toISOString()} title={at.toISOString()}>
      {seconds === true ? dateTimeSeconds(at) : dateTime(at)}
    </time>
  )

/** A calendar date (`YYYY-MM-DD`); "—" without one. */
export const Day = ({ iso }: { readonly iso: string | null | undefined }) =>
  iso == null ? (
    <>—</>
  ) : (
    <time dateTime={iso} title={iso}>
      {calendarDay(iso)}
    </time>
  )

/** A period of calendar dates, both ends inclusive. */
export const Period = ({ start, end }: { readonly start: string; readonly end: string }) => (
  <>
    <Day iso={start} /> – <Day iso={end} />
  </>
)
