/** The audit log (decisions 4): every change with who, what, when and the request id; newest first. */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { EARLIEST_DATE, instantOf, isCalendarDate, LATEST_DATE } from "./Values.js"
import { Schema } from "effect"

const INSTANT_RANGE = `that exists in the calendar, from ${EARLIEST_DATE} to ${LATEST_DATE}`
import { Choice, Filter, Page, PageQuery } from "./AdminPage.js"
import { CsrfProtection, JsonPayload, OperatorAuthentication } from "./AdminSession.js"

export class AuditEntryView extends Schema.Class<AuditEntryView>("AuditEntryView")({
  id: Schema.UUID,
  /** `client`: not authenticated, `actorId` is its client address (failed and throttled sign-ins). */
  actorType: Schema.Literal("application", "installation", "operator", "system", "client"),
  actorId: Schema.String,
  /** The operator's e-mail or the Application's name when known. */
  actorLabel: Schema.NullOr(Schema.String),
  action: Schema.String,
  targetType: Schema.String,
  targetId: Schema.String,
  requestId: Schema.NullOr(Schema.String),
  details: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  occurredAt: Schema.Date
}) {}

export const AuditEntryPage = Page(AuditEntryView, "AuditEntryPage")

/**
 * A bound of the filter: an ISO date that exists in the calendar (`CalendarDate`), or an ISO 8601 date-time with a
 * UTC offset (`Instant`'s rule, kept as text); "" is no bound.
 */
const Instant = Schema.optional(
  Schema.String.pipe(
    Schema.filter((text) => text === "" || isCalendarDate(text) || instantOf(text) !== undefined),
    Schema.annotations({
      message: () => ({
        message: `must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a UTC offset ${INSTANT_RANGE}`,
        override: true
      })
    })
  )
)

export class AuditLogGroup extends HttpApiGroup.make("auditLog")
  .add(
    HttpApiEndpoint.get("list", "/api/audit-log")
      .setUrlParams(
        Schema.Struct({
          ...PageQuery,
          action: Filter(200),
          actorType: Choice("application", "installation", "operator", "system", "client"),
          targetType: Filter(200),
          targetId: Filter(200),
          requestId: Filter(200),
          from: Instant,
          to: Instant
        })
      )
      .addSuccess(AuditEntryPage)
  )
  .middleware(JsonPayload)
  .middleware(CsrfProtection)
  .middleware(OperatorAuthentication) {}
