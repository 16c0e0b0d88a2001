/**
 * The event types an endpoint can subscribe to: the catalog's (issue 22, item 1). Until the catalog in
 * `@propline/contract/Events` lists every type, the types named here.
 */
export const SUBSCRIBABLE_EVENT_TYPES: ReadonlyArray<string> = [
  "billing.invoice.approved",
  "billing.payment.reported",
  "crm.signing_attempt.signed",
  "booking.request.approved",
  "integrations.configuration.ready"
]
