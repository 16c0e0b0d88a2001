/**
 * A request refused because the database can't be had (issue 23): no pooled connection within
 * `DATABASE_CONNECTION_TIMEOUT_SECONDS`, or PostgreSQL (or PgBouncer) unreachable or refusing sessions
 * (`@propline/db/DatabaseUnavailable`). Every host answers it as 503 with `Retry-After` — a problem on the API and
 * admin hosts (`platform/Problems`), `temporarily_unavailable` at the token endpoint — and the request's access-log
 * line says why; the client learns nothing of the cause. The statement never ran (or its transaction rolled back),
 * so the refused request changed nothing.
 */
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { databaseUnavailable, type Unavailable } from "@propline/db/DatabaseUnavailable"
import { Cause, Effect } from "effect"
import { currentRequestId } from "./RequestId.js"
import { explain } from "./RequestLog.js"

/**
 * `Retry-After` of a 503, in whole seconds: a pool whose connections are all busy frees one within a request's time;
 * a database that can't be reached (restarting, failing over) takes longer.
 */
export const RETRY_AFTER_SECONDS: Readonly<Record<Unavailable["kind"], number>> = { exhausted: 1, unreachable: 5 }

/** The first failure or defect of `cause` that says the database could not be had, if any. */
export const unavailableIn = (cause: Cause.Cause<unknown>): Unavailable | undefined => {
  for (const error of [...Cause.failures(cause), ...Cause.defects(cause)]) {
    const found = databaseUnavailable(error)
    if (found !== undefined) return found
  }
  return undefined
}

/**
 * The current request refused because the database could not be had: its access-log line says why (`reason`, not
 * the client), the response gets `Retry-After` ({@link RETRY_AFTER_SECONDS}), and the result is the 503 problem's
 * `detail`, naming the request id and nothing of the cause.
 */
export const unavailable = (why: Unavailable): Effect.Effect<{ readonly detail: string; readonly retryAfterSeconds: number }> =>
  Effect.gen(function* () {
    const retryAfterSeconds = RETRY_AFTER_SECONDS[why.kind]
    yield* explain(`database ${why.kind}: ${why.reason}`)
    yield* HttpApp.appendPreResponseHandler((_request, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "retry-after", String(retryAfterSeconds)))
    )
    const requestId = yield* currentRequestId
    return {
      detail: `The service is temporarily unavailable; retry in ${retryAfterSeconds} s. Request id: ${requestId ?? "unknown"}.`,
      retryAfterSeconds
    }
  })
