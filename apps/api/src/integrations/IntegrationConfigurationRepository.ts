/**
 * SQL of integration configurations (spec 4.2 "Integrations"; decisions 8): a configuration with its operational
 * contexts, and the digests of its connection references. Rows map to `@propline/integrations`' records (null
 * columns become absent fields). A configuration's context rows carry `filled`, true exactly while it is ready: the
 * partial unique key {@link POINTS_FILLED_KEY} lets one ready configuration of a kind fill a context, so of two
 * concurrent `ready` reports for one point the second fails when it writes.
 */
import type { ConnectionReferenceRecord } from "@propline/integrations/ConnectionReference"
import type {
  ConfigurationStatus,
  IntegrationConfigurationRecord,
  IntegrationKind
} from "@propline/integrations/IntegrationConfiguration"
import type { Database, IntegrationConfigurationTable, IntegrationConnectionReferenceTable } from "@propline/db/Database"
import { Effect } from "effect"
import { type ExpressionBuilder, type Kysely, type RawBuilder, type Selectable, sql } from "kysely"
import { connectorAppNameOf, connectorAppSetupUrlOf } from "../identity/ConnectorAppRepository.js"
import { installationStatusOf } from "../identity/InstallationRepository.js"
import * as CursorPage from "../platform/CursorPage.js"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

/** The partial unique key on (kind, context) among the context rows of ready configurations. */
export const POINTS_FILLED_KEY = "integration_points_filled_key"

/**
 * The declared gates of the organization's ready `billing` configurations, together, as a scalar subquery for
 * another capability's plain statement (billing's scope, one statement on its hot paths): null when there is none
 * (billing is not configured; one still `pending`, `connecting` or `failed`, or a disconnected one, does not count),
 * else the distinct gates (`{}` when they declared none). integrations owns the table; billing composes this
 * fragment instead of reading it (`billing/BillingScopeRepository.ts`). `tooling/scripts`' bench baseline mirrors
 * the statement (`BaselineBilling.ts`): change them together.
 */
export const readyBillingGates = (organizationId: string): RawBuilder<ReadonlyArray<string> | null> =>
  sql`(select case when count(*) = 0 then null
               else coalesce(array_agg(distinct gate) filter (where gate is not null), '{}'::text[]) end
        from integration_configurations as c left join lateral unnest(c.declared_gates) as gate on true
        where c.organization_id = ${organizationId} and c.kind = 'billing' and c.status = 'ready')`

type ConfigurationRow = Selectable<IntegrationConfigurationTable> & { readonly operationalContextIds: Array<string> }

/** The configuration's context ids, sorted, as `operationalContextIds` (one round trip with the configuration). */
const contextIds = (eb: ExpressionBuilder<Database, "integrationConfigurations">) =>
  eb
    .fn<Array<string>>("array", [
      eb
        .selectFrom("integrationConfigurationContexts as x")
        .select(sql<string>`x.operational_context_id::text`.as("id"))
        .whereRef("x.configurationId", "=", "integrationConfigurations.id")
        .orderBy("x.operationalContextId")
    ])
    .as("operationalContextIds")

const toRecord = (row: ConfigurationRow): IntegrationConfigurationRecord => {
  const {
    externalAccountId,
    externalAccountName,
    installationId,
    appId,
    settings,
    ...fields
  } = row
  return {
    ...withoutNulls(fields),
    ...(installationId === null || appId === null ? {} : { installationId, appId }),
    ...(externalAccountId === null || externalAccountName === null
      ? {}
      : { externalAccount: { id: externalAccountId, name: externalAccountName } }),
    ...(settings === null ? {} : { settings })
  }
}

const toReference = (row: Selectable<IntegrationConnectionReferenceTable>): ConnectionReferenceRecord =>
  withoutNulls(row)

/** The columns a transition writes. */
const changedColumns = (configuration: IntegrationConfigurationRecord) => ({
  status: configuration.status,
  externalAccountId: nullable(configuration.externalAccount?.id),
  externalAccountName: nullable(configuration.externalAccount?.name),
  declaredGates: [...configuration.declaredGates],
  settings: configuration.settings === undefined ? null : JSON.stringify(configuration.settings),
  failureReason: nullable(configuration.failureReason),
  connectedAt: nullable(configuration.connectedAt),
  readyAt: nullable(configuration.readyAt),
  failedAt: nullable(configuration.failedAt),
  disconnectedAt: nullable(configuration.disconnectedAt),
  updatedAt: configuration.updatedAt
})

const selectConfigurations = (db: Kysely<Database>) =>
  db.selectFrom("integrationConfigurations").selectAll("integrationConfigurations").select(contextIds)

/** The filters of an operator's list; each absent means any. */
export interface OrganizationFilter {
  readonly kind: IntegrationKind | undefined
  readonly status: ConfigurationStatus | undefined
  /** A UUID. */
  readonly installationId: string | undefined
}

/**
 * A configuration as an operator sees it: the record, its connector app's name and setup URL, and its
 * installation's status (each absent on a configuration carried over from the former billing integration).
 */
export interface OperatorConfigurationView {
  readonly configuration: IntegrationConfigurationRecord
  readonly appName: string | undefined
  readonly setupUrl: string | undefined
  readonly installationStatus: "active" | "suspended" | "removed" | undefined
}

/**
 * The configurations with their installation's status and their app's name and setup URL, which identity writes
 * (it owns those tables).
 */
const withInstallationAndApp = (query: ReturnType<typeof selectConfigurations>) =>
  query.select([
    installationStatusOf("integration_configurations.installation_id").as("installationStatus"),
    connectorAppNameOf("integration_configurations.app_id").as("appName"),
    connectorAppSetupUrlOf("integration_configurations.app_id").as("setupUrl")
  ])

/** The configuration with this id in the organization, with its installation and app. */
const oneOfOrganization = (db: Kysely<Database>, organizationId: string, id: string) =>
  withInstallationAndApp(selectConfigurations(db))
    .where("integrationConfigurations.id", "=", id)
    .where("integrationConfigurations.organizationId", "=", organizationId)

const toOperatorView = ({
  installationStatus,
  appName,
  setupUrl,
  ...row
}: ConfigurationRow & {
  readonly installationStatus: "active" | "suspended" | "removed" | null
  readonly appName: string | null
  readonly setupUrl: string | null
}): OperatorConfigurationView => ({
  configuration: toRecord(row),
  appName: appName ?? undefined,
  setupUrl: setupUrl ?? undefined,
  installationStatus: installationStatus ?? undefined
})

export class IntegrationConfigurationRepository extends Effect.Service<IntegrationConfigurationRepository>()(
  "@propline/api/integrations/IntegrationConfigurationRepository",
  {
    succeed: {
      /** Inserts a new configuration and its context rows (not filled: a new configuration is `pending`). */
      insert: (configuration: IntegrationConfigurationRecord) =>
        Effect.gen(function* () {
          yield* Sql.query((db) =>
            db
              .insertInto("integrationConfigurations")
              .values({
                id: configuration.id,
                organizationId: configuration.organizationId,
                installationId: nullable(configuration.installationId),
                appId: nullable(configuration.appId),
                kind: configuration.kind,
                createdAt: configuration.createdAt,
                ...changedColumns(configuration)
              })
              .execute()
          )
          yield* Sql.query((db) =>
            db
              .insertInto("integrationConfigurationContexts")
              .values(
                configuration.operationalContextIds.map((operationalContextId) => ({
                  configurationId: configuration.id,
                  kind: configuration.kind,
                  operationalContextId,
                  filled: configuration.status === "ready"
                }))
              )
              .execute()
          )
        }),

      /**
       * Writes a configuration's new state, and fills its points exactly while it is ready. When another
       * configuration of the kind filled one of them first (a race the unique key settles), fails with
       * `onPointFilled()`; without it (a change that can't fill a point) that is a defect.
       */
      update: <E = never>(configuration: IntegrationConfigurationRecord, onPointFilled?: () => E) =>
        Effect.gen(function* () {
          yield* Sql.query((db) =>
            db
              .updateTable("integrationConfigurations")
              .set(changedColumns(configuration))
              .where("id", "=", configuration.id)
              .execute()
          )
          const filled = configuration.status === "ready"
          const fill = (db: Kysely<Database>) =>
            db
              .updateTable("integrationConfigurationContexts")
              .set({ filled })
              .where("configurationId", "=", configuration.id)
              .where("filled", "<>", filled)
              .execute()
          yield* onPointFilled === undefined ? Sql.query(fill) : Sql.catchUniqueViolation(fill, POINTS_FILLED_KEY, onPointFilled)
        }),

      /** The configuration with this id among the installation's, locked for the transaction; `id` is a UUID. */
      lockOfInstallation: (installationId: string, id: string) =>
        Sql.query((db) =>
          selectConfigurations(db)
            .where("integrationConfigurations.id", "=", id)
            .where("integrationConfigurations.installationId", "=", installationId)
            .forUpdate()
            .executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toRecord(row)))),

      /**
       * The configuration with this id in the organization, locked, with its installation's status and its app's
       * name and setup URL (absent for a carried-over configuration); `id` is a UUID.
       */
      lockInOrganization: (organizationId: string, id: string) =>
        Sql.query((db) =>
          oneOfOrganization(db, organizationId, id).forUpdate("integrationConfigurations").executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toOperatorView(row)))),

      /** The installation's configurations that are not disconnected, locked, oldest first. */
      lockLiveOfInstallation: (installationId: string) =>
        Sql.query((db) =>
          selectConfigurations(db)
            .where("integrationConfigurations.installationId", "=", installationId)
            .where("integrationConfigurations.status", "<>", "disconnected")
            .orderBy("integrationConfigurations.createdAt")
            .orderBy("integrationConfigurations.id")
            .forUpdate()
            .execute()
        ).pipe(Effect.map((rows) => rows.map(toRecord))),

      /** Every configuration of the installation, oldest first (what an operator's list shows). */
      ofInstallation: (organizationId: string, installationId: string) =>
        Sql.query((db) =>
          selectConfigurations(db)
            .where("integrationConfigurations.organizationId", "=", organizationId)
            .where("integrationConfigurations.installationId", "=", installationId)
            .orderBy("integrationConfigurations.createdAt")
            .orderBy("integrationConfigurations.id")
            .execute()
        ).pipe(Effect.map((rows) => rows.map(toRecord))),

      /** One page of the installation's configurations in (createdAt, id) order after `after`; `limit + 1` rows. */
      pageOfInstallation: (installationId: string, after: CursorPage.Position | undefined, limit: number) =>
        Sql.query(async (db) => {
          let query = selectConfigurations(db)
            .select(CursorPage.sortKey("integrationConfigurations.createdAt").as("cursorAt"))
            .where("integrationConfigurations.installationId", "=", installationId)
          if (after !== undefined) {
            query = query.where(CursorPage.after("integrationConfigurations.createdAt", "integrationConfigurations.id", after))
          }
          return query
            .orderBy("integrationConfigurations.createdAt")
            .orderBy("integrationConfigurations.id")
            .limit(limit + 1)
            .execute()
        }).pipe(
          Effect.map((rows) =>
            rows.map(({ cursorAt, ...row }) => ({ record: toRecord(row), position: { at: cursorAt, id: row.id } }))
          )
        ),

      /**
       * One page of the organization's configurations, newest first (`createdAt desc, id desc`) after `after`,
       * filtered by kind, status and installation; `limit + 1` rows, each with its app's name and its
       * installation's status (absent on a carried-over configuration). An organization has a handful of them, so
       * the organization's rows are read through the primary key's table without an index of their own.
       */
      pageOfOrganization: (
        organizationId: string,
        filter: OrganizationFilter,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        Sql.query((db) => {
          let query = withInstallationAndApp(selectConfigurations(db))
            .select(CursorPage.sortKey("integrationConfigurations.createdAt").as("cursorAt"))
            .where("integrationConfigurations.organizationId", "=", organizationId)
          if (filter.kind !== undefined) query = query.where("integrationConfigurations.kind", "=", filter.kind)
          if (filter.status !== undefined) query = query.where("integrationConfigurations.status", "=", filter.status)
          if (filter.installationId !== undefined) {
            query = query.where("integrationConfigurations.installationId", "=", filter.installationId)
          }
          if (after !== undefined) {
            query = query.where(CursorPage.before("integrationConfigurations.createdAt", "integrationConfigurations.id", after))
          }
          return query
            .orderBy("integrationConfigurations.createdAt", "desc")
            .orderBy("integrationConfigurations.id", "desc")
            .limit(limit + 1)
            .execute()
        }).pipe(
          Effect.map((rows) =>
            rows.map(({ cursorAt, ...row }) => ({ record: toOperatorView(row), position: { at: cursorAt, id: row.id } }))
          )
        ),

      /** The configuration with this id in the organization (not locked), with its app and installation; `id` is a UUID. */
      inOrganization: (organizationId: string, id: string) =>
        Sql.query((db) =>
          oneOfOrganization(db, organizationId, id).executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toOperatorView(row)))),

      /** Of `contextIds`, those another configuration of `kind` fills (is ready in). */
      filledElsewhere: (configurationId: string, kind: IntegrationKind, contextIds: ReadonlyArray<string>) =>
        contextIds.length === 0
          ? Effect.succeed([])
          : Sql.query((db) =>
              db
                .selectFrom("integrationConfigurationContexts")
                .select("operationalContextId")
                .where("kind", "=", kind)
                .where("filled", "=", true)
                .where("operationalContextId", "in", contextIds)
                .where("configurationId", "<>", configurationId)
                .orderBy("operationalContextId")
                .execute()
            ).pipe(Effect.map((rows) => rows.map((row) => row.operationalContextId))),

      /** Stores a connection reference (its digest). */
      insertReference: (reference: ConnectionReferenceRecord) =>
        Sql.query((db) =>
          db
            .insertInto("integrationConnectionReferences")
            .values({
              ...reference,
              redeemedAt: nullable(reference.redeemedAt),
              voidedAt: nullable(reference.voidedAt)
            })
            .execute()
        ),

      /**
       * The reference with this digest and its configuration, both locked for the transaction — the configuration
       * first, as every other change of it locks it, so two transactions never wait on each other — and the
       * reference read again under its lock: of concurrent redeems of one reference the first redeems it and the
       * others find it redeemed. Undefined when no reference has the digest.
       */
      lockReference: (digest: string) =>
        Effect.gen(function* () {
          const issued = yield* Sql.query((db) =>
            db
              .selectFrom("integrationConnectionReferences")
              .select("configurationId")
              .where("digest", "=", digest)
              .executeTakeFirst()
          )
          if (issued === undefined) return undefined
          const configuration = yield* Sql.query((db) =>
            selectConfigurations(db)
              .where("integrationConfigurations.id", "=", issued.configurationId)
              .forUpdate()
              .executeTakeFirstOrThrow()
          )
          const reference = yield* Sql.query((db) =>
            db
              .selectFrom("integrationConnectionReferences")
              .selectAll()
              .where("digest", "=", digest)
              .forUpdate()
              .executeTakeFirstOrThrow()
          )
          return { reference: toReference(reference), configuration: toRecord(configuration) }
        }),

      /** Marks a reference redeemed. */
      markRedeemed: (reference: ConnectionReferenceRecord) =>
        Sql.query((db) =>
          db
            .updateTable("integrationConnectionReferences")
            .set({ redeemedAt: nullable(reference.redeemedAt) })
            .where("digest", "=", reference.digest)
            .execute()
        ),

      /** Voids the configuration's references that still work (neither redeemed nor voided), at `at`. */
      voidOutstanding: (configurationId: string, at: Date) =>
        Sql.query((db) =>
          db
            .updateTable("integrationConnectionReferences")
            .set({ voidedAt: at })
            .where("configurationId", "=", configurationId)
            .where("redeemedAt", "is", null)
            .where("voidedAt", "is", null)
            .execute()
        )
    }
  }
) {}
