/**
 * The console's audit log as a read model: the organization's entries, newest first, with who acted in words (the
 * operator's e-mail address or the Application's name, through identity's `operatorEmailOf` and `applicationNameOf`).
 */
import { Effect } from "effect"
import { sql } from "kysely"
import { applicationNameOf } from "../identity/ApplicationRepository.js"
import { connectorAppsPublishedBy } from "../identity/ConnectorAppRepository.js"
import { operatorEmailOf } from "../identity/OperatorRepository.js"
import * as CursorPage from "../platform/CursorPage.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"
import { escapeLike, keyed } from "../platform/ConsoleListing.js"

export interface AuditFilter {
  /** A prefix: `application.` finds every Application change. */
  readonly action: string | undefined
  readonly actorType: "application" | "installation" | "operator" | "system" | "client" | undefined
  readonly targetType: string | undefined
  readonly targetId: string | undefined
  readonly requestId: string | undefined
  /** Inclusive lower bound. */
  readonly from: Date | undefined
  /** Exclusive upper bound. */
  readonly to: Date | undefined
}

export class AuditLogReadRepository extends Effect.Service<AuditLogReadRepository>()("@propline/api/audit/AuditLogReadRepository", {
  succeed: spanned("AuditLogReadRepository", {
    /** A page of the organization's entries, newest first; the other filters match exactly. */
    entries: (organizationId: string, filter: AuditFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("auditLog")
          .select([
            "auditLog.id",
            "auditLog.actorType",
            "auditLog.actorId",
            "auditLog.action",
            "auditLog.targetType",
            "auditLog.targetId",
            "auditLog.requestId",
            "auditLog.details",
            "auditLog.occurredAt",
            CursorPage.sortKey("auditLog.occurredAt").as("cursorAt"),
            sql<string | null>`case audit_log.actor_type
              when 'operator' then ${operatorEmailOf("audit_log.actor_id")}
              when 'application' then ${applicationNameOf("audit_log.actor_id")}
              else null end`.as("actorLabel")
          ])
          // The organization's entries, and those of the connector apps it published (an app belongs to none).
          .where((eb) =>
            eb.or([
              eb("auditLog.organizationId", "=", organizationId),
              eb.and([
                eb("auditLog.organizationId", "is", null),
                eb("auditLog.targetType", "=", "connector_app"),
                eb("auditLog.targetId", "in", connectorAppsPublishedBy(organizationId))
              ])
            ])
          )
        if (after !== undefined) query = query.where(CursorPage.before("auditLog.occurredAt", "auditLog.id", after))
        if (filter.action !== undefined) query = query.where("auditLog.action", "like", `${escapeLike(filter.action)}%`)
        if (filter.actorType !== undefined) query = query.where("auditLog.actorType", "=", filter.actorType)
        if (filter.targetType !== undefined) query = query.where("auditLog.targetType", "=", filter.targetType)
        if (filter.targetId !== undefined) query = query.where("auditLog.targetId", "=", filter.targetId)
        if (filter.requestId !== undefined) query = query.where("auditLog.requestId", "=", filter.requestId)
        if (filter.from !== undefined) query = query.where("auditLog.occurredAt", ">=", filter.from)
        if (filter.to !== undefined) query = query.where("auditLog.occurredAt", "<", filter.to)
        return query.orderBy("auditLog.occurredAt", "desc").orderBy("auditLog.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-audit", keyed(rows), limit)))
  })
}) {}
