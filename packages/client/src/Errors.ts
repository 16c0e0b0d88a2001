/**
 * The client's errors: one class per kind of failure, each with a `_tag` (Effect users: `Effect.catchTag("NotFoundError",
 * …)`) and each an `Error` subclass of {@link ProplineError} (Promise users: `error instanceof NotFoundError`).
 *
 * Every error carries what the API said (spec 2.3, RFC 9457): `status` (HTTP status, absent when no response came),
 * `code` (the rule, spec 7.3: match on this), `issues` (with `VALIDATION_FAILED`: JSON Pointer `path` and `message`
 * per failing field), `detail` (for people) and `requestId` (the response's `X-Request-Id`: quote it to support).
 *
 * | class | when |
 * | --- | --- |
 * | `BadRequestError` | 400: invalid input (`VALIDATION_FAILED` + `issues`) or a business rule (`code`) |
 * | `UnauthorizedError` | 401: token missing, expired or not valid |
 * | `ForbiddenError` | 403: the token lacks the operation's role |
 * | `NotFoundError` | 404 |
 * | `ConflictError` | 409 (`*_ALREADY_USED`, `*_REPLAY_MISMATCH`, `BOOKING_SLOT_TAKEN`) |
 * | `PayloadTooLargeError` / `UnsupportedMediaTypeError` | 413 / 415 |
 * | `RateLimitError` | 429; `retryAfter` seconds from `Retry-After` |
 * | `ServerError` | 5xx |
 * | `ApiError` | any other non-2xx status |
 * | `TokenError` | the token endpoint refused (RFC 6749 5.2 `error` in `code`, e.g. `invalid_client`, `slow_down`) |
 * | `ConnectionError` | no response: DNS, refused connection, reset |
 * | `TimeoutError` | no complete response within the request timeout |
 * | `SchemaError` | the request or the response does not match the contract |
 */

/** One failing field of a `VALIDATION_FAILED` problem: `path` is a JSON Pointer (RFC 6901) into the input. */
export interface Issue {
  readonly path: string
  readonly message: string
}

/** What every error carries; members are absent when the failure had no such part (no response, no body). */
export interface ErrorFields {
  readonly message: string
  /** HTTP status of the response. */
  readonly status?: number
  /** The rule that refused (spec 7.3), or the token endpoint's `error`. */
  readonly code?: string
  readonly detail?: string
  readonly issues?: ReadonlyArray<Issue>
  /** The response's `X-Request-Id`. */
  readonly requestId?: string
  /** `Retry-After` of a 429 or 503, in seconds. */
  readonly retryAfter?: number
  readonly cause?: unknown
}

/**
 * The base of every error the client fails or rejects with: an `Error` with the {@link ErrorFields} as its own
 * members. A plain class (no Effect `Data.Error`), so the Promise API's bundle does not carry Effect's runtime.
 */
export abstract class ProplineError extends Error {
  abstract readonly _tag: string
  declare readonly status?: number
  declare readonly code?: string
  declare readonly detail?: string
  declare readonly issues?: ReadonlyArray<Issue>
  declare readonly requestId?: string
  declare readonly retryAfter?: number

  constructor(fields: ErrorFields) {
    super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause })
    const { message: _message, cause: _cause, ...members } = fields
    Object.assign(this, members)
  }

  override get name(): string {
    return this._tag
  }
}

export class BadRequestError extends ProplineError {
  readonly _tag = "BadRequestError"
}
export class UnauthorizedError extends ProplineError {
  readonly _tag = "UnauthorizedError"
}
export class ForbiddenError extends ProplineError {
  readonly _tag = "ForbiddenError"
}
export class NotFoundError extends ProplineError {
  readonly _tag = "NotFoundError"
}
export class ConflictError extends ProplineError {
  readonly _tag = "ConflictError"
}
export class PayloadTooLargeError extends ProplineError {
  readonly _tag = "PayloadTooLargeError"
}
export class UnsupportedMediaTypeError extends ProplineError {
  readonly _tag = "UnsupportedMediaTypeError"
}
export class RateLimitError extends ProplineError {
  readonly _tag = "RateLimitError"
}
export class ServerError extends ProplineError {
  readonly _tag = "ServerError"
}
export class ApiError extends ProplineError {
  readonly _tag = "ApiError"
}
export class TokenError extends ProplineError {
  readonly _tag = "TokenError"
}
export class ConnectionError extends ProplineError {
  readonly _tag = "ConnectionError"
}
export class TimeoutError extends ProplineError {
  readonly _tag = "TimeoutError"
}
export class SchemaError extends ProplineError {
  readonly _tag = "SchemaError"
}

/** Every error of the client, as a union Effect's `catchTag` narrows. */
export type AnyProplineError =
  | BadRequestError
  | UnauthorizedError
  | ForbiddenError
  | NotFoundError
  | ConflictError
  | PayloadTooLargeError
  | UnsupportedMediaTypeError
  | RateLimitError
  | ServerError
  | ApiError
  | TokenError
  | ConnectionError
  | TimeoutError
  | SchemaError

const byStatus: Record<number, new (fields: ErrorFields) => AnyProplineError> = {
  400: BadRequestError,
  401: UnauthorizedError,
  403: ForbiddenError,
  404: NotFoundError,
  409: ConflictError,
  413: PayloadTooLargeError,
  415: UnsupportedMediaTypeError,
  429: RateLimitError
}

/**
 * `Retry-After` (RFC 9110 10.2.3) in seconds: delay-seconds or an HTTP-date (`now` in milliseconds); undefined when
 * absent or unreadable.
 */
export const parseRetryAfter = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined) return undefined
  if (/^\d+$/.test(value.trim())) return Number(value.trim())
  const date = Date.parse(value)
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000))
}

const readIssues = (value: unknown): ReadonlyArray<Issue> | undefined =>
  Array.isArray(value)
    ? value.flatMap((issue: unknown) =>
        typeof issue === "object" && issue !== null && "path" in issue && "message" in issue
          ? [{ path: String(issue.path), message: String(issue.message) }]
          : []
      )
    : undefined

/**
 * The error for a non-2xx response: its class by status, `code`, `detail` and `issues` from a problem body (spec
 * 2.3) when the body is one, `requestId` from `X-Request-Id`, `retryAfter` from `Retry-After`.
 */
export const fromResponse = (response: {
  readonly status: number
  readonly headers: Readonly<Record<string, string | undefined>>
  readonly body: string
  readonly now: number
}): AnyProplineError => {
  let problem: Record<string, unknown> = {}
  try {
    const parsed: unknown = JSON.parse(response.body)
    if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) problem = parsed as Record<string, unknown>
  } catch {
    // not JSON (a proxy's HTML page): the status alone tells the class
  }
  const text = (key: string) => (typeof problem[key] === "string" ? (problem[key] as string) : undefined)
  const code = text("code")
  const detail = text("detail")
  const issues = readIssues(problem["issues"])
  const requestId = response.headers["x-request-id"]
  const retryAfter = parseRetryAfter(response.headers["retry-after"], response.now)
  const Class = byStatus[response.status] ?? (response.status >= 500 ? ServerError : ApiError)
  return new Class({
    message: `${response.status}${code === undefined ? "" : ` ${code}`}${detail === undefined ? "" : `: ${detail}`}`,
    status: response.status,
    ...(code === undefined ? {} : { code }),
    ...(detail === undefined ? {} : { detail }),
    ...(issues === undefined ? {} : { issues }),
    ...(requestId === undefined ? {} : { requestId }),
    ...(retryAfter === undefined ? {} : { retryAfter })
  })
}

/** Failures worth another attempt of an operation that is safe to repeat: no response, a timeout, 429 and 5xx. */
export const isTransient = (error: AnyProplineError): boolean =>
  error._tag === "ConnectionError" ||
  error._tag === "TimeoutError" ||
  error._tag === "RateLimitError" ||
  error._tag === "ServerError"
