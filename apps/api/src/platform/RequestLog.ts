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
 *
 * The request's own values (its id, who it acts for, the route recorder standing in as the parent span) are added
 * to the request's Context in one copy of it, as one {@link CurrentRequest} service: every `Effect.locally` or
 * `provideService` copies the fiber's maps twice (set and restore), so one write per request instead of three
 * (docs/performance.md, issue 27). Forked fibers inherit the Context, so they see the same request, as before.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import {
  Cause,
  Context,
  Effect,
  Exit,
  type Fiber,
  FiberRef,
  Metric,
  MetricBoundaries,
  MetricLabel,
  Option,
  RuntimeFlags,
  Tracer
} from "effect"
import { performance } from "node:perf_hooks"
import { currentMetricsEnabled } from "./Telemetry.js"

/**
 * The current request: its id (`X-Request-Id`, `platform/RequestId`), and who it acts for as its own code names it
 * ({@link identify}; written once authentication succeeds, read when the access-log line is written).
 */
export interface RequestState {
  readonly id: string
  organizationId: string | undefined
  principalId: string | undefined
  reason: string | undefined
}

/**
 * The current request's {@link RequestState}, in the request's Context (absent outside a request: read it with
 * {@link requestStateOf}, never as a requirement).
 */
export class CurrentRequest extends Context.Tag("@propline/api/platform/CurrentRequest")<CurrentRequest, RequestState>() {}

/** The request state in `context`, if it belongs to a request. */
export const requestStateOf = (context: Context.Context<never>): RequestState | undefined =>
  context.unsafeMap.get(CurrentRequest.key) as RequestState | undefined

/**
 * {@link identify} done now, for code already running on the request's fiber with its Context at hand (a
 * `withFiberRuntime` step): nothing when `context` belongs to no request.
 */
export const identifyIn = (context: Context.Context<never>, organizationId: string, principalId: string): void => {
  const state = requestStateOf(context)
  if (state === undefined) return
  state.organizationId = organizationId
  state.principalId = principalId
}

/** Names who the current request acts for, in its access-log line; nothing outside a request. */
export const identify = (organizationId: string, principalId: string): Effect.Effect<void> =>
  Effect.contextWith((context: Context.Context<never>) => identifyIn(context, organizationId, principalId))

/** Says, in the current request's access-log line, why it was refused (`reason`); nothing outside a request. */
export const explain = (reason: string): Effect.Effect<void> =>
  Effect.contextWith((context: Context.Context<never>) => {
    const state = requestStateOf(context)
    if (state !== undefined) state.reason = reason
  })

/**
 * A recorder's Context when there is no server span (telemetry off): it is no span to propagate or to attach log
 * events to, so Effect's tracer logger (which turns every log line into an event on the current span, rendering the
 * message as indented JSON first) skips it, as it skips a request without a span; spans made under it have no parent,
 * as without it.
 */
const standalone = Context.make(Tracer.DisablePropagation, true)

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
    return this.inner?.context ?? standalone
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

/** One access-log line's fields, in the order they are written (the logger adds `time`, `level` before them). */
interface AccessLine {
  readonly msg: "request"
  readonly requestId: string
  readonly method: string
  readonly route: string | null
  readonly status: number
  readonly durationMs: number
  organizationId?: string
  principalId?: string
  reason?: string
}

/** The status a failed request is logged with: 499 when the client hung up, else the answer the platform makes of it. */
const failureStatusOf = (cause: Cause.Cause<unknown>): number =>
  Cause.isInterruptedOnly(cause) ? 499 : HttpServerError.causeResponseStripped(cause)[0].status

/**
 * What {@link accessLogged} answers once the request's line is written: from the app's response (by default the
 * response itself) and from its failure (by default the failure itself).
 */
export interface AnswerOptions<E, R> {
  readonly onSuccess: (
    response: HttpServerResponse.HttpServerResponse
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  readonly onFailure: (cause: Cause.Cause<E>) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
}

/**
 * Whether `fiber` runs uninterruptible now (every request's app does: `HttpApp.toHandled` runs it so, and a route's
 * handler is made interruptible only inside it). Read from the fiber runtime's flags; false when they can't be read.
 */
const runsUninterruptible = (fiber: Fiber.RuntimeFiber<unknown, unknown>): boolean => {
  const flags = (fiber as { readonly currentRuntimeFlags?: unknown }).currentRuntimeFlags
  return typeof flags === "number" && !RuntimeFlags.interruption(flags as RuntimeFlags.RuntimeFlags)
}

/** {@link accessLogged}'s `app` run as `Effect.onExit` runs it, its line `written` from its exit, then `answer`ed. */
const onExitLogged = <E, R>(
  app: HttpApp.Default<E, R>,
  written: (status: number) => Effect.Effect<void>,
  answer: AnswerOptions<E, R> | undefined
): HttpApp.Default<E, R> => {
  const logged = Effect.onExit(app, (exit) => written(Exit.isSuccess(exit) ? exit.value.status : failureStatusOf(exit.cause)))
  return answer === undefined ? logged : Effect.matchCauseEffect(logged, answer)
}

/**
 * Middleware (inside `requestId`): runs `app` as the request `id` ({@link CurrentRequest}, the route recorder as its
 * parent span) and writes its access-log line; then answers as `answer` says (by default as `app` did).
 *
 * The line is written whatever `app`'s exit, an interruption included. When the fiber already runs uninterruptible
 * (every request: see {@link runsUninterruptible}) that holds for a plain match of `app`'s exit; otherwise `app` is
 * run as `Effect.onExit` runs it (uninterruptible around it, `app` itself restored).
 */
export const accessLogged = <E, R>(
  id: string,
  request: HttpServerRequest.HttpServerRequest,
  app: HttpApp.Default<E, R>,
  answer?: AnswerOptions<E, R>
): HttpApp.Default<E, R> =>
  Effect.withFiberRuntime((fiber) => {
    const started = performance.now()
    const state: RequestState = { id, organizationId: undefined, principalId: undefined, reason: undefined }
    const context = fiber.currentContext
    const parent = context.unsafeMap.get(Tracer.ParentSpan.key) as Tracer.AnySpan | undefined
    const recorder = new RouteRecorder(parent?._tag === "Span" ? parent : undefined)
    // One copy of the Context with both services (what `Effect.withParentSpan` and a `provideService` would do in two).
    const requestContext = Context.unsafeMake<never>(
      new Map(context.unsafeMap).set(Tracer.ParentSpan.key, recorder).set(CurrentRequest.key, state)
    )
    // The line is written inside the request's Context too (its logger reads the request id there, and with
    // telemetry on the recorder forwards the log event to the server span, as the span itself would take it).
    const written = (status: number): Effect.Effect<void> => {
      const line: AccessLine = {
        msg: "request",
        requestId: id,
        method: request.method,
        route: recorder.route,
        status,
        durationMs: Math.round((performance.now() - started) * 100) / 100
      }
      // Set only when known (no spreads of fresh objects): a field absent from the line is absent from its JSON.
      if (state.organizationId !== undefined) line.organizationId = state.organizationId
      if (state.principalId !== undefined) line.principalId = state.principalId
      if (state.reason !== undefined) line.reason = state.reason
      const logged = status >= 500 ? Effect.logError(line) : Effect.logInfo(line)
      return fiber.getFiberRef(currentMetricsEnabled)
        ? Effect.zipRight(measured(request.method, line.route, status, line.durationMs), logged)
        : logged
    }
    const answered: HttpApp.Default<E, R> = runsUninterruptible(fiber)
      ? Effect.matchCauseEffect(app, {
          onSuccess: (response) =>
            Effect.zipRight(written(response.status), answer === undefined ? Effect.succeed(response) : answer.onSuccess(response)),
          onFailure: (cause) =>
            Effect.zipRight(written(failureStatusOf(cause)), answer === undefined ? Effect.failCause(cause) : answer.onFailure(cause))
        })
      : onExitLogged(app, written, answer)
    // Set, not `Effect.locally`: the request's fiber ends with the request, and the HTTP platform sets and restores
    // the Context around every request itself (`HttpApp.toHandled` adds the request's Scope around the whole app and
    // its middleware and puts the Context back when it exits: one FiberRef set and its restore, as patched in
    // `patches/@effect__platform@0.97.2.patch`; `Effect.locally` unpatched), which drops this state after the
    // response. A restore here would be a second copy of the fiber's FiberRefs per request for nothing.
    return Effect.zipRight(FiberRef.set(FiberRef.currentContext, requestContext), answered)
  })
