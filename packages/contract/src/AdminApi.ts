/**
 * The admin console's HttpApi (issue 11): the operators' side of every flow, separate from the public v1 contract.
 * The admin host implements it; the console's browser client is derived from it, so both share one definition.
 *
 * Conventions (the v1 API's, decisions 4): JSON bodies; problem details (RFC 9457) with `code` and, for
 * VALIDATION_FAILED, `issues` whose `path` is a JSON Pointer into the body, path or query; lists take `limit`
 * (1 to 100, default 50) and an opaque `cursor` and answer `{ items, nextCursor }`. Checks run 401 (no session) →
 * 403 (CSRF token) → 400 (input) → 404 (another organization's record, or none) → the business rule. Every change
 * runs in one transaction that writes its audit entry with the operator and the request id.
 *
 * Each capability's operator pages plug in as one more group here and one more handler layer in the host.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { BadRequest, Conflict, InternalServerError, NotFound, PayloadTooLarge, ServiceUnavailable } from "./Problem.js"
import { ApplicationsGroup } from "./ApplicationsAdmin.js"
import { AuditLogGroup } from "./AuditLogAdmin.js"
import { BillingGroup } from "./BillingAdmin.js"
import { BookingGroup } from "./BookingAdmin.js"
import { ConnectorAppsGroup } from "./ConnectorAppsAdmin.js"
import { CustomersGroup } from "./CustomersAdmin.js"
import { IntegrationConfigurationsGroup } from "./IntegrationsAdmin.js"
import { OrganizationGroup } from "./OrganizationAdmin.js"
import { SessionGroup, SignInGroup } from "./AdminSession.js"
import { BillingChartsGroup, BookingCalendarGroup } from "./PicturesAdmin.js"
import { SigningGroup } from "./SigningAdmin.js"
import { AccountGroup, InvitationGroup, TeamGroup } from "./TeamAdmin.js"
import { WebhooksGroup } from "./WebhooksAdmin.js"

export class AdminApi extends HttpApi.make("AdminApi")
  .add(SignInGroup)
  .add(SessionGroup)
  .add(OrganizationGroup)
  .add(CustomersGroup)
  .add(ApplicationsGroup)
  .add(ConnectorAppsGroup)
  .add(IntegrationConfigurationsGroup)
  .add(AuditLogGroup)
  .add(BillingGroup)
  .add(BookingGroup)
  .add(SigningGroup)
  .add(WebhooksGroup)
  .add(TeamGroup)
  .add(InvitationGroup)
  .add(AccountGroup)
  .add(BillingChartsGroup)
  .add(BookingCalendarGroup)
  .addError(BadRequest)
  .addError(NotFound)
  .addError(Conflict)
  .addError(PayloadTooLarge)
  .addError(InternalServerError)
  .addError(ServiceUnavailable) {}
