/** SQL of the console's audit log: the organization's entries, newest first, with who acted in words. */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { sql } from "kysely"
import { keyset, type Position } from "./AdminListing.js"

export interface AuditFilter {
  readonly action: string | undefined
  readonly actorType: "application" | "installation" | "operator" | "system" | undefined
  readonly targetType: string | undefined
  readonly targetId: string | undefined
  readonly requestId: string | undefined
  readonly from: Date | undefined
  /** Exclusive upper bound. */
  readonly to: Date | undefined
}

/**
 * Entries of the organization, newest first; `limit + 1` rows. `action` matches a prefix (`application.` finds
 * every Application change); the other filters match exactly.
 */
export const entries = (organizationId: string, filter: AuditFilter, after: Position | undefined, limit: number) =>
  Db.query((db) => {
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
        sql<string | null>`case audit_log.actor_type
          when 'operator' then (select o.email from operators o where o.id::text = audit_log.actor_id)
          when 'application' then (select a.name from applications a where a.id::text = audit_log.actor_id)
          else null end`.as("actorLabel")
      ])
      .where("auditLog.organizationId", "=", organizationId)
      .where(keyset("audit_log.occurred_at", "audit_log.id", "desc", after))
    if (filter.action !== undefined) {
      query = query.where("auditLog.action", "like", `${filter.action.replace(/[\\%_]/g, (c) => `\\${c}`)}%`)
    }
    if (filter.actorType !== undefined) query = query.where("auditLog.actorType", "=", filter.actorType)
    if (filter.targetType !== undefined) query = query.where("auditLog.targetType", "=", filter.targetType)
    if (filter.targetId !== undefined) query = query.where("auditLog.targetId", "=", filter.targetId)
    if (filter.requestId !== undefined) query = query.where("auditLog.requestId", "=", filter.requestId)
    if (filter.from !== undefined) query = query.where("auditLog.occurredAt", ">=", filter.from)
    if (filter.to !== undefined) query = query.where("auditLog.occurredAt", "<", filter.to)
    return query.orderBy("auditLog.occurredAt", "desc").orderBy("auditLog.id", "desc").limit(limit + 1).execute()
  }).pipe(Effect.orDie)
