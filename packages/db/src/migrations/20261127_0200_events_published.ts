import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Events published (issue 22). The outbox rows of `events` (decisions 9) are published by the worker: it claims
 * unpublished rows (`published_at is null`, oldest first, `for update skip locked`), renders each one's envelope
 * (the JSON body the events feed serves and webhooks deliver) and stamps `published_at`, with the event's
 * operational context and installation beside it for scoping. `delivered_at`, never written, gives way to
 * `published_at`. The feed pages an organization's published events by (`published_at`, `id`); retention deletes
 * those published more than 30 days ago.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop index events_undelivered_idx;
    alter table events drop column delivered_at;
    alter table events add column published_at timestamptz;
    alter table events add column operational_context_id uuid;
    alter table events add column installation_id uuid;
    alter table events add column envelope jsonb;
    alter table events add constraint events_published_envelope
      check ((published_at is null) = (envelope is null));

    create index events_unpublished_idx on events (occurred_at, id) where published_at is null;
    create index events_feed_idx on events (organization_id, published_at, id) where published_at is not null;
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    drop index events_feed_idx;
    drop index events_unpublished_idx;
    alter table events drop constraint events_published_envelope;
    alter table events drop column envelope;
    alter table events drop column installation_id;
    alter table events drop column operational_context_id;
    alter table events drop column published_at;
    alter table events add column delivered_at timestamptz;
    create index events_undelivered_idx on events (occurred_at) where delivered_at is null;
  `)
}
