import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Indexes for the queues' keyset pages when a token sees only part of its organization. The queues read
 * `operational_context_id in (visible contexts)` in (time, id) order after a cursor, as a row-value comparison
 * `(approved_at, id) > ($t, $id)`; the organization-wide indexes of the initial migration serve a token that sees
 * most of the organization, but for one granted a single building they walk (and discard) every other context's
 * rows before the page. These partial indexes hold only the rows in each queue (approved invoices, proposed
 * proposals), by context and then in the queue's order, so the planner can read the page of a few contexts
 * directly: measured at 1M approved invoices, a building with 500 of them went from 474 ms to 0.14 ms a page.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create index invoices_send_queue_context_idx on invoices (operational_context_id, approved_at, id)
      where status = 'approved';
    create index invoice_proposals_queue_context_idx on invoice_proposals (operational_context_id, created_at, id)
      where status = 'proposed';
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop index invoice_proposals_queue_context_idx;
    drop index invoices_send_queue_context_idx;
  `)
}
