/**
 * Spans for services and repositories that cost nothing when telemetry is off (issue 27).
 *
 * `Effect.withSpan` makes a span even while spans are switched off (`Layer.setTracerEnabled(false)`, `Telemetry`
 * without an endpoint): a no-op span, a copy of the request's Context with it as the parent span and two copies of
 * the fiber's FiberRefs (set and restore), per call. {@link traced} reads the switch once and, off, runs the effect
 * as it is, as `@propline/db/Db` does for its statement spans; on, it is `Effect.withSpan` with the name and
 * options, so the recorded spans (`platform/Telemetry`) are the same.
 *
 * `spanned("BillingReadRepository", { invoices: (…) => …, … })` answers the same methods, each call {@link traced}
 * as `<service>.<method>` (no captured stack trace, as every service's spans). The methods' types, generic ones
 * included, are kept.
 */
import { Effect, type Fiber, FiberRef, type Tracer } from "effect"

/**
 * {@link traced} decided on `fiber`, the fiber that will run the answer (for a step already running on it, a
 * `withFiberRuntime`, without a step of its own).
 */
export const tracedOn = <A, E, R>(
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  effect: Effect.Effect<A, E, R>,
  name: string,
  options?: Tracer.SpanOptions
): Effect.Effect<A, E, R> =>
  fiber.getFiberRef(FiberRef.currentTracerEnabled)
    ? Effect.withSpan(effect, name, { captureStackTrace: false, ...options })
    : effect

const run = <A, E, R>(effect: Effect.Effect<A, E, R>, name: string, options?: Tracer.SpanOptions): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime<A, E, R>((fiber) => tracedOn(fiber, effect, name, options))

/** `effect` in a span named `name` (no captured stack trace) when spans are recorded; `effect` itself otherwise. */
export const traced: {
  (name: string, options?: Tracer.SpanOptions): <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  <A, E, R>(effect: Effect.Effect<A, E, R>, name: string, options?: Tracer.SpanOptions): Effect.Effect<A, E, R>
} = ((first: Effect.Effect<unknown, unknown, unknown> | string, second?: string | Tracer.SpanOptions, third?: Tracer.SpanOptions) =>
  typeof first === "string"
    ? (effect: Effect.Effect<unknown, unknown, unknown>) => run(effect, first, second as Tracer.SpanOptions | undefined)
    : run(first, second as string, third)) as never

type Methods = Record<string, (...args: never[]) => Effect.Effect<unknown, unknown, unknown>>

/** `methods`, each {@link traced} as `<service>.<method name>`. */
export const spanned = <M extends Methods>(service: string, methods: M): M =>
  Object.fromEntries(
    Object.entries(methods).map(([name, method]) => {
      const spanName = `${service}.${name}`
      return [name, (...args: never[]) => traced(method(...args), spanName)]
    })
  ) as M
