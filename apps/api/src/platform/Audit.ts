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

/** An entry's values in the order {@link insertOf} places them; the entry gets a random id. */
export const entryValues = (entry: AuditEntry): ReadonlyArray<unknown> => [
  randomUUID(),
  entry.organizationId,
  entry.actorType,
  entry.actorId,
  entry.action,
  entry.targetType,
  entry.targetId,
  entry.requestId,
  JSON.stringify(entry.details ?? {}),
  entry.occurredAt
]

/** How many values {@link entryValues} gives. */
export const ENTRY_VALUES = 10

/**
 * The insert of one entry whose values ({@link entryValues}) are `values` from `from` on: real values, or a prepared
 * statement's stand-ins (`Sql.prepare`). A data-modifying CTE of the change's own statement (`Sql.cte`), or the
 * statement {@link record} runs.
 */
export const insertOf = (values: ReadonlyArray<unknown>, from = 0): RawBuilder<unknown> =>
  sql`
    insert into audit_log (
      id, organization_id, actor_type, actor_id, action, target_type, target_id, request_id, details, occurred_at
    ) values (
      ${values[from]}, ${values[from + 1]}, ${values[from + 2]}, ${values[from + 3]}, ${values[from + 4]},
      ${values[from + 5]}, ${values[from + 6]}, ${values[from + 7]}, ${values[from + 8]}::text::jsonb,
      ${values[from + 9]}
    )`

/** The insert of one entry ({@link insertOf} of its {@link entryValues}). */
const insert = (entry: AuditEntry): RawBuilder<unknown> => insertOf(entryValues(entry))

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

/** The entry of a change made by an actor of `actorType` and `actorId` in `organizationId`, in request `requestId`. */
const entryOf = (
  organizationId: string | null,
  actorType: AuditEntry["actorType"],
  actorId: string,
  requestId: string | null,
  change: Change
): AuditEntry => ({
  organizationId,
  actorType,
  actorId,
  action: change.action,
  targetType: change.targetType,
  targetId: change.targetId,
  requestId,
  ...(change.details === undefined ? {} : { details: change.details }),
  occurredAt: change.at
})

/** The entry {@link byPrincipal} appends for a change made by `principal` (the current request's id read now). */
export const entryByPrincipal = (principal: PrincipalShape, change: Change): Effect.Effect<AuditEntry> =>
  Effect.map(currentRequestId, (requestId) =>
    entryOf(principal.organizationId, "application", principal.subject, requestId, change)
  )

/** Appends an entry for a change made by `principal` (an API caller) with the current request's id. */
export const byPrincipal = (principal: PrincipalShape, change: Change) =>
  Effect.flatMap(entryByPrincipal(principal, change), (entry) => Sql.rows(insert(entry))).pipe(Effect.asVoid)

/** Appends an entry for a change made by `actor` in `organizationId` (null: in no organization). */
export const byActor = (organizationId: string | null, actor: Actor, change: Change) =>
  Effect.flatMap(currentRequestId, (requestId) => record(entryOf(organizationId, actor.type, actor.id, requestId, change)))
