import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Pre-published signing keys (issue 23, item 7): a rotated-in key is stored with the instant it starts signing,
 * some seconds ahead, so every instance's JWKS lists it before any instance signs with it. `null` (every key before
 * this migration, and the first key of a database): it signs from its `created_at`.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `alter table signing_keys add column activates_at timestamptz;`)
}

/** A key still waiting for its activation becomes active at once (as rotations were before). */
export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `alter table signing_keys drop column activates_at;`)
}
