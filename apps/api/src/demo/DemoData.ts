/**
 * Seeds the demo organizations into an empty database at start-up (decisions 1: "the development environment is
 * the same software started with demo data"). What is seeded is described in `DemoCatalog.ts` and
 * the per-capability files it composes.
 *
 * Seeding runs in one transaction under a PostgreSQL advisory transaction lock, so instances that start together
 * against one database seed once: the second waits for the lock, then sees the first one's organizations.
 */
import * as Db from "@propline/db/Db"
import { Data, Effect } from "effect"
import { sql } from "kysely"
import * as Audit from "../platform/Audit.js"
import { BillingOperatorService } from "../billing/BillingOperatorService.js"
import { BillingService } from "../billing/BillingService.js"
import { ApplicationService } from "../identity/ApplicationService.js"
import { demoPlan } from "./DemoCatalog.js"
import { DEMO_APPLICATION_NAME, DEMO_IDS, DEMO_ORGANIZATION_NAME, SECOND_ORGANIZATION_NAME } from "./DemoIds.js"
import { playDemoLife } from "./billing/DemoBillingLife.js"

/** The demo Application of one organization: ids the credentials file and the harness need. */
export interface DemoTenant {
  readonly organizationId: string
  /** The demo Application's id. */
  readonly applicationId: string
  /** Its OAuth client_id. */
  readonly clientId: string
}

/**
 * What {@link seedDemoData} found or made: `seeded` is true when this call seeded; the first organization
 * ("Nordhavn Workspaces AB") and its demo Application; `second`, the small organization ("Fjord Offices AS")
 * the tenant-isolation checks use.
 */
export interface DemoSeed extends DemoTenant {
  readonly seeded: boolean
  readonly second: DemoTenant
}

/**
 * The database holds organizations but not the demo ones (a real deployment started with `DEMO_DATA` on): demo
 * data is only ever seeded into an empty database. Start-up should log `message` and go on without demo data.
 */
export class DemoOrganizationMissing extends Data.TaggedError("DemoOrganizationMissing")<{
  readonly organizationName: string
  readonly message: string
}> {
  constructor(args: { readonly organizationName: string }) {
    super({
      ...args,
      message:
        `The database already holds organizations but not the demo organization "${args.organizationName}"; ` +
        "demo data is seeded only into an empty database (set DEMO_DATA=false to silence this)."
    })
  }
}

/** Key of the advisory lock that serializes seeding across instances ("demo" in ASCII, as a bigint). */
export const DEMO_SEED_LOCK_KEY = 0x64656d6f

const SYSTEM_ACTOR = { type: "system", id: "demo-seed" } as const

/** The roles of the demo Applications: the ERP connector's, the booking website's and the e-signing connector's. */
export const DEMO_APPLICATION_ROLES = ["billing", "booking", "signing"] as const

/** Inserts every row of the plan, table by table in foreign-key order. */
const insertPlan = (plan: ReturnType<typeof demoPlan>) =>
  Effect.gen(function* () {
    yield* Db.query((db) =>
      db
        .insertInto("organizations")
        .values([...plan.organizations])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("operationalContexts")
        .values([...plan.operationalContexts])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("customers")
        .values([...plan.customers])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("billingAccounts")
        .values([...plan.billingAccounts])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("contracts")
        .values([...plan.contracts])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("contractLines")
        .values([...plan.contractLines])
        .execute()
    )
    yield* Db.query((db) => db.insertInto("connectorApps").values([...plan.connectorApps]).execute())
    yield* Db.query((db) => db.insertInto("installations").values([...plan.installations]).execute())
    yield* Db.query((db) => db.insertInto("installationContexts").values([...plan.installationContexts]).execute())
    yield* Db.query((db) => db.insertInto("integrationConfigurations").values([...plan.integrationConfigurations]).execute())
    yield* Db.query((db) =>
      db.insertInto("integrationConfigurationContexts").values([...plan.integrationConfigurationContexts]).execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("invoiceRuns")
        .values([...plan.invoiceRuns])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("invoices")
        .values([...plan.invoices])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("invoiceProposals")
        .values([...plan.invoiceProposals])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("charges")
        .values([...plan.charges])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("documentLines")
        .values([...plan.documentLines])
        .execute()
    )
    yield* Db.query((db) => db.insertInto("bookingResources").values([...plan.bookingResources]).execute())
    yield* Db.query((db) => db.insertInto("bookingPriceRules").values([...plan.bookingPriceRules]).execute())
    yield* Db.query((db) => db.insertInto("bookingAddOnProducts").values([...plan.bookingAddOnProducts]).execute())
    yield* Db.query((db) =>
      db.insertInto("bookingResourceAddOnProducts").values([...plan.bookingResourceAddOnProducts]).execute()
    )
  })

/** Lets a demo Application sell every bookable resource of its organization (kept when already allowed). */
const allowDemoBooking = (tenant: DemoTenant, now: Date) =>
  Db.query((db) =>
    db
      .insertInto("bookingApplicationResources")
      .columns(["applicationId", "resourceId", "createdAt"])
      .expression((eb) =>
        eb
          .selectFrom("bookingResources")
          .select([eb.val(tenant.applicationId).as("applicationId"), "id", eb.val(now).as("createdAt")])
          .where("organizationId", "=", tenant.organizationId)
      )
      .onConflict((oc) => oc.doNothing())
      .execute()
  )

/** The organization's oldest active demo Application, made now (granted its root context) when there is none. */
const demoApplication = (organizationId: string, rootContextId: string) =>
  Effect.gen(function* () {
    const existing = yield* Db.query((db) =>
      db
        .selectFrom("applications")
        .select(["id", "clientId"])
        .where("organizationId", "=", organizationId)
        .where("name", "=", DEMO_APPLICATION_NAME)
        .where("status", "=", "active")
        .orderBy("createdAt")
        .orderBy("id")
        .executeTakeFirst()
    )
    if (existing !== undefined) {
      // A demo Application made before booking and signing existed gets their roles too.
      const roles = sql`${[...DEMO_APPLICATION_ROLES]}::text[]`
      yield* Db.query((db) =>
        db
          .updateTable("applications")
          .set({ roles: sql<Array<string>>`array(select distinct role from unnest(roles || ${roles}) as role order by role)` })
          .where("id", "=", existing.id)
          .where(sql<boolean>`not (roles @> ${roles})`)
          .execute()
      )
    }
    const application =
      existing ??
      (yield* Effect.flatMap(ApplicationService, (applications) =>
        applications.create(
          { organizationId, name: DEMO_APPLICATION_NAME, roles: DEMO_APPLICATION_ROLES, contextIds: [rootContextId] },
          SYSTEM_ACTOR
        )
      ).pipe(Effect.orDie))
    return { organizationId, applicationId: application.id, clientId: application.clientId } satisfies DemoTenant
  })

/** Whether the demo organization with this id and name exists. */
const organizationExists = (id: string, name: string) =>
  Db.query((db) =>
    db.selectFrom("organizations").select("id").where("id", "=", id).where("name", "=", name).executeTakeFirst()
  ).pipe(Effect.map((row) => row !== undefined))

/**
 * Seeds the demo data when the database holds no organization, and returns the demo Applications either way
 * (making a missing demo Application again, e.g. after an operator disabled it). `now` is the seeding time:
 * records are dated before it, the invoice runs bill the calendar months (UTC) before and containing it.
 *
 * Fails with {@link DemoOrganizationMissing} when the database holds other organizations but not the demo ones;
 * database failures are defects.
 */
export const seedDemoData = (now: Date): Effect.Effect<DemoSeed, DemoOrganizationMissing, Db.Db> =>
  Db.transaction(
    Effect.gen(function* () {
      yield* Db.query((db) => sql`select pg_advisory_xact_lock(${sql.lit(DEMO_SEED_LOCK_KEY)})`.execute(db))
      const organizations = yield* Db.query((db) =>
        db
          .selectFrom("organizations")
          .select((eb) => eb.fn.countAll<number>().as("count"))
          .executeTakeFirstOrThrow()
      )
      const seeded = Number(organizations.count) === 0
      if (seeded) {
        const plan = demoPlan(now)
        yield* insertPlan(plan)
        yield* Audit.record({
          organizationId: DEMO_IDS.organization,
          actorType: SYSTEM_ACTOR.type,
          actorId: SYSTEM_ACTOR.id,
          action: "demo.seeded",
          targetType: "organization",
          targetId: DEMO_IDS.organization,
          requestId: null,
          details: {
            secondOrganizationId: DEMO_IDS.secondOrganization,
            invoices: plan.invoices.length,
            proposals: plan.invoiceProposals.length,
            creditNoteId: DEMO_IDS.creditNote,
            creditReason: plan.creditReason,
            doubleBilledProposalId: DEMO_IDS.doubleBilledProposal
          },
          occurredAt: now
        })
      } else {
        for (const [id, name] of [
          [DEMO_IDS.organization, DEMO_ORGANIZATION_NAME],
          [DEMO_IDS.secondOrganization, SECOND_ORGANIZATION_NAME]
        ] as const) {
          if (!(yield* organizationExists(id, name))) {
            return yield* new DemoOrganizationMissing({ organizationName: name })
          }
        }
      }
      const first = yield* demoApplication(DEMO_IDS.organization, DEMO_IDS.rootContext)
      const second = yield* demoApplication(DEMO_IDS.secondOrganization, DEMO_IDS.secondRootContext)
      yield* allowDemoBooking(first, now)
      if (seeded) {
        yield* playDemoLife(first, now).pipe(
          Effect.provide(BillingService.Default),
          Effect.provide(BillingOperatorService.Default)
        )
      }
      return { seeded, ...first, second } satisfies DemoSeed
    })
  ).pipe(
    Effect.catchTag("SqlError", Effect.die),
    Effect.provide(ApplicationService.Default),
    Effect.withSpan("DemoData.seedDemoData")
  )
