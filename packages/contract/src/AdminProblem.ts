/**
 * Problems the admin API answers beside the public API's (`@propline/contract/Problem`, RFC 9457): 429 when
 * sign-in attempts are throttled. The other statuses reuse the public classes, so the console reads one shape.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

/**
 * 429 (RFC 6585 §4): too many failed sign-ins for this e-mail address from this client address; `retryAfterSeconds`
 * (whole seconds, ≥ 1, also in the `Retry-After` header) says how long to wait. The same answer whether or not an
 * operator has the address.
 */
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

/** A wait in words, rounded up: "1 second", "45 seconds", "2 minutes", "1 hour". */
export const waitInWords = (seconds: number): string => {
  const [amount, unit] = seconds < 60 ? [seconds, "second"] : seconds < 3600 ? [Math.ceil(seconds / 60), "minute"] : [Math.ceil(seconds / 3600), "hour"]
  return `${amount} ${unit}${amount === 1 ? "" : "s"}`
}

/** A 429 problem whose detail says, in words, how long to wait. */
export const tooManyRequests = (retryAfterSeconds: number) =>
  new TooManyRequests({
    type: "about:blank",
    title: "Too Many Requests",
    status: 429,
    detail:
      `Too many failed sign-ins for this e-mail address from your network address. Try again in ` +
      `${waitInWords(retryAfterSeconds)}.`,
    retryAfterSeconds
  })
