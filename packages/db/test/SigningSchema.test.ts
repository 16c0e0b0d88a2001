import { describe, expect, it } from "@effect/vitest"
import { Effect, ManagedRuntime } from "effect"
import type { Kysely } from "kysely"
import { Migrator } from "kysely/migration"
import { afterAll, beforeAll } from "vitest"
import * as Db from "../src/Db.js"
import * as TestDatabase from "../src/TestDatabase.js"
import * as initial from "../src/migrations/20261122_0001_initial.js"
import * as signing from "../src/migrations/20261123_0300_signing.js"

const now = new Date("2026-11-23T03:00:00.000Z")
const ORG = "10000000-0000-4000-8000-000000000001"
const CONTEXT = "10000000-0000-4000-8000-000000000002"
const CUSTOMER = "10000000-0000-4000-8000-000000000003"
const ACCOUNT = "10000000-0000-4000-8000-000000000004"
const CONTRACT = "10000000-0000-4000-8000-000000000005"
const DOCUMENT = "10000000-0000-4000-8000-000000000006"
const DIGEST = "a".repeat(64)

const seed = Db.query(async (db) => {
  await db
    .insertInto("organizations")
    .values({ id: ORG, name: "Org", country: "SE", createdAt: now, updatedAt: now })
    .execute()
  await db
    .insertInto("operationalContexts")
    .values({
      id: CONTEXT,
      organizationId: ORG,
      parentId: null,
      kind: "organization",
      name: "Org",
      createdAt: now,
      updatedAt: now
    })
    .execute()
  await db
    .insertInto("customers")
    .values({
      id: CUSTOMER,
      organizationId: ORG,
      customerNumber: "C1",
      name: "Customer AB",
      kind: "company",
      country: "SE",
      organisationNumber: null,
      createdAt: now,
      updatedAt: now
    })
    .execute()
  await db
    .insertInto("billingAccounts")
    .values({
      id: ACCOUNT,
      organizationId: ORG,
      customerId: CUSTOMER,
      name: "Main",
      email: null,
      addressLine: null,
      postalCode: null,
      city: null,
      country: "SE",
      createdAt: now,
      updatedAt: now
    })
    .execute()
  await db
    .insertInto("contracts")
    .values({
      id: CONTRACT,
      organizationId: ORG,
      operationalContextId: CONTEXT,
      customerId: CUSTOMER,
      billingAccountId: ACCOUNT,
      contractNumber: "K-1",
      currency: "SEK",
      paymentTermsDays: 30,
      startsOn: "2026-12-01",
      endsOn: null,
      status: "active",
      createdAt: now,
      updatedAt: now
    })
    .execute()
  await db
    .insertInto("signingDocuments")
    .values({
      id: DOCUMENT,
      organizationId: ORG,
      kind: "contract",
      storageKey: "contracts/k-1.pdf",
      fileName: "K-1.pdf",
      contentType: "application/pdf",
      sizeBytes: 10,
      sha256: DIGEST,
      createdAt: now
    })
    .execute()
})

const queuedAttempt = (id: string) =>
  Db.query((db) =>
    db
      .insertInto("signingAttempts")
      .values({
        id,
        organizationId: ORG,
        operationalContextId: CONTEXT,
        contractId: CONTRACT,
        status: "queued",
        title: "K-1",
        documentId: DOCUMENT,
        providerDocumentId: null,
        withdrawalRequestedAt: null,
        declinedByPartyId: null,
        declineReason: null,
        failureReason: null,
        signedDocumentUploadId: null,
        queuedAt: now,
        startedAt: null,
        signedAt: null,
        declinedAt: null,
        expiredAt: null,
        failedAt: null,
        withdrawnAt: null,
        updatedAt: now
      })
      .execute()
  )

describe.each(TestDatabase.kinds())("signing schema on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    managed = ManagedRuntime.make(Db.layer(database.config))
    await run(seed)
  })
  afterAll(async () => {
    await managed.dispose()
    await database.drop()
  })

  it("starts every contract unsent", async () => {
    const row = await run(
      Db.query((db) =>
        db.selectFrom("contracts").select("signingStatus").where("id", "=", CONTRACT).executeTakeFirstOrThrow()
      )
    )
    expect(row.signingStatus).toBe("unsent")
  })

  it("holds one live attempt per contract, and allows another once the first ended", async () => {
    const first = "20000000-0000-4000-8000-000000000001"
    await run(queuedAttempt(first))
    const error = await run(Effect.flip(queuedAttempt("20000000-0000-4000-8000-000000000002")))
    expect(error.isUniqueViolation("signing_attempts_one_live_per_contract")).toBe(true)
    await run(
      Db.query((db) =>
        db
          .updateTable("signingAttempts")
          .set({ status: "failed", failedAt: now, failureReason: "no" })
          .where("id", "=", first)
          .execute()
      )
    )
    await run(queuedAttempt("20000000-0000-4000-8000-000000000002"))
  })

  it("refuses a status without its columns (a signed attempt without its upload)", async () => {
    const error = await run(
      Effect.flip(
        Db.query((db) =>
          db
            .updateTable("signingAttempts")
            .set({ status: "signed", signedAt: now, startedAt: now })
            .where("id", "=", "20000000-0000-4000-8000-000000000002")
            .execute()
        )
      )
    )
    expect(error.code).toBe("23514")
  })

  it("holds one party of a kind and one signer per e-mail address (any case) per attempt", async () => {
    const attempt = "20000000-0000-4000-8000-000000000002"
    const party = (id: string, position: number) =>
      Db.query((db) =>
        db
          .insertInto("signingParties")
          .values({ id, signingAttemptId: attempt, position, kind: "customer", name: "C" })
          .execute()
      )
    await run(party("30000000-0000-4000-8000-000000000001", 0))
    expect((await run(Effect.flip(party("30000000-0000-4000-8000-000000000002", 1)))).isUniqueViolation()).toBe(true)
    const signer = (id: string, position: number, email: string) =>
      Db.query((db) =>
        db
          .insertInto("signingSigners")
          .values({
            id,
            signingAttemptId: attempt,
            signingPartyId: "30000000-0000-4000-8000-000000000001",
            position,
            name: "S",
            email,
            role: "signatory",
            signingOrder: 1
          })
          .execute()
      )
    await run(signer("40000000-0000-4000-8000-000000000001", 0, "a@b.example"))
    const error = await run(Effect.flip(signer("40000000-0000-4000-8000-000000000002", 1, "A@B.example")))
    expect(error.isUniqueViolation("signing_signers_one_email_per_attempt")).toBe(true)
  })

  it("refuses an upload address for more than 25 MiB or with a digest that is not lower-case hex", async () => {
    const upload = (size: number, digest: string) =>
      Db.query((db) =>
        db
          .insertInto("signedDocumentUploads")
          .values({
            id: crypto.randomUUID(),
            organizationId: ORG,
            signingAttemptId: "20000000-0000-4000-8000-000000000002",
            declaredSizeBytes: size,
            declaredSha256: digest,
            status: "pending",
            documentId: null,
            expiresAt: now,
            createdAt: now,
            storedAt: null
          })
          .execute()
      )
    await run(upload(26_214_400, DIGEST))
    expect((await run(Effect.flip(upload(26_214_401, DIGEST)))).code).toBe("23514")
    expect((await run(Effect.flip(upload(1, DIGEST.toUpperCase())))).code).toBe("23514")
  })

  it("migrates down and up again", async () => {
    // A separate database: going down would drop this suite's rows.
    const scratch = await TestDatabase.create(kind)
    const kysely = await Db.makeKysely(scratch.config)
    try {
      const plain = kysely.withoutPlugins() as Kysely<unknown>
      const migrator = new Migrator({
        db: plain,
        provider: {
          getMigrations: async () => ({ "20261122_0001_initial": initial, "20261123_0300_signing": signing })
        }
      })
      expect((await migrator.migrateToLatest()).error).toBeUndefined()
      expect((await migrator.migrateDown()).error).toBeUndefined()
      expect((await migrator.migrateToLatest()).error).toBeUndefined()
    } finally {
      await kysely.destroy()
      await scratch.drop()
    }
  })
})
