/**
 * Every operation of `@propline/contract`'s IntegrationApi as "METHOD /path" (path parameters as `:name`), by group
 * and name. Written by `scripts/operations.mjs` from the contract; `test/Operations.test.ts` checks it against it.
 */
export const OPERATIONS = {
  operationalContexts: {
    list: "GET /v1/operational-contexts"
  },
  billing: {
    getVerificationQueue: "GET /v1/billing/verification-queue",
    passProposal: "POST /v1/billing/invoice-proposals/:proposalId/pass",
    rejectProposal: "POST /v1/billing/invoice-proposals/:proposalId/reject",
    getSendQueue: "GET /v1/billing/send-queue",
    reportFailed: "POST /v1/billing/invoices/:invoiceId/report-failed",
    reportSent: "POST /v1/billing/invoices/:invoiceId/report-sent",
    reportPayment: "POST /v1/billing/invoices/:invoiceId/report-payment",
    reportPaymentByExternalReference: "POST /v1/billing/invoices/by-external-reference/:externalReference/report-payment",
    reportPaymentReversed: "POST /v1/billing/invoices/:invoiceId/report-payment-reversed",
    reportPaymentReversedByExternalReference: "POST /v1/billing/invoices/by-external-reference/:externalReference/report-payment-reversed",
    reportWriteOff: "POST /v1/billing/invoices/:invoiceId/report-write-off",
    getWithdrawalQueue: "GET /v1/billing/withdrawal-queue",
    reportDiscarded: "POST /v1/billing/invoice-withdrawals/:invoiceId/report-discarded"
  },
  booking: {
    listResources: "GET /v1/booking/resources",
    getResource: "GET /v1/booking/resources/:resourceId",
    getAvailability: "GET /v1/booking/resources/:resourceId/availability",
    searchAvailability: "GET /v1/booking/availability",
    listAddOnProducts: "GET /v1/booking/resources/:resourceId/add-on-products",
    lookUpCompany: "POST /v1/booking/company-lookups",
    previewBookingRequest: "POST /v1/booking/booking-requests/preview",
    createBookingRequest: "POST /v1/booking/booking-requests",
    listBookingRequests: "GET /v1/booking/booking-requests",
    getBookingRequestByRequestId: "GET /v1/booking/booking-requests/by-request-id/:requestId",
    cancelBookingRequest: "POST /v1/booking/booking-requests/:bookingId/cancel",
    rescheduleBookingRequest: "POST /v1/booking/booking-requests/:bookingId/reschedule",
    getBookingRequest: "GET /v1/booking/booking-requests/:bookingId"
  },
  crm: {
    getSigningQueue: "GET /v1/crm/signing-queue",
    getWithdrawalQueue: "GET /v1/crm/withdrawal-queue",
    started: "POST /v1/crm/signing-attempts/:attemptId/started",
    signedDocumentUpload: "POST /v1/crm/signing-attempts/:attemptId/signed-document-upload",
    signed: "POST /v1/crm/signing-attempts/:attemptId/signed",
    declined: "POST /v1/crm/signing-attempts/:attemptId/declined",
    expired: "POST /v1/crm/signing-attempts/:attemptId/expired",
    withdrawn: "POST /v1/crm/signing-attempts/:attemptId/withdrawn",
    failed: "POST /v1/crm/signing-attempts/:attemptId/failed"
  },
  integrations: {
    listConfigurations: "GET /v1/integrations/configurations",
    redeemConnectionReference: "POST /v1/integrations/connection-references/redeem",
    reportReady: "POST /v1/integrations/configurations/:configurationId/ready",
    reportFailed: "POST /v1/integrations/configurations/:configurationId/failed"
  },
  events: {
    listEvents: "GET /v1/events",
    getEvent: "GET /v1/events/:eventId"
  }
} as const
