/**
 * Spans for a service's or repository's methods without a `pipe` in each: `spanned("BillingReadRepository",
 * { invoices: (…) => …, … })` answers the same methods, each call wrapped in `Effect.withSpan("<service>.<method>")`
 * (no captured stack trace, as every service's spans). The methods' types, generic ones included, are kept.
 */
import { Effect } from "effect"

type Methods = Record<string, (...args: never[]) => Effect.Effect<unknown, unknown, unknown>>

/** `methods`, each wrapped in a span named `<service>.<method name>`. */
export const spanned = <M extends Methods>(service: string, methods: M): M =>
  Object.fromEntries(
    Object.entries(methods).map(([name, method]) => [
      name,
      (...args: never[]) => Effect.withSpan(method(...args), `${service}.${name}`, { captureStackTrace: false })
    ])
  ) as M
