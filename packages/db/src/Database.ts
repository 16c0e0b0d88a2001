/**
 * The kysely `Database` interface: one table type per file under `schema/`, merged here. Property names are
 * camelCase; the SQL columns are snake_case (kysely's CamelCasePlugin maps them).
 */
import type { AuditLogTable, EventTable } from "./schema/Audit.js"
import type {
  ChargeTable,
  CreditActTable,
  DocumentLineTable,
  InvoiceProposalTable,
  InvoiceRunTable,
  InvoiceTable,
  InvoiceWithdrawalTable,
  PaymentReversalTable,
  PaymentTable,
  WriteOffTable
} from "./schema/Billing.js"
import type {
  BookingAddOnProductTable,
  BookingApplicationResourceTable,
  BookingPriceRuleTable,
  BookingRequestChangeTable,
  BookingRequestTable,
  BookingResourceAddOnProductTable,
  BookingResourceTable
} from "./schema/Booking.js"
import type { BillingAccountTable, ContractLineTable, ContractTable, CustomerTable } from "./schema/Customers.js"
import type {
  ApplicationContextTable,
  ApplicationSecretTable,
  ApplicationTable,
  ConnectorAppKeyTable,
  ConnectorAppTable,
  ConsumedAssertionTable,
  InstallationContextTable,
  InstallationTable,
  SigningKeyTable,
  TokenRateLimitTable
} from "./schema/Identity.js"
import type {
  IntegrationConfigurationContextTable,
  IntegrationConfigurationTable,
  IntegrationConnectionReferenceTable
} from "./schema/Integrations.js"
import type {
  ConnectorAppPublisherTable,
  OperatorInviteTable,
  OperatorRecoveryCodeTable,
  OperatorSessionTable,
  OperatorSignInFailureTable,
  OperatorTable
} from "./schema/Operators.js"
import type { OperationalContextTable, OrganizationTable } from "./schema/Organizations.js"
import type {
  SignedDocumentUploadTable,
  SigningAttemptTable,
  SigningDocumentTable,
  SigningPartyTable,
  SigningSignerTable,
  UrlSigningKeyTable
} from "./schema/Signing.js"
import type { WebhookAttemptTable, WebhookDeliveryTable, WebhookEndpointTable } from "./schema/Webhooks.js"

export type * from "./schema/Audit.js"
export type * from "./schema/Billing.js"
export type * from "./schema/Booking.js"
export type * from "./schema/Customers.js"
export type * from "./schema/Identity.js"
export type * from "./schema/Integrations.js"
export type * from "./schema/Operators.js"
export type * from "./schema/Organizations.js"
export type * from "./schema/Signing.js"
export type * from "./schema/Webhooks.js"

export interface Database {
  organizations: OrganizationTable
  operationalContexts: OperationalContextTable
  customers: CustomerTable
  billingAccounts: BillingAccountTable
  contracts: ContractTable
  contractLines: ContractLineTable
  invoiceRuns: InvoiceRunTable
  charges: ChargeTable
  invoiceProposals: InvoiceProposalTable
  invoices: InvoiceTable
  documentLines: DocumentLineTable
  payments: PaymentTable
  paymentReversals: PaymentReversalTable
  writeOffs: WriteOffTable
  invoiceWithdrawals: InvoiceWithdrawalTable
  creditActs: CreditActTable
  applications: ApplicationTable
  applicationContexts: ApplicationContextTable
  applicationSecrets: ApplicationSecretTable
  signingKeys: SigningKeyTable
  tokenRateLimits: TokenRateLimitTable
  connectorApps: ConnectorAppTable
  connectorAppKeys: ConnectorAppKeyTable
  installations: InstallationTable
  installationContexts: InstallationContextTable
  consumedAssertions: ConsumedAssertionTable
  bookingResources: BookingResourceTable
  bookingPriceRules: BookingPriceRuleTable
  bookingAddOnProducts: BookingAddOnProductTable
  bookingResourceAddOnProducts: BookingResourceAddOnProductTable
  bookingApplicationResources: BookingApplicationResourceTable
  bookingRequests: BookingRequestTable
  bookingRequestChanges: BookingRequestChangeTable
  auditLog: AuditLogTable
  events: EventTable
  operators: OperatorTable
  operatorInvites: OperatorInviteTable
  operatorRecoveryCodes: OperatorRecoveryCodeTable
  operatorSessions: OperatorSessionTable
  operatorSignInFailures: OperatorSignInFailureTable
  connectorAppPublishers: ConnectorAppPublisherTable
  signingDocuments: SigningDocumentTable
  signingAttempts: SigningAttemptTable
  signingParties: SigningPartyTable
  signingSigners: SigningSignerTable
  signedDocumentUploads: SignedDocumentUploadTable
  urlSigningKeys: UrlSigningKeyTable
  integrationConfigurations: IntegrationConfigurationTable
  integrationConfigurationContexts: IntegrationConfigurationContextTable
  integrationConnectionReferences: IntegrationConnectionReferenceTable
  webhookEndpoints: WebhookEndpointTable
  webhookDeliveries: WebhookDeliveryTable
  webhookAttempts: WebhookAttemptTable
}
