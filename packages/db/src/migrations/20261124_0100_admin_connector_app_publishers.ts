import type { Kysely } from "kysely"
import { runScript } from "../internal/runScript.js"

/**
 * Who registered a connector app through the admin console (issue 11; decisions 2): an app belongs to no
 * organization, but the organization whose operator registered it publishes it — only that organization's operators
 * may add or retire its keys (a key signs assertions for every installation of the app, in every organization).
 * Apps registered otherwise (the demo, a command) have no publisher: their keys are not the console's to change.
 */
export const up = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `
    create table connector_app_publishers (
      app_id text primary key references connector_apps (id),
      organization_id uuid not null references organizations (id),
      created_at timestamptz not null
    );
    create index connector_app_publishers_organization_idx on connector_app_publishers (organization_id);
  `)
}

export const down = async (db: Kysely<unknown>): Promise<void> => {
  await runScript(db, `drop table connector_app_publishers;`)
}
