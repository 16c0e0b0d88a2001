import type { SigningAttemptRecord } from "../SigningAttempt.js"
import type { SigningAttemptEventFields } from "../SigningEvent.js"

/** @internal */
export const attemptEvent = <Tag extends string>(
  _tag: Tag,
  attempt: SigningAttemptRecord,
  at: Date
): SigningAttemptEventFields & { readonly _tag: Tag } => ({
  _tag,
  attemptId: attempt.id,
  contractId: attempt.contractId,
  organizationId: attempt.organizationId,
  operationalContextId: attempt.operationalContextId,
  at
})
