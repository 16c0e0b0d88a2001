/**
 * The console's organization page over the admin API, black box, on PGlite and PostgreSQL: the operator's
 * organization, its context tree and how many customers, contracts, Applications and operators it holds (other
 * capabilities' records, counted through their owners' statements), none of another organization's.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, type Session } from "../support/AdminClient.js"
import { type AdminConsole, startAdminConsole } from "../support/AdminConsole.js"
import type * as Fixtures from "../support/Fixtures.js"
import type { TestApp } from "../support/TestApp.js"

/** The organization's rows of each counted table, read directly. */
const storedCounts = (organizationId: string) =>
  Db.query((db) =>
    Promise.all(
      (["customers", "contracts", "applications", "operators"] as const).map(async (table) => {
        const row = await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).executeTakeFirstOrThrow()
        return [table, Number(row.n)] as const
      })
    )
  ).pipe(Effect.orDie, Effect.map(Object.fromEntries))

describe.each(TestDatabase.kinds())("the console's organization page on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let session: Session
  let url: AdminConsole["url"]
  let createApplication: AdminConsole["createApplication"]

  beforeAll(async () => {
    ;({ app, org, other, session, url, createApplication } = await startAdminConsole(kind))
  })
  afterAll(async () => {
    await app?.dispose()
  })

  it("shows the operator's organization, its contexts and its own record counts", async () => {
    const page = await adminCall(url("/api/organization"), session, { csrf: false })
    expect(page.status).toBe(200)
    expect(page.body.organization).toMatchObject({ id: org.organizationId, name: "Nordhavn" })
    expect(page.body.contexts.map((context: { id: string }) => context.id)).toEqual(
      expect.arrayContaining([org.rootId, org.regionId, org.propertyId, org.otherPropertyId])
    )
    expect(page.body.contexts.map((context: { id: string }) => context.id)).not.toContain(other.rootId)
    const stored = await app.run(storedCounts(org.organizationId))
    expect(page.body.counts).toEqual(stored)
    // The fixtures' customer and contract, the signed-in operator; Fjord's Application and operator are not counted.
    expect(page.body.counts).toMatchObject({ customers: 1, contracts: 1, applications: 0, operators: 1 })
  })

  it("counts an Application as soon as it is created", async () => {
    const before = (await adminCall(url("/api/organization"), session, { csrf: false })).body.counts
    expect((await createApplication({ name: "Counted", roles: ["billing"], contextIds: [org.rootId] })).status).toBe(201)
    const after = (await adminCall(url("/api/organization"), session, { csrf: false })).body.counts
    expect(after).toEqual({ ...before, applications: before.applications + 1 })
  })
})
