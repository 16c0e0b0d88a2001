import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * An Application's own booking requests (issue 26, item 2): `GET /v1/booking/booking-requests` lists them oldest
 * first by `(created_at, id)`, so the index is the list's keyset order under the Application.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create index booking_requests_application_idx on booking_requests (application_id, created_at, id);
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `drop index booking_requests_application_idx;`)
}
