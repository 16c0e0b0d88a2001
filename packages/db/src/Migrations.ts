/**
 * The schema's migrations, named by timestamp and listed explicitly (kysely's recommendation over reading a
 * folder, so a bundle or a published package carries them). Run at start-up by {@link migrateToLatest}.
 */
import type { Kysely } from "kysely"
import { type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from "kysely/migration"
import * as initial from "./migrations/20261122_0001_initial.js"
import * as keysetIndexes from "./migrations/20261123_0050_keyset_indexes.js"
import * as billingSettlement from "./migrations/20261123_0100_billing_settlement.js"
import * as identityInstallations from "./migrations/20261123_0200_identity_installations.js"
import * as signing from "./migrations/20261123_0300_signing.js"
import * as booking from "./migrations/20261123_0400_booking.js"
import * as adminOperators from "./migrations/20261123_0500_admin_operators.js"
import * as adminConnectorAppPublishers from "./migrations/20261124_0100_admin_connector_app_publishers.js"
import * as integrations from "./migrations/20261124_0200_integrations.js"
import * as adminSignInPairs from "./migrations/20261126_0600_admin_sign_in_pairs.js"
import * as keysSealedAtRest from "./migrations/20261126_0700_keys_sealed_at_rest.js"
import * as eventsPublished from "./migrations/20261127_0200_events_published.js"
import * as webhooks from "./migrations/20261127_0300_webhooks.js"
import * as signingKeyActivation from "./migrations/20261127_0400_signing_key_activation.js"
import * as operatorTeam from "./migrations/20261128_0400_operator_team.js"
import * as bookingRequestLists from "./migrations/20261128_0500_booking_request_lists.js"
import * as bookingChanges from "./migrations/20261128_0510_booking_changes.js"

/** Every migration by name, in order (tests migrate to one of them). */
export const migrations: Record<string, Migration> = {
  "20261122_0001_initial": initial,
  "20261123_0050_keyset_indexes": keysetIndexes,
  "20261123_0100_billing_settlement": billingSettlement,
  "20261123_0200_identity_installations": identityInstallations,
  "20261123_0300_signing": signing,
  "20261123_0400_booking": booking,
  "20261123_0500_admin_operators": adminOperators,
  "20261124_0100_admin_connector_app_publishers": adminConnectorAppPublishers,
  "20261124_0200_integrations": integrations,
  "20261126_0600_admin_sign_in_pairs": adminSignInPairs,
  "20261126_0700_keys_sealed_at_rest": keysSealedAtRest,
  "20261127_0200_events_published": eventsPublished,
  "20261127_0300_webhooks": webhooks,
  "20261127_0400_signing_key_activation": signingKeyActivation,
  "20261128_0400_operator_team": operatorTeam,
  "20261128_0500_booking_request_lists": bookingRequestLists,
  "20261128_0510_booking_changes": bookingChanges
}

const provider: MigrationProvider = { getMigrations: async () => migrations }

/**
 * The names of the migrations this build knows that the database has not run (in order); empty when the schema is
 * current. One read of kysely's migration table; a readiness probe asks it (an instance started on a database an
 * older build migrated, or one whose migration failed, is not ready).
 */
export const pendingMigrations = async (db: Kysely<unknown>): Promise<ReadonlyArray<string>> => {
  const known = await new Migrator({ db, provider }).getMigrations()
  return known.filter((migration) => migration.executedAt === undefined).map((migration) => migration.name)
}

/** Brings the database to the newest schema; throws with the failing migration's error. */
export const migrateToLatest = async (db: Kysely<unknown>): Promise<MigrationResultSet> => {
  const migrator = new Migrator({ db, provider })
  const result = await migrator.migrateToLatest()
  if (result.error !== undefined) {
    const failed = result.results?.find((r) => r.status === "Error")
    throw new Error(`migration ${failed?.migrationName ?? "?"} failed`, { cause: result.error })
  }
  return result
}
