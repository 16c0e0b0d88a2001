/**
 * The audit log (decisions 4): every change is written with who, what, when and the request id, in the
 * transaction of the change.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import type { AuditLogTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import { randomUUID } from "node:crypto"
import { currentRequestId } from "./RequestId.js"
import * as Sql from "./Sql.js"

/** One entry: the `audit_log` row without its id; `details` defaults to `{}`. */
export type AuditEntry = Omit<AuditLogTable, "id" | "details"> & { readonly details?: Record<string, unknown> }

/**
 * Who made a change outside an API request: an operator, the system (demo seed, commands), or a `client` not
 * authenticated, named by its client address (`platform/ClientAddress`): a failed or throttled operator sign-in.
 */
export interface Actor {
  readonly type: "operator" | "system" | "client"
  readonly id: string
}

/**
 * The insert of one entry: the statement {@link record} runs, or a data-modifying CTE of the change's own statement
 * (`Sql.cte`); the entry gets a random id.
 */
const insert = (entry: AuditEntry): RawBuilder<unknown> =>
  sql`
    insert into audit_log (
      id, organization_id, actor_type, actor_id, action, target_type, target_id, request_id, details, occurred_at
    ) values (
      ${randomUUID()}, ${entry.organizationId}, ${entry.actorType}, ${entry.actorId}, ${entry.action},
      ${entry.targetType}, ${entry.targetId}, ${entry.requestId}, ${JSON.stringify(entry.details ?? {})}::text::jsonb,
      ${entry.occurredAt}
    )`

/**
 * Appends one entry in the caller's transaction, as one plain statement (every change writes one); a failure is a
 * defect (the transaction rolls back).
 */
export const record = (entry: AuditEntry) => Sql.rows(insert(entry)).pipe(Effect.asVoid)

/** What changed: `action` (e.g. `billing.invoice.report_failed`), the target's type and id, optional details. */
export interface Change {
  readonly action: string
  readonly targetType: string
  readonly targetId: string
  readonly details?: Record<string, unknown>
  readonly at: Date
}

/**
 * The insert of the entry {@link byPrincipal} appends (the current request's id read now), for a change's own
 * statement to carry as a CTE (`Sql.cte`).
 */
export const insertByPrincipal = (principal: PrincipalShape, change: Change): Effect.Effect<RawBuilder<unknown>> =>
  Effect.map(currentRequestId, (requestId) =>
    insert({
      organizationId: principal.organizationId,
      actorType: "application",
      actorId: principal.subject,
      action: change.action,
      targetType: change.targetType,
      targetId: change.targetId,
      requestId,
      ...(change.details === undefined ? {} : { details: change.details }),
      occurredAt: change.at
    })
  )

/** Appends an entry for a change made by `principal` (an API caller) with the current request's id. */
export const byPrincipal = (principal: PrincipalShape, change: Change) =>
  Effect.flatMap(insertByPrincipal(principal, change), (statement) => Sql.rows(statement)).pipe(Effect.asVoid)

/** Appends an entry for a change made by `actor` in `organizationId` (null: in no organization). */
export const byActor = (organizationId: string | null, actor: Actor, change: Change) =>
  Effect.flatMap(currentRequestId, (requestId) =>
    record({
      organizationId,
      actorType: actor.type,
      actorId: actor.id,
      action: change.action,
      targetType: change.targetType,
      targetId: change.targetId,
      requestId,
      ...(change.details === undefined ? {} : { details: change.details }),
      occurredAt: change.at
    })
  )
