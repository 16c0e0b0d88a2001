/**
 * The access log (issue 23, item 2): one line per request at `info` (a 5xx at `error`), written when the response
 * is ready, through the process's logger (`platform/Logging`: JSON or pretty, `LOG_LEVEL`):
 *
 * `{ time, level, msg: "request", requestId, method, route, status, durationMs, organizationId?, principalId? }`
 *
 * - `requestId` is the response's `X-Request-Id`, the id a 500's problem body tells the caller to quote.
 * - `route` is the router's template (`/v1/billing/invoices/:invoiceId/report-sent`), never the path with its ids
 *   or its query; `null` when no route matched (a 404). The router names the matched route on the request's span;
 *   a {@link RouteRecorder} stands in as that span (forwarding to the real one when telemetry is on), so the template
 *   is known whether or not spans are recorded.
 * - `organizationId` and `principalId` are set by whoever authenticated the request ({@link identify}: the bearer
 *   token's organization and subject, the operator's organization and id, the token endpoint's grantee).
 * - Never a header, a token, a secret, a query string or a body.
 * - `status` 499 is a client that hung up before the answer.
 * - `reason` says why a request was refused for a cause of the service's own, not the caller's ({@link explain}):
 *   a 503's `database exhausted: …` or `database unreachable: …` (`platform/Problems`).
 * - With telemetry on (`platform/Telemetry`), the same figures update `http.server.requests` and
 *   `http.server.request.duration`.
 *
 * Applied inside `RequestId.requestId`, so every host logs the same way; the probes (`platform/Health`) sit outside
 * it and are not logged.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Cause, Context, Effect, Exit, FiberRef, Metric, MetricBoundaries, MetricLabel, Option, Tracer } from "effect"
import { performance } from "node:perf_hooks"
import { currentMetricsEnabled } from "./Telemetry.js"

/** What the request's own code adds to its log line. */
interface RequestRecord {
  organizationId: string | undefined
  principalId: string | undefined
  reason: string | undefined
}

const currentRecord = FiberRef.unsafeMake<RequestRecord | undefined>(undefined)

/** Names who the current request acts for, in its access-log line; nothing outside a request. */
export const identify = (organizationId: string, principalId: string): Effect.Effect<void> =>
  Effect.map(FiberRef.get(currentRecord), (record) => {
    if (record === undefined) return
    record.organizationId = organizationId
    record.principalId = principalId
  })

/** Says, in the current request's access-log line, why it was refused (`reason`); nothing outside a request. */
export const explain = (reason: string): Effect.Effect<void> =>
  Effect.map(FiberRef.get(currentRecord), (record) => {
    if (record !== undefined) record.reason = reason
  })

/**
 * The request's parent span as the router sees it: keeps the `http.route` the router writes, and forwards every
 * call to the server span when there is one (telemetry on), whose ids it carries so child spans link to it.
 */
class RouteRecorder implements Tracer.Span {
  readonly _tag = "Span"
  route: string | null = null
  constructor(private readonly inner: Tracer.Span | undefined) {}
  get name() {
    return this.inner?.name ?? "http.server"
  }
  get spanId() {
    return this.inner?.spanId ?? "0000000000000000"
  }
  get traceId() {
    return this.inner?.traceId ?? "00000000000000000000000000000000"
  }
  get parent() {
    return this.inner?.parent ?? Option.none()
  }
  get context() {
    return this.inner?.context ?? Context.empty()
  }
  get status() {
    return this.inner?.status ?? { _tag: "Started" as const, startTime: 0n }
  }
  get attributes() {
    return this.inner?.attributes ?? new Map<string, unknown>()
  }
  get links() {
    return this.inner?.links ?? []
  }
  get sampled() {
    return this.inner?.sampled ?? false
  }
  get kind() {
    return this.inner?.kind ?? ("server" as const)
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>) {
    this.inner?.end(endTime, exit)
  }
  attribute(key: string, value: unknown) {
    if (key === "http.route" && typeof value === "string") this.route = value
    this.inner?.attribute(key, value)
  }
  event(name: string, startTime: bigint, attributes?: Record<string, unknown>) {
    this.inner?.event(name, startTime, attributes)
  }
  addLinks(links: ReadonlyArray<Tracer.SpanLink>) {
    this.inner?.addLinks(links)
  }
}

const requests = Metric.counter("http.server.requests", {
  description: "Requests answered, by route template, method and status.",
  incremental: true
})
const duration = Metric.histogram(
  "http.server.request.duration",
  MetricBoundaries.exponential({ start: 0.001, factor: 2, count: 14 }),
  "Time from a request's arrival to its answer, in seconds."
)

const labelsOf = (tags: Record<string, string>) =>
  Object.entries(tags).map(([key, value]) => MetricLabel.make(key, value))

/** The request's count and duration (telemetry on only: `platform/Telemetry`). */
const measured = (method: string, route: string | null, status: number, durationMs: number) => {
  const tags = {
    "http.request.method": method,
    "http.route": route ?? "unmatched",
    "http.response.status_code": String(status)
  }
  return Effect.zipRight(
    Metric.increment(Metric.taggedWithLabels(requests, labelsOf(tags))),
    Metric.update(Metric.taggedWithLabels(duration, labelsOf(tags)), durationMs / 1000)
  )
}

const statusOf = (exit: Exit.Exit<{ readonly status: number }, unknown>): number =>
  Exit.isSuccess(exit)
    ? exit.value.status
    : Cause.isInterruptedOnly(exit.cause)
      ? 499
      : HttpServerError.causeResponseStripped(exit.cause)[0].status

/** Middleware (inside `requestId`): runs `app` and writes its access-log line. */
export const accessLogged = <E, R>(
  id: string,
  request: HttpServerRequest.HttpServerRequest,
  app: HttpApp.Default<E, R>
): HttpApp.Default<E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const started = performance.now()
    const record: RequestRecord = { organizationId: undefined, principalId: undefined, reason: undefined }
    const parent = fiber.currentContext.unsafeMap.get(Tracer.ParentSpan.key) as Tracer.AnySpan | undefined
    const recorder = new RouteRecorder(parent?._tag === "Span" ? parent : undefined)
    return app.pipe(
      Effect.withParentSpan(recorder),
      Effect.locally(currentRecord, record),
      Effect.onExit((exit) => {
        const status = statusOf(exit)
        const line = {
          msg: "request",
          requestId: id,
          method: request.method,
          route: recorder.route,
          status,
          durationMs: Math.round((performance.now() - started) * 100) / 100,
          ...(record.organizationId === undefined ? {} : { organizationId: record.organizationId }),
          ...(record.principalId === undefined ? {} : { principalId: record.principalId }),
          ...(record.reason === undefined ? {} : { reason: record.reason })
        }
        const logged = status >= 500 ? Effect.logError(line) : Effect.logInfo(line)
        return fiber.getFiberRef(currentMetricsEnabled)
          ? Effect.zipRight(measured(request.method, line.route, status, line.durationMs), logged)
          : logged
      })
    )
  })
