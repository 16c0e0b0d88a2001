/**
 * SQL of operators (identity owns the `operators` table: an operator is an identity, as an Application is): the admin
 * host signs operators in and keeps their sessions through {@link OperatorRepository} and {@link activeOperators};
 * other capabilities' read models show or count operators through {@link operatorEmailOf} and
 * {@link operatorCountOf}.
 */
import type { Database } from "@propline/db/Database"
import { Effect } from "effect"
import { type Kysely, type RawBuilder, sql } from "kysely"
import * as Sql from "../platform/Sql.js"

/**
 * The statement of the active operators (`id`, `organizationId`, `email`, `name`): what the admin host joins a live
 * session to, in its own statement.
 */
export const activeOperators = (db: Kysely<Database>) =>
  db.selectFrom("operators").select(["id", "organizationId", "email", "name"]).where("status", "=", "active")

/**
 * The e-mail address of the operator whose id `column` holds as text (a snake_case `table.column`, such as the audit
 * log's actor id; null when no operator has it), as a scalar subquery.
 */
export const operatorEmailOf = (column: string): RawBuilder<string | null> =>
  sql`(select email from operators where id::text = ${sql.ref(column)})`

/** How many operators the organization has, as a scalar subquery (the console's organization page). */
export const operatorCountOf = (organizationId: string): RawBuilder<number> =>
  sql`(select count(*) from operators where organization_id = ${organizationId})`

export class OperatorRepository extends Effect.Service<OperatorRepository>()("@propline/api/identity/OperatorRepository", {
  succeed: {
    /** The operator with this (lower-cased) e-mail address, or undefined. */
    findByEmail: (email: string) =>
      Sql.query((db) =>
        db
          .selectFrom("operators")
          .select(["id", "organizationId", "email", "name", "passwordHash", "status"])
          .where("email", "=", email)
          .executeTakeFirst()
      )
  }
}) {}
