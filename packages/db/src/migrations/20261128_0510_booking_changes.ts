import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Cancelling and rescheduling booking requests (issue 26, item 1):
 *
 * - a resource's cancellation terms: `cancellation_notice_minutes` (null reads 0) and
 *   `late_cancellation_charge_basis_points` (null: a late cancellation is refused);
 * - a request may be `cancelled` (the exclusion constraint only keeps `pending` and `approved` apart, so its slot is
 *   free at once), with who cancelled, why and the late-cancellation charge (jsonb, as the API shows it), and the
 *   time of its last reschedule;
 * - `booking_request_changes`: the caller's own ids of cancellations and reschedules, unique per Application, with
 *   the body's fingerprint, so a repeat answers the current request and another body is refused.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    alter table booking_resources
      add column cancellation_notice_minutes integer check (cancellation_notice_minutes >= 0),
      add column late_cancellation_charge_basis_points integer
        check (late_cancellation_charge_basis_points between 0 and 10000);

    alter table booking_requests drop constraint booking_requests_status_check;
    alter table booking_requests
      add constraint booking_requests_status_check
        check (status in ('pending', 'approved', 'declined', 'expired', 'cancelled')),
      add column cancelled_at timestamptz,
      add column cancelled_by text check (cancelled_by in ('application', 'operator')),
      add column cancellation_reason text,
      add column late_cancellation jsonb,
      add column rescheduled_at timestamptz;

    create table booking_request_changes (
      application_id uuid not null references applications (id),
      change_id text not null,
      booking_id uuid not null references booking_requests (id),
      kind text not null check (kind in ('cancel', 'reschedule')),
      fingerprint text not null,
      created_at timestamptz not null,
      constraint booking_request_changes_pkey primary key (application_id, change_id)
    );
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop table booking_request_changes;
    delete from booking_requests where status = 'cancelled';
    alter table booking_requests drop constraint booking_requests_status_check;
    alter table booking_requests
      add constraint booking_requests_status_check check (status in ('pending', 'approved', 'declined', 'expired')),
      drop column cancelled_at,
      drop column cancelled_by,
      drop column cancellation_reason,
      drop column late_cancellation,
      drop column rescheduled_at;
    alter table booking_resources
      drop column cancellation_notice_minutes,
      drop column late_cancellation_charge_basis_points;
  `)
}
