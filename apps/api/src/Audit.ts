/**
 * The audit log (decisions 4): every change is written with who, what, when and the request id, in the
 * transaction of the change.
 */
import type { AuditLogTable } from "@propline/db/Database"
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"

/** One entry: the `audit_log` row without its id; `details` defaults to `{}`. */
export type AuditEntry = Omit<AuditLogTable, "id" | "details"> & { readonly details?: Record<string, unknown> }

/** Appends one entry; a failure is a defect (the surrounding transaction rolls back). */
export const record = (entry: AuditEntry) =>
  Db.query((db) =>
    db
      .insertInto("auditLog")
      .values({ id: randomUUID(), ...entry, details: entry.details ?? {} })
      .execute()
  ).pipe(Effect.orDie, Effect.asVoid)
