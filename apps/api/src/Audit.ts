/**
 * The audit log (decisions 4): every change is written with who, what, when and the request id, in the
 * transaction of the change.
 */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"

export interface AuditEntry {
  readonly organizationId: string | null
  readonly actorType: "application" | "installation" | "operator" | "system"
  readonly actorId: string
  /** What happened, e.g. `billing.invoice_proposal.pass`. */
  readonly action: string
  readonly targetType: string
  readonly targetId: string
  readonly requestId: string | null
  readonly details?: Record<string, unknown>
  readonly occurredAt: Date
}

/** Appends one entry; a failure is a defect (the surrounding transaction rolls back). */
export const record = (entry: AuditEntry) =>
  Db.query((db) =>
    db
      .insertInto("auditLog")
      .values({ id: randomUUID(), ...entry, details: entry.details ?? {} })
      .execute()
  ).pipe(Effect.orDie, Effect.asVoid)
