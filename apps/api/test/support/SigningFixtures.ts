/**
 * Signing test fixtures: more contracts for an organization fixture (each signing test takes its own, since an
 * attempt ends once), the operator's actions through the real operator service, and reads of what was stored.
 */
import * as Db from "@propline/db/Db"
import { Effect, Layer } from "effect"
import { sql } from "kysely"
import { createHash, randomUUID } from "node:crypto"
import { SigningAttemptRepository } from "../../src/signing/SigningAttemptRepository.js"
import { type Operator, SigningOperatorService } from "../../src/signing/SigningOperatorService.js"
import type { OrganizationFixture } from "./Fixtures.js"
import { NOW } from "./Fixtures.js"

let contractNumbers = 100

/** A new contract of `org` (its own customer and billing account) with two monthly lines. */
export const contract = (
  org: OrganizationFixture,
  options: {
    readonly status?: "active" | "terminated"
    readonly customerKind?: "company" | "private"
    readonly contextId?: string
  } = {}
) =>
  Db.query(async (db) => {
    const stamp = { createdAt: NOW, updatedAt: NOW }
    const customerId = randomUUID()
    const billingAccountId = randomUUID()
    const contractId = randomUUID()
    const number = contractNumbers++
    const kind = options.customerKind ?? "company"
    await db
      .insertInto("customers")
      .values({
        id: customerId,
        organizationId: org.organizationId,
        customerNumber: `C-${number}`,
        name: kind === "company" ? `Kund ${number} AB` : `Person ${number}`,
        kind,
        country: "SE",
        organisationNumber: kind === "company" ? "5560360793" : null,
        ...stamp
      })
      .execute()
    await db
      .insertInto("billingAccounts")
      .values({
        id: billingAccountId,
        organizationId: org.organizationId,
        customerId,
        name: "Ekonomi",
        email: null,
        addressLine: null,
        postalCode: null,
        city: null,
        country: "SE",
        ...stamp
      })
      .execute()
    await db
      .insertInto("contracts")
      .values({
        id: contractId,
        organizationId: org.organizationId,
        operationalContextId: options.contextId ?? org.propertyId,
        customerId,
        billingAccountId,
        contractNumber: `K-${number}`,
        currency: "SEK",
        paymentTermsDays: 30,
        startsOn: "2026-12-01",
        endsOn: null,
        status: options.status ?? "active",
        ...stamp
      })
      .execute()
    await db
      .insertInto("contractLines")
      .values([
        {
          id: randomUUID(),
          contractId,
          description: "Kontor 4 tr",
          monthlyNetMinorUnits: 1_250_000,
          vatRateBasisPoints: 2500,
          createdAt: NOW
        },
        {
          id: randomUUID(),
          contractId,
          description: "Parkering",
          monthlyNetMinorUnits: 95_000,
          vatRateBasisPoints: 2500,
          createdAt: NOW
        }
      ])
      .execute()
    return contractId
  }).pipe(Effect.orDie)

/** The operator of a fixture organization. */
export const operatorOf = (org: OrganizationFixture): Operator => ({
  organizationId: org.organizationId,
  operatorId: "operator-1"
})

/** Parties of a preparation: the customer's signatory, then the organization's. */
export const parties = (suffix = randomUUID().slice(0, 8)) => [
  {
    kind: "customer",
    signers: [{ name: "Astrid Lind", email: `astrid.${suffix}@kund.example`, role: "signatory", signingOrder: 1 }]
  },
  {
    kind: "organization",
    signers: [{ name: "Olof Berg", email: `olof.${suffix}@nordhavn.example`, role: "signatory", signingOrder: 2 }]
  }
]

export const OperatorLive = Layer.merge(SigningOperatorService.Default, SigningAttemptRepository.Default)

/** Runs an operator action with the operator service. */
export const asOperator = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, OperatorLive)

/** Prepares a contract for signing with the default parties; dies on a refusal. */
export const prepared = (org: OrganizationFixture, contractId: string) =>
  asOperator(
    Effect.flatMap(SigningOperatorService, (operator) =>
      operator.prepare(operatorOf(org), contractId, { parties: parties() })
    )
  ).pipe(Effect.orDie)

/** Asks for an attempt's withdrawal; dies on a refusal. */
export const withdrawalRequested = (org: OrganizationFixture, attemptId: string) =>
  asOperator(
    Effect.flatMap(SigningOperatorService, (operator) => operator.requestWithdrawal(operatorOf(org), attemptId))
  ).pipe(Effect.orDie)

/** Row counts the refusal tests compare before and after. */
export const counts = Db.query(async (db) => {
  const count = async (table: "signingAttempts" | "signedDocumentUploads" | "signingDocuments" | "events" | "auditLog") =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n)
  return {
    attempts: await count("signingAttempts"),
    uploads: await count("signedDocumentUploads"),
    documents: await count("signingDocuments"),
    events: await count("events"),
    auditLog: await count("auditLog")
  }
}).pipe(Effect.orDie)

/** The attempt's row and its contract's signing status. */
export const attemptState = (attemptId: string) =>
  Db.query((db) =>
    db
      .selectFrom("signingAttempts")
      .innerJoin("contracts", "contracts.id", "signingAttempts.contractId")
      .select(["signingAttempts.status", "contracts.signingStatus", "signingAttempts.signedDocumentUploadId"])
      .where("signingAttempts.id", "=", attemptId)
      .executeTakeFirstOrThrow()
  ).pipe(Effect.orDie)

/** Event types written for an attempt. */
export const eventsOf = (attemptId: string) =>
  Db.query((db) =>
    db
      .selectFrom("events")
      .select("type")
      .where(sql<boolean>`payload->>'attemptId' = ${attemptId}`)
      .orderBy("occurredAt")
      .execute()
  ).pipe(
    Effect.orDie,
    Effect.map((rows) => rows.map((row) => row.type))
  )

/** A small PDF whose bytes name `text` (it passes the upload's checks: header, size, digest). */
export const pdfBytes = (text = "signed") =>
  new TextEncoder().encode(`%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n% ${text}\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`)

/**
 * The e-signing system's reports over HTTP for a queued attempt: `started`, the signed PDF uploaded to its address,
 * and `signed`. Throws unless each answers as the spec says.
 */
export const signedOverHttp = async (apiUrl: string, signingToken: string, attemptId: string, bytes: Uint8Array) => {
  const report = async (outcome: string, body: unknown, want: number) => {
    const response = await fetch(`${apiUrl}/v1/crm/signing-attempts/${attemptId}/${outcome}`, {
      method: "POST",
      headers: { authorization: `Bearer ${signingToken}`, "content-type": "application/json" },
      body: JSON.stringify(body)
    })
    const answer = (await response.json()) as Record<string, unknown>
    if (response.status !== want) throw new Error(`${outcome}: ${response.status} ${JSON.stringify(answer)}`)
    return answer
  }
  await report("started", { providerDocumentId: `doc-${attemptId}` }, 201)
  const address = (await report(
    "signed-document-upload",
    { sizeBytes: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") },
    201
  )) as { id: string; url: string; headers: Record<string, string> }
  const put = await fetch(address.url, { method: "PUT", headers: address.headers, body: bytes })
  if (put.status !== 201) throw new Error(`upload: ${put.status} ${await put.text()}`)
  await report("signed", { uploadId: address.id }, 201)
}
