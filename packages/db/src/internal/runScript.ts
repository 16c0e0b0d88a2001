import { type Kysely, sql } from "kysely"

/**
 * Runs a migration script statement by statement: PGlite's extended protocol takes one statement per query.
 * Statements end with `;` at the end of a line; scripts must not contain such a line inside a string literal.
 */
export const runScript = async (db: Kysely<unknown>, script: string): Promise<void> => {
  const statements = script
    .split(/;\s*$/m)
    .map((statement) => statement.trim())
    .filter((statement) => statement.length > 0)
  for (const statement of statements) {
    await sql.raw(statement).execute(db)
  }
}
