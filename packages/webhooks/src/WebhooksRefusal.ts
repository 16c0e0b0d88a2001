/**
 * The webhooks' refusals: an endpoint the operator described that can't be saved is `VALIDATION_FAILED` (400) with
 * one issue per field (its JSON Pointer and message), as the console's other forms answer (spec 7.1).
 */
import { Refusal, type RefusalIssue } from "@propline/refusal/Refusal"

export class EndpointInvalid extends Refusal("EndpointInvalid", "VALIDATION_FAILED", 400)<{
  readonly issues: ReadonlyArray<RefusalIssue>
}> {}

/** The refusal for `issues`, or undefined when there are none. */
export const endpointInvalid = (issues: ReadonlyArray<RefusalIssue>): EndpointInvalid | undefined =>
  issues.length === 0 ? undefined : new EndpointInvalid({ detail: "The endpoint is not valid; see issues.", issues })
