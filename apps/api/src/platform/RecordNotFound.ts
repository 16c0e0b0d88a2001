/**
 * 404 (spec 7.1, decisions 2): the record does not exist, or lies outside the token's organization or contexts —
 * never 403, so a caller learns nothing about another organization's records.
 *
 * The one rule for 404s (the contract's `NOT_FOUND_RULE`, stated in the OpenAPI document): `detail` names the
 * kind of record; `code` is present exactly where spec 7.3 lists a code for that kind ({@link NOT_FOUND_CODES}).
 */
import type { ErrorCode as ErrorCodeValue } from "@propline/refusal/ErrorCode"
import { Data } from "effect"

/** The kinds of record spec 7.3 lists a not-found code for, with that code; every other kind has none. */
export const NOT_FOUND_CODES: Readonly<Record<string, ErrorCodeValue>> = {
  "integration configuration": "INTEGRATIONS_CONFIGURATION_NOT_FOUND"
}

/**
 * A missing record of `kind`, or one outside the caller's reach. `code` is the spec's code for that kind
 * ({@link NOT_FOUND_CODES}), set by the constructor and absent (not `undefined`) where spec 7.3 lists none.
 */
export class RecordNotFound extends Data.TaggedError("RecordNotFound")<{
  /** What was looked for, as a client would name it: `invoice`, `invoice proposal`, `signing attempt` … */
  readonly kind: string
  /** The 7.3 code for a missing record of this kind, where the spec lists one. */
  readonly code?: ErrorCodeValue
}> {
  constructor(args: { readonly kind: string }) {
    const code = NOT_FOUND_CODES[args.kind]
    super(code === undefined ? { kind: args.kind } : { kind: args.kind, code })
  }

  get detail(): string {
    return `No such ${this.kind}, or the token cannot see it.`
  }
}
