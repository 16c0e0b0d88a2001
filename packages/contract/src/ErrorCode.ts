/**
 * The Error record's `code` (spec sections 2.3 and 7.3) as a schema: one of the spec's codes, so the OpenAPI
 * document and the published client list every value a client can match on.
 */
import { ERROR_CODES } from "@propline/refusal/ErrorCode"
import { Schema } from "effect"

export type { ErrorCode as ErrorCodeValue } from "@propline/refusal/ErrorCode"

/** One of the codes of spec section 7.3. */
export const ErrorCode = Schema.Literal(...ERROR_CODES).annotations({
  identifier: "ErrorCode",
  description: "Names the rule that refused the request (spec section 7.3); clients match on this, never on `detail`."
})
