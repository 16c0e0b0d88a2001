/**
 * Signing over HTTP, black box, on PGlite and on PostgreSQL: spec 4.2 "Signing" and decisions 6 — the signing and
 * withdrawal queues, every outcome report from every state it is allowed or refused in, with its code, the
 * signed-PDF upload and `signed`, the operator's preparation and withdrawal with their codes, roles (403),
 * tenancy (404), validation (400) and races (20 concurrent `signed` → one outcome).
 */
import type * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Exit } from "effect"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SigningOperatorService } from "../../src/signing/SigningOperatorService.js"
import * as Fixtures from "../support/Fixtures.js"
import * as Signing from "../support/SigningFixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const pdfBytes = (text = "signed") =>
  new TextEncoder().encode(`%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n% ${text}\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n`)
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

describe.each(TestDatabase.kinds())("signing over HTTP on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let other: Fixtures.OrganizationFixture
  let signingToken: string
  let billingToken: string
  let otherToken: string

  const url = (path: string) => `${app.apiUrl}${path}`
  const report = (attemptId: string, outcome: string, body: unknown = {}, tokenValue = signingToken) =>
    call(url(`/v1/crm/signing-attempts/${attemptId}/${outcome}`), { token: tokenValue, body })
  const queue = (name: "signing-queue" | "withdrawal-queue", query = "", tokenValue = signingToken) =>
    call(url(`/v1/crm/${name}${query}`), { token: tokenValue })

  /** A fresh attempt of a fresh contract, `queued`. */
  const queuedAttempt = async () => {
    const contractId = await app.run(Signing.contract(org))
    return app.run(Signing.prepared(org, contractId))
  }
  /** A fresh attempt, reported `started`. */
  const startedAttempt = async () => {
    const attempt = await queuedAttempt()
    expect((await report(attempt.id, "started", { providerDocumentId: `doc-${attempt.id}` })).status).toBe(201)
    return attempt
  }
  /** Asks for an upload address and PUTs `body` to it. */
  const upload = async (attemptId: string, body: Uint8Array, declared = { sizeBytes: body.length, sha256: sha256(body) }) => {
    const address = await report(attemptId, "signed-document-upload", declared)
    expect(address.status).toBe(201)
    const put = await fetch(address.body.url, { method: "PUT", headers: address.body.headers, body })
    return { address: address.body, put: { status: put.status, body: await put.json() } }
  }
  const operatorRun = <A, E>(effect: (operator: SigningOperatorService) => Effect.Effect<A, E, Db.Db>) =>
    app.run(Effect.exit(Signing.asOperator(Effect.flatMap(SigningOperatorService, effect))))
  const refusalOf = (exit: Exit.Exit<unknown, unknown>) => {
    if (!Exit.isFailure(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a failure, got ${String(exit)}`)
    return exit.cause.error as { readonly _tag: string; readonly code?: string; readonly status?: number }
  }

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    other = await app.run(Fixtures.organization({ name: "Fjord" }))
    const signingApp = await app.run(Fixtures.application(org, { roles: ["signing"] }))
    const billingApp = await app.run(Fixtures.application(org, { roles: ["billing"] }))
    const otherApp = await app.run(Fixtures.application(other, { roles: ["signing"] }))
    signingToken = await token(app.authUrl, signingApp.clientId, signingApp.secret)
    billingToken = await token(app.authUrl, billingApp.clientId, billingApp.secret)
    otherToken = await token(app.authUrl, otherApp.clientId, otherApp.secret)
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  describe("authentication and roles (spec 5, decisions 2)", () => {
    it("401 without a token", async () => {
      expect((await queue("signing-queue", "", "")).status).toBe(401)
      const noToken = await call(url("/v1/crm/signing-attempts/00000000-0000-4000-8000-000000000000/started"), { body: {} })
      expect(noToken.status).toBe(401)
    })

    it("403 without the signing role, on every operation, before the input is read", async () => {
      const attempt = await queuedAttempt()
      const answers = await Promise.all([
        queue("signing-queue", "", billingToken),
        queue("withdrawal-queue", "", billingToken),
        ...["started", "signed-document-upload", "signed", "declined", "expired", "withdrawn", "failed"].map((outcome) =>
          report(attempt.id, outcome, {}, billingToken)
        ),
        report("not-a-uuid", "started", "{", billingToken)
      ])
      for (const answer of answers) {
        expect(answer.status).toBe(403)
        expect(answer.body).toMatchObject({ type: "about:blank", title: "Forbidden", status: 403 })
      }
      expect((await app.run(Signing.attemptState(attempt.id))).status).toBe("queued")
    })

    it("404 for another organization's attempt, never 403", async () => {
      const attempt = await queuedAttempt()
      const answer = await report(attempt.id, "started", { providerDocumentId: "x" }, otherToken)
      expect(answer.status).toBe(404)
      expect((await queue("signing-queue", "?limit=100", otherToken)).body.items).toEqual([])
    })

    it("404 for an attempt outside the token's contexts", async () => {
      const contractId = await app.run(Signing.contract(org, { contextId: org.otherPropertyId }))
      const attempt = await app.run(Signing.prepared(org, contractId))
      const regional = await app.run(Fixtures.application(org, { roles: ["signing"], contextIds: [org.regionId] }))
      const regionalToken = await token(app.authUrl, regional.clientId, regional.secret)
      expect((await report(attempt.id, "failed", { reason: "x" }, regionalToken)).status).toBe(404)
      const listed = await queue("signing-queue", "?limit=100", regionalToken)
      expect(listed.body.items.map((item: { attemptId: string }) => item.attemptId)).not.toContain(attempt.id)
    })
  })

  describe("validation (400 VALIDATION_FAILED with issues)", () => {
    it.each([
      ["an attempt id that is not a UUID", "/v1/crm/signing-attempts/nope/started", { providerDocumentId: "d" }, "/attemptId"],
      ["a missing providerDocumentId", "/v1/crm/signing-attempts/00000000-0000-4000-8000-000000000000/started", {}, "/providerDocumentId"],
      ["a blank failure reason", "/v1/crm/signing-attempts/00000000-0000-4000-8000-000000000000/failed", { reason: "  " }, "/reason"],
      ["a size of 0", "/v1/crm/signing-attempts/00000000-0000-4000-8000-000000000000/signed-document-upload", { sizeBytes: 0, sha256: "a".repeat(64) }, "/sizeBytes"],
      ["a size over 25 MiB", "/v1/crm/signing-attempts/00000000-0000-4000-8000-000000000000/signed-document-upload", { sizeBytes: 26_214_401, sha256: "a".repeat(64) }, "/sizeBytes"],
      ["a digest that is not hex", "/v1/crm/signing-attempts/00000000-0000-4000-8000-000000000000/signed-document-upload", { sizeBytes: 10, sha256: "z".repeat(64) }, "/sha256"],
      ["an uploadId that is not a UUID", "/v1/crm/signing-attempts/00000000-0000-4000-8000-000000000000/signed", { uploadId: "u" }, "/uploadId"],
      ["a partyId that is not a UUID", "/v1/crm/signing-attempts/00000000-0000-4000-8000-000000000000/declined", { partyId: 1 }, "/partyId"]
    ])("%s", async (_, path, body, pointer) => {
      const answer = await call(url(path), { token: signingToken, body })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("VALIDATION_FAILED")
      expect(answer.body.issues.map((issue: { path: string }) => issue.path)).toContain(pointer)
    })

    it("a bad limit or a cursor of another list", async () => {
      expect((await queue("signing-queue", "?limit=0")).body.code).toBe("VALIDATION_FAILED")
      const first = await queue("withdrawal-queue", "?limit=1")
      if (first.body.nextCursor !== null) {
        const crossed = await queue("signing-queue", `?cursor=${first.body.nextCursor}`)
        expect(crossed.status).toBe(400)
      }
      expect((await queue("signing-queue", "?cursor=garbage")).body.issues[0].path).toBe("/cursor")
    })

    it("404 for an attempt that does not exist", async () => {
      const answer = await report("00000000-0000-4000-8000-000000000000", "expired")
      expect(answer.status).toBe(404)
    })
  })

  describe("preparing a contract for signing (the operator)", () => {
    it("queues an attempt with its parties and signers, and renders the contract as a PDF", async () => {
      const contractId = await app.run(Signing.contract(org))
      const attempt = await app.run(Signing.prepared(org, contractId))
      expect(attempt.status).toBe("queued")
      expect((await app.run(Signing.attemptState(attempt.id))).signingStatus).toBe("queued")
      expect(await app.run(Signing.eventsOf(attempt.id))).toEqual(["crm.signing_attempt.queued"])
    })

    it("CRM_SIGNING_ATTEMPT_LIVE (409) while the contract has a live attempt", async () => {
      const contractId = await app.run(Signing.contract(org))
      await app.run(Signing.prepared(org, contractId))
      const refusal = refusalOf(
        await operatorRun((operator) => operator.prepare(Signing.operatorOf(org), contractId, { parties: Signing.parties() }))
      )
      expect(refusal).toMatchObject({ code: "CRM_SIGNING_ATTEMPT_LIVE", status: 409 })
    })

    it("of 10 concurrent preparations of one contract, one queues an attempt", async () => {
      const contractId = await app.run(Signing.contract(org))
      const exits = await Promise.all(
        Array.from({ length: 10 }, () =>
          operatorRun((operator) => operator.prepare(Signing.operatorOf(org), contractId, { parties: Signing.parties() }))
        )
      )
      expect(exits.filter(Exit.isSuccess)).toHaveLength(1)
      for (const exit of exits.filter(Exit.isFailure)) expect(refusalOf(exit).code).toBe("CRM_SIGNING_ATTEMPT_LIVE")
    })

    it.each([
      [
        "CRM_SIGNING_PARTY_REPEATED",
        [
          { kind: "customer", signers: [{ name: "A", email: "a@x.example", role: "signatory", signingOrder: 1 }] },
          { kind: "customer", signers: [{ name: "B", email: "b@x.example", role: "signatory", signingOrder: 1 }] }
        ]
      ],
      [
        "CRM_SIGNER_ALREADY_ADDED",
        [
          { kind: "customer", signers: [{ name: "A", email: "a@x.example", role: "signatory", signingOrder: 1 }] },
          { kind: "organization", signers: [{ name: "A", email: "A@X.example", role: "signatory", signingOrder: 2 }] }
        ]
      ],
      [
        "CRM_SIGNER_NOT_ELIGIBLE",
        [
          {
            kind: "customer",
            signers: [
              { name: "A", email: "a@x.example", role: "approver", signingOrder: 1 },
              { name: "B", email: "b@x.example", role: "signatory", signingOrder: 2 }
            ]
          }
        ]
      ]
    ])("%s (400), and nothing is stored", async (code, parties) => {
      const contractId = await app.run(Signing.contract(org))
      const before = await app.run(Signing.counts)
      const refusal = refusalOf(await operatorRun((operator) => operator.prepare(Signing.operatorOf(org), contractId, { parties })))
      expect(refusal).toMatchObject({ code, status: 400 })
      expect(await app.run(Signing.counts)).toEqual(before)
    })

    it("CRM_SIGNING_NOT_AVAILABLE (400) for a terminated contract", async () => {
      const contractId = await app.run(Signing.contract(org, { status: "terminated" }))
      const refusal = refusalOf(
        await operatorRun((operator) => operator.prepare(Signing.operatorOf(org), contractId, { parties: Signing.parties() }))
      )
      expect(refusal).toMatchObject({ code: "CRM_SIGNING_NOT_AVAILABLE", status: 400 })
    })

    it("InvalidInput with one issue per failing field; RecordNotFound for another organization's contract", async () => {
      const contractId = await app.run(Signing.contract(org))
      const invalid = refusalOf(
        await operatorRun((operator) =>
          operator.prepare(Signing.operatorOf(org), contractId, {
            parties: [{ kind: "organization", signers: [{ name: "", email: "nope", role: "viewer", signingOrder: 0 }] }]
          })
        )
      ) as unknown as { _tag: string; issues: ReadonlyArray<{ path: string }> }
      expect(invalid._tag).toBe("InvalidInput")
      expect(invalid.issues.map((issue) => issue.path)).toEqual(
        expect.arrayContaining(["/parties/0/signers/0/name", "/parties/0/signers/0/email", "/parties/0/signers/0/signingOrder"])
      )
      const foreign = refusalOf(
        await operatorRun((operator) => operator.prepare(Signing.operatorOf(other), contractId, { parties: Signing.parties() }))
      )
      expect(foreign._tag).toBe("RecordNotFound")
    })
  })

  describe("GET /v1/crm/signing-queue", () => {
    it("lists queued attempts oldest first, in cursor pages, with the contract, signers and the PDF to sign", async () => {
      const attempts = [await queuedAttempt(), await queuedAttempt(), await queuedAttempt()]
      const seen: Array<{ attemptId: string; queuedAt: string }> = []
      let cursor: string | null = null
      do {
        const answer = await queue("signing-queue", cursor === null ? "?limit=2" : `?limit=2&cursor=${cursor}`)
        expect(answer.status).toBe(200)
        expect(answer.body.items.length).toBeLessThanOrEqual(2)
        seen.push(...answer.body.items)
        cursor = answer.body.nextCursor
      } while (cursor !== null)
      const ids = seen.map((item) => item.attemptId)
      for (const attempt of attempts) expect(ids).toContain(attempt.id)
      const times = seen.map((item) => item.queuedAt)
      expect([...times].sort()).toEqual(times)

      const item = (await queue("signing-queue", "?limit=100")).body.items.find(
        (candidate: { attemptId: string }) => candidate.attemptId === attempts[0]!.id
      )
      expect(item.contract).toMatchObject({
        id: attempts[0]!.contractId,
        organizationId: org.organizationId,
        operationalContextId: org.propertyId
      })
      expect(item.contract.title).toMatch(/^Contract K-\d+ – Kund \d+ AB$/)
      expect(item.parties.map((party: { kind: string }) => party.kind)).toEqual(["customer", "organization"])
      expect(item.parties[0].signers[0]).toMatchObject({ name: "Astrid Lind", role: "signatory", signingOrder: 1 })
      expect(item.document).toMatchObject({ contentType: "application/pdf" })
      const download = await fetch(item.document.url)
      expect(download.status).toBe(200)
      const bytes = new Uint8Array(await download.arrayBuffer())
      expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-")
      expect(bytes.length).toBe(item.document.sizeBytes)
      expect(sha256(bytes)).toBe(item.document.sha256)
    })

    it("a download address with a changed document or expiry is refused (403)", async () => {
      await queuedAttempt()
      const item = (await queue("signing-queue", "?limit=1")).body.items[0]
      const address = new URL(item.document.url)
      address.searchParams.set("expires", String(Number(address.searchParams.get("expires")) + 60))
      expect((await fetch(address)).status).toBe(403)
    })
  })

  describe("started (queued → started)", () => {
    it("records the provider's document id; the attempt leaves the signing queue", async () => {
      const attempt = await queuedAttempt()
      const answer = await report(attempt.id, "started", { providerDocumentId: "scrive-4711" })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({ id: attempt.id, status: "started", providerDocumentId: "scrive-4711" })
      expect(answer.body.startedAt).toBeDefined()
      const listed = (await queue("signing-queue", "?limit=100")).body.items.map((item: { attemptId: string }) => item.attemptId)
      expect(listed).not.toContain(attempt.id)
      expect((await app.run(Signing.attemptState(attempt.id))).signingStatus).toBe("started")
    })

    it("a second started → 400 CRM_AGREEMENT_TRANSITION_INVALID, nothing changes", async () => {
      const attempt = await startedAttempt()
      const before = await app.run(Signing.counts)
      const answer = await report(attempt.id, "started", { providerDocumentId: "again" })
      expect(answer.status).toBe(400)
      expect(answer.body.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
      expect(await app.run(Signing.counts)).toEqual(before)
    })
  })

  describe("signed-document-upload and signed (started → signed)", () => {
    it("the whole way: upload address, PUT the PDF, report signed", async () => {
      const attempt = await startedAttempt()
      const pdf = pdfBytes(attempt.id)
      const { address, put } = await upload(attempt.id, pdf)
      expect(address).toMatchObject({ method: "PUT", headers: { "Content-Type": "application/pdf" }, sizeBytes: pdf.length })
      expect(Date.parse(address.expiresAt) - Date.now()).toBeGreaterThan(14 * 60_000)
      expect(Date.parse(address.expiresAt) - Date.now()).toBeLessThanOrEqual(15 * 60_000)
      expect(put).toMatchObject({ status: 201, body: { uploadId: address.id, status: "stored" } })
      const signed = await report(attempt.id, "signed", { uploadId: address.id })
      expect(signed.status).toBe(201)
      expect(signed.body).toMatchObject({ status: "signed" })
      expect(await app.run(Signing.attemptState(attempt.id))).toMatchObject({
        status: "signed",
        signingStatus: "signed",
        signedDocumentUploadId: address.id
      })
      const outcome = await app.run(
        Signing.asOperator(Effect.flatMap(SigningOperatorService, (operator) => operator.outcome(Signing.operatorOf(org), attempt.id)))
      )
      expect(outcome.signedDocument).toMatchObject({ kind: "signed", sizeBytes: pdf.length, sha256: sha256(pdf) })
      expect(await app.run(Signing.eventsOf(attempt.id))).toEqual([
        "crm.signing_attempt.queued",
        "crm.signing_attempt.started",
        "crm.signing_attempt.signed_document_uploaded",
        "crm.signing_attempt.signed"
      ])
      // ended: any report → CRM_SIGNING_ATTEMPT_ENDED; the contract can't be prepared again
      for (const [outcomeName, body] of [
        ["signed", { uploadId: address.id }],
        ["started", { providerDocumentId: "x" }],
        ["declined", { partyId: attempt.parties[0]!.id }],
        ["expired", {}],
        ["withdrawn", {}],
        ["failed", { reason: "x" }],
        ["signed-document-upload", { sizeBytes: 10, sha256: "a".repeat(64) }]
      ] as const) {
        const answer = await report(attempt.id, outcomeName, body)
        expect(answer.status).toBe(400)
        expect(answer.body.code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
      }
      const again = refusalOf(
        await operatorRun((operator) =>
          operator.prepare(Signing.operatorOf(org), attempt.contractId, { parties: Signing.parties() })
        )
      )
      expect(again.code).toBe("CRM_SIGNING_NOT_AVAILABLE")
    })

    it("on a queued attempt: upload address and signed → 400 CRM_AGREEMENT_TRANSITION_INVALID", async () => {
      const attempt = await queuedAttempt()
      const address = await report(attempt.id, "signed-document-upload", { sizeBytes: 10, sha256: "a".repeat(64) })
      expect(address.body.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
      const signed = await report(attempt.id, "signed", { uploadId: "00000000-0000-4000-8000-000000000000" })
      expect(signed.body.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
    })

    it("signed without a stored PDF → 400 CRM_SIGNED_DOCUMENT_REJECTED, and nothing is recorded", async () => {
      const attempt = await startedAttempt()
      const pending = await report(attempt.id, "signed-document-upload", { sizeBytes: 10, sha256: "a".repeat(64) })
      const before = await app.run(Signing.counts)
      for (const uploadId of [pending.body.id, "00000000-0000-4000-8000-000000000000"]) {
        const answer = await report(attempt.id, "signed", { uploadId })
        expect(answer.status).toBe(400)
        expect(answer.body.code).toBe("CRM_SIGNED_DOCUMENT_REJECTED")
      }
      expect(await app.run(Signing.counts)).toEqual(before)
      expect((await app.run(Signing.attemptState(attempt.id))).status).toBe("started")
    })

    it("signed with another attempt's stored PDF → 400 CRM_SIGNED_DOCUMENT_REJECTED", async () => {
      const first = await startedAttempt()
      const second = await startedAttempt()
      const { address } = await upload(first.id, pdfBytes("first"))
      const answer = await report(second.id, "signed", { uploadId: address.id })
      expect(answer.body.code).toBe("CRM_SIGNED_DOCUMENT_REJECTED")
    })

    it("20 concurrent signed reports → one outcome", async () => {
      const attempt = await startedAttempt()
      const { address } = await upload(attempt.id, pdfBytes("race"))
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => report(attempt.id, "signed", { uploadId: address.id }))
      )
      expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1)
      for (const answer of answers.filter((candidate) => candidate.status !== 201)) {
        expect(answer.status).toBe(400)
        expect(answer.body.code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
      }
      const events = await app.run(Signing.eventsOf(attempt.id))
      expect(events.filter((type) => type === "crm.signing_attempt.signed")).toHaveLength(1)
    })
  })

  describe("declined (started → declined)", () => {
    it("records the declining party and reason", async () => {
      const attempt = await startedAttempt()
      const partyId = attempt.parties[0]!.id
      const answer = await report(attempt.id, "declined", { partyId, reason: "Hyran är för hög" })
      expect(answer.status).toBe(201)
      expect(answer.body).toMatchObject({ status: "declined", declinedByPartyId: partyId, declineReason: "Hyran är för hög" })
      expect((await app.run(Signing.attemptState(attempt.id))).signingStatus).toBe("declined")
    })

    it("a party not of the attempt → 400 VALIDATION_FAILED at /partyId", async () => {
      const attempt = await startedAttempt()
      const answer = await report(attempt.id, "declined", { partyId: "00000000-0000-4000-8000-000000000000" })
      expect(answer.status).toBe(400)
      expect(answer.body).toMatchObject({ code: "VALIDATION_FAILED", issues: [{ path: "/partyId" }] })
    })

    it("on a queued attempt → 400 CRM_AGREEMENT_TRANSITION_INVALID", async () => {
      const attempt = await queuedAttempt()
      const answer = await report(attempt.id, "declined", { partyId: attempt.parties[0]!.id })
      expect(answer.body.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
    })
  })

  describe("expired (started → expired)", () => {
    it("records expiredAt; on a queued attempt → 400 CRM_AGREEMENT_TRANSITION_INVALID", async () => {
      const started = await startedAttempt()
      const answer = await report(started.id, "expired")
      expect(answer.status).toBe(201)
      expect(answer.body.status).toBe("expired")
      expect(answer.body.expiredAt).toBeDefined()
      const queued = await queuedAttempt()
      expect((await report(queued.id, "expired")).body.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
    })
  })

  describe("strict bodies (issue 19): {} or nothing, no unknown member", () => {
    const EMPTY = [{ path: "", message: "The body must be an empty JSON object, {}, or absent." }]
    const raw = (attemptId: string, outcome: string, text: string) =>
      call(url(`/v1/crm/signing-attempts/${attemptId}/${outcome}`), { token: signingToken, body: text, headers: { "content-type": "application/json" } })

    it.each(["expired", "withdrawn"])("%s refuses [], [1,2], \"s\", 1, null and {\"a\":1}, changing nothing; takes {} or no body", async (outcome) => {
      const attempt = await startedAttempt()
      const second = await startedAttempt()
      if (outcome === "withdrawn") {
        await app.run(Signing.withdrawalRequested(org, attempt.id))
        await app.run(Signing.withdrawalRequested(org, second.id))
      }
      for (const body of ["[]", "[1,2]", "\"s\"", "1", "null", "{\"a\":1}"]) {
        const answer = await raw(attempt.id, outcome, body)
        expect([answer.status, answer.body.code, body]).toEqual([400, "VALIDATION_FAILED", body])
        expect(answer.body.issues).toEqual(body === "{\"a\":1}" ? [{ path: "/a", message: "is not a member of this request; it has none" }] : EMPTY)
      }
      expect((await app.run(Signing.attemptState(attempt.id))).status).toBe("started")
      expect((await report(attempt.id, outcome, {})).status).toBe(201)
      // No body at all, and no content type: the same as {}.
      const bare = await fetch(url(`/v1/crm/signing-attempts/${second.id}/${outcome}`), { method: "POST", headers: { authorization: `Bearer ${signingToken}` } })
      expect(bare.status).toBe(201)
    })

    it("refuses an unknown member of started, and a size with a sentence naming its bounds", async () => {
      const attempt = await queuedAttempt()
      const answer = await report(attempt.id, "started", { providerDocumentId: "doc-x", providerDocumentID: "doc-x" })
      expect(answer.body.issues).toEqual([{ path: "/providerDocumentID", message: "is not a member of this request; its members are: providerDocumentId" }])
      expect((await app.run(Signing.attemptState(attempt.id))).status).toBe("queued")
      const size = await report(attempt.id, "signed-document-upload", { sizeBytes: 26_214_401, sha256: "a".repeat(64) })
      expect(size.body.issues).toEqual([{ path: "/sizeBytes", message: "must be an integer from 1 to 26214400" }])
    })
  })

  describe("failed (queued or started → failed)", () => {
    it("from queued and from started, with the reason", async () => {
      for (const attempt of [await queuedAttempt(), await startedAttempt()]) {
        const answer = await report(attempt.id, "failed", { reason: "The provider refused the file" })
        expect(answer.status).toBe(201)
        expect(answer.body).toMatchObject({ status: "failed", failureReason: "The provider refused the file" })
        expect((await report(attempt.id, "failed", { reason: "again" })).body.code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
      }
    })
  })

  describe("withdrawal (the operator asks → the withdrawal queue → withdrawn)", () => {
    it("a queued and a started attempt join the withdrawal queue, oldest request first, and leave it when withdrawn", async () => {
      const queued = await queuedAttempt()
      const started = await startedAttempt()
      await app.run(Signing.withdrawalRequested(org, queued.id))
      await app.run(Signing.withdrawalRequested(org, started.id))
      const signingQueue = (await queue("signing-queue", "?limit=100")).body.items.map((item: { attemptId: string }) => item.attemptId)
      expect(signingQueue).not.toContain(queued.id)

      const seen: Array<{ attemptId: string; status: string; providerDocumentId?: string; withdrawalRequestedAt: string }> = []
      let cursor: string | null = null
      do {
        const answer = await queue("withdrawal-queue", cursor === null ? "?limit=1" : `?limit=1&cursor=${cursor}`)
        expect(answer.status).toBe(200)
        seen.push(...answer.body.items)
        cursor = answer.body.nextCursor
      } while (cursor !== null)
      const queuedItem = seen.find((item) => item.attemptId === queued.id)
      const startedItem = seen.find((item) => item.attemptId === started.id)
      expect(queuedItem).toMatchObject({ status: "queued", contractId: queued.contractId })
      expect(queuedItem?.providerDocumentId).toBeUndefined()
      expect(startedItem).toMatchObject({ status: "started", providerDocumentId: `doc-${started.id}` })
      expect(seen.indexOf(queuedItem!)).toBeLessThan(seen.indexOf(startedItem!))

      for (const attempt of [queued, started]) {
        const answer = await report(attempt.id, "withdrawn")
        expect(answer.status).toBe(201)
        expect(answer.body.status).toBe("withdrawn")
        expect((await report(attempt.id, "withdrawn")).body.code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
      }
      const after = (await queue("withdrawal-queue", "?limit=100")).body.items.map((item: { attemptId: string }) => item.attemptId)
      expect(after).not.toContain(queued.id)
      expect(after).not.toContain(started.id)
    })

    it("withdrawn without a withdrawal asked for → 400 CRM_AGREEMENT_TRANSITION_INVALID", async () => {
      const attempt = await startedAttempt()
      expect((await report(attempt.id, "withdrawn")).body.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
    })

    it("a document signed before the cancellation reached it is reported signed, and leaves the queue", async () => {
      const attempt = await startedAttempt()
      await app.run(Signing.withdrawalRequested(org, attempt.id))
      const { address } = await upload(attempt.id, pdfBytes("late"))
      expect((await report(attempt.id, "signed", { uploadId: address.id })).status).toBe(201)
      const after = (await queue("withdrawal-queue", "?limit=100")).body.items.map((item: { attemptId: string }) => item.attemptId)
      expect(after).not.toContain(attempt.id)
    })

    it("asking twice → CRM_AGREEMENT_TRANSITION_INVALID; asking on an ended attempt → CRM_SIGNING_ATTEMPT_ENDED", async () => {
      const attempt = await queuedAttempt()
      await app.run(Signing.withdrawalRequested(org, attempt.id))
      const twice = refusalOf(await operatorRun((operator) => operator.requestWithdrawal(Signing.operatorOf(org), attempt.id)))
      expect(twice.code).toBe("CRM_AGREEMENT_TRANSITION_INVALID")
      await report(attempt.id, "withdrawn")
      const ended = refusalOf(await operatorRun((operator) => operator.requestWithdrawal(Signing.operatorOf(org), attempt.id)))
      expect(ended.code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
    })
  })

  describe("reading outcomes (the operator)", () => {
    it("a contract's attempts, newest first", async () => {
      const contractId = await app.run(Signing.contract(org))
      const first = await app.run(Signing.prepared(org, contractId))
      await report(first.id, "failed", { reason: "x" })
      const second = await app.run(Signing.prepared(org, contractId))
      const history = await app.run(
        Signing.asOperator(
          Effect.flatMap(SigningOperatorService, (operator) => operator.attemptsOfContract(Signing.operatorOf(org), contractId))
        )
      )
      expect(history.map((attempt) => [attempt.id, attempt.status])).toEqual([
        [second.id, "queued"],
        [first.id, "failed"]
      ])
    })
  })
})
