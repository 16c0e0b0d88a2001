/**
 * Problems the admin API answers beside the public API's (`@propline/contract/Problem`, RFC 9457): 429 when
 * sign-in attempts are throttled. The other statuses reuse the public classes, so the console reads one shape.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

/** 429: too many failed sign-ins for this e-mail address or client; `retryAfterSeconds` says how long to wait. */
export class TooManyRequests extends Schema.Class<TooManyRequests>("TooManyRequests")(
  {
    type: Schema.Literal("about:blank"),
    title: Schema.String,
    status: Schema.Literal(429),
    detail: Schema.optional(Schema.String),
    retryAfterSeconds: Schema.Int.pipe(Schema.positive())
  },
  {
    ...HttpApiSchema.annotations({ status: 429, description: "Too many failed sign-ins; wait and try again." }),
    [HttpApiSchema.AnnotationEncoding]: { kind: "Json", contentType: "application/problem+json" }
  }
) {}

/** A 429 problem. */
export const tooManyRequests = (retryAfterSeconds: number) =>
  new TooManyRequests({
    type: "about:blank",
    title: "Too Many Requests",
    status: 429,
    detail: `Too many failed sign-ins. Try again in ${retryAfterSeconds} seconds.`,
    retryAfterSeconds
  })
