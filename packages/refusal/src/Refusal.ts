/**
 * The one shape of a business-rule refusal, shared by every domain package (billing, identity, signing, booking,
 * integrations) and read by the API host's problem mapping (spec sections 2.3, 7.1, 7.3; decisions section 4).
 *
 * A refusal is a `Data.TaggedError` (so a domain function can fail an `Effect` or return an `Either` with it)
 * carrying:
 * - `code`: the spec's code (section 7.3), a literal type; clients match on it;
 * - `status`: the HTTP status to answer with: 400 when a business rule refused the request, 409 when the request
 *   conflicts with state another request made (`*_REPLAY_MISMATCH`, `*_ALREADY_USED`, `BOOKING_SLOT_TAKEN`, …);
 * - `detail`: a sentence safe to show a client (no internal ids, no caller-supplied text); also the `message`;
 * - `issues` (optional): the failing fields, each a JSON Pointer (RFC 6901) into the request body and a message,
 *   when the refusal is about fields (spec 7.1's shape: `VALIDATION_FAILED`, `INTEGRATIONS_CONFIGURATION_INVALID`,
 *   `INTEGRATIONS_APP_INVALID`); the problem lists them;
 * - the facts that led to it, as further fields, for logs and tests.
 *
 * Define one with {@link Refusal}:
 *
 * ```ts
 * export class PaymentNotFound extends Refusal("PaymentNotFound", "BILLING_PAYMENT_NOT_FOUND", 400)<{
 *   readonly paymentId: string
 * }> {}
 * new PaymentNotFound({ paymentId, detail: "No payment with this paymentId was reported on the invoice." })
 * ```
 *
 * @since 0.1.0
 */
import { type Cause, Data } from "effect"
import type { ErrorCode } from "./ErrorCode.js"

/**
 * HTTP status of a refusal: 400 (a rule refused the request) or 409 (a conflict with the current state).
 *
 * @since 0.1.0
 */
export type RefusalStatus = 400 | 409

/**
 * A failing field of a refusal about fields: `path` a JSON Pointer (RFC 6901) into the request body ("" for the
 * body as a whole), `message` what is wrong with it (spec 7.1's `issues`).
 *
 * @since 0.2.0
 */
export interface RefusalIssue {
  readonly path: string
  readonly message: string
}

/**
 * What every refusal carries, whatever its package; `issues` only on a refusal about fields.
 *
 * @since 0.1.0
 */
export interface RefusalShape {
  readonly _tag: string
  readonly code: ErrorCode
  readonly status: RefusalStatus
  readonly detail: string
  readonly issues?: ReadonlyArray<RefusalIssue> | undefined
}

/**
 * A base class for a refusal with a fixed tag, code and status. Construct with the facts, a `detail` and, for a
 * refusal about fields, its `issues`; the `message` is the `detail`.
 *
 * @since 0.1.0
 */
export const Refusal = <Tag extends string, Code extends ErrorCode, Status extends RefusalStatus>(
  tag: Tag,
  code: Code,
  status: Status
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "no facts", as in Data.TaggedError
): new <A extends Record<string, unknown> = {}>(
  args: A & { readonly detail: string; readonly issues?: ReadonlyArray<RefusalIssue> }
) => Cause.YieldableError & {
  readonly _tag: Tag
  readonly code: Code
  readonly status: Status
  readonly detail: string
  readonly issues?: ReadonlyArray<RefusalIssue>
} & Readonly<A> => {
  const Tagged = Data.TaggedError(tag) as unknown as new (args: Record<string, unknown>) => object
  class Base extends Tagged {
    readonly code = code
    readonly status = status
    constructor(args: Record<string, unknown> & { readonly detail: string }) {
      super({ ...args, message: args.detail })
    }
  }
  return Base as never
}

/**
 * Whether a value is a refusal of any package (a tagged error with a spec code and a 400/409 status).
 *
 * @since 0.1.0
 */
export const isRefusal = (value: unknown): value is RefusalShape =>
  typeof value === "object" &&
  value !== null &&
  typeof (value as RefusalShape)._tag === "string" &&
  typeof (value as RefusalShape).code === "string" &&
  ((value as RefusalShape).status === 400 || (value as RefusalShape).status === 409) &&
  typeof (value as RefusalShape).detail === "string"
