/**
 * What both APIs share without a transport: the retry policy (which operations are safe to repeat, the delay before
 * the next attempt), the transport settings' defaults, and the cursor of a list's next page.
 */
import { type AnyProplineError, isTransient } from "../Errors.js"

/** Transport settings; every member has a default. */
export interface Settings {
  /** The API host's address ({base_url}), e.g. `https://api.example.com`. */
  readonly baseUrl: string
  /** Retries of an operation safe to repeat; 0 turns retries off. Default 2. */
  readonly maxRetries?: number
  /** First back-off delay in milliseconds, doubled per retry (jitter: a random half to whole). Default 500. */
  readonly retryDelayMs?: number
  /** Longest `Retry-After` the client waits, in milliseconds; a longer one fails at once. Default 60 000. */
  readonly maxRetryAfterMs?: number
  /** Per attempt, in milliseconds. Default 30 000. */
  readonly timeoutMs?: number
}

export type Policy = Required<Omit<Settings, "baseUrl">>

/** The settings with their defaults filled in. */
export const policyOf = (settings: Settings): Policy => ({
  maxRetries: settings.maxRetries ?? 2,
  retryDelayMs: settings.retryDelayMs ?? 500,
  maxRetryAfterMs: settings.maxRetryAfterMs ?? 60_000,
  timeoutMs: settings.timeoutMs ?? 30_000
})

/** `{auth_url}/oauth/token` as given, or `/oauth/token` on the API host's origin. */
export const tokenUrlOf = (options: { readonly baseUrl: string; readonly tokenUrl?: string }): string =>
  options.tokenUrl ?? new URL("/oauth/token", options.baseUrl).toString()

/**
 * POSTs safe to repeat, by group and operation: the money reports, idempotent by the caller's id (a repeat answers
 * 200 with the current record), booking requests (by `requestId`), the booking preview and the company lookup (they
 * change nothing). Every GET is safe too.
 */
export const IDEMPOTENT_POSTS: Readonly<Record<string, ReadonlyArray<string>>> = {
  billing: [
    "reportPayment",
    "reportPaymentByExternalReference",
    "reportPaymentReversed",
    "reportPaymentReversedByExternalReference",
    "reportWriteOff"
  ],
  booking: ["createBookingRequest", "previewBookingRequest", "lookUpCompany", "cancelBookingRequest", "rescheduleBookingRequest"]
}

/** Whether an operation may be sent again after a transient failure. */
export const isSafeToRepeat = (group: string, name: string, method: string): boolean =>
  method === "GET" || (IDEMPOTENT_POSTS[group] ?? []).includes(name)

/**
 * The delay before retry number `attempt + 1` (milliseconds), or undefined to fail now: only transient failures of
 * an operation safe to repeat, and refused token requests (429, 5xx) of any operation. `Retry-After` when the
 * response gives one (up to `maxRetryAfterMs`), otherwise `retryDelayMs` × 2^attempt capped at 8 s, a random
 * (`random` in [0, 1)) half to whole of it.
 */
export const retryDelay = (
  error: AnyProplineError,
  attempt: number,
  safe: boolean,
  policy: Policy,
  random: number
): number | undefined => {
  if (attempt >= policy.maxRetries) return undefined
  const tokenRefusal =
    error._tag === "TokenError" && error.status !== undefined && (error.status === 429 || error.status >= 500)
  if (!tokenRefusal && !(safe && isTransient(error))) return undefined
  if (error.retryAfter !== undefined) {
    const wait = error.retryAfter * 1000
    return wait <= policy.maxRetryAfterMs ? wait : undefined
  }
  const ceiling = Math.min(8_000, policy.retryDelayMs * 2 ** attempt)
  return Math.round(ceiling / 2 + (random * ceiling) / 2)
}

/** A cursor page as every list answers (`hasMore` on the events feed, whose last `nextCursor` is kept). */
export interface CursorPage<Item> {
  readonly items: ReadonlyArray<Item>
  readonly nextCursor: string | null
  readonly hasMore?: boolean
}

/** A list request: any request whose query takes `cursor`. */
export type CursorRequest = { readonly urlParams: { readonly cursor?: string | undefined } } | void

/** `request` with its query's `cursor` set (unchanged when `cursor` is undefined). */
export const withCursor = <Req extends CursorRequest>(request: Req, cursor: string | undefined): Req =>
  (cursor === undefined
    ? request
    : { ...(request ?? {}), urlParams: { ...(request?.urlParams ?? {}), cursor } }) as Req

/** The next page's cursor: none once `nextCursor` is null or the feed says it has no more. */
export const nextCursor = (page: CursorPage<unknown>): string | undefined =>
  page.nextCursor === null || page.hasMore === false ? undefined : page.nextCursor
