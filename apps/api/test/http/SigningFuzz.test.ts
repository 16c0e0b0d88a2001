/**
 * Fuzzing the signing operations black box (decisions 4: never a 500 for anything a client sent): hostile bodies,
 * content types and ids sent to every `/v1/crm` report with a valid signing token, hostile queries to both queues,
 * and hostile ids, query parameters and bodies sent to the signed upload and download addresses. Every answer must
 * be below 500 and every error problem details (spec 2.3).
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import fc from "fast-check"
import { createHash } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import {
  checkedSender,
  hostileBody as hostileBodyOf,
  hostileId,
  hostilePdf,
  hostileText,
  hostileValue
} from "../support/Hostile.js"
import { nonObjectBody, withUnknownMembers } from "../support/Hostile.js"
import * as Signing from "../support/SigningFixtures.js"
import { start, type TestApp, token } from "../support/TestApp.js"

const hostileBody = hostileBodyOf(
  fc.record(
    {
      providerDocumentId: hostileValue,
      reason: hostileValue,
      partyId: hostileValue,
      uploadId: hostileValue,
      sizeBytes: fc.oneof(fc.integer(), fc.double(), hostileValue),
      sha256: hostileValue
    },
    { requiredKeys: [] }
  )
)

const contentType = fc.constantFrom("application/json", "text/plain", "application/pdf", undefined)
const OUTCOMES = ["started", "signed-document-upload", "signed", "declined", "expired", "withdrawn", "failed"] as const

describe.each(TestDatabase.kinds())("fuzzing the signing operations on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let signingToken: string
  const statuses = new Map<number, number>()

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Fuzz" }))
    const signingApp = await app.run(Fixtures.application(org, { roles: ["signing"] }))
    signingToken = await token(app.authUrl, signingApp.clientId, signingApp.secret)
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  const send = checkedSender(() => app.apiUrl, () => signingToken, statuses)

  it("answers every hostile report with less than 500 and problem details", async () => {
    const queued = await app.run(Signing.prepared(org, await app.run(Signing.contract(org))))
    const started = await app.run(Signing.prepared(org, await app.run(Signing.contract(org))))
    await send("POST", `/v1/crm/signing-attempts/${started.id}/started`, {
      body: JSON.stringify({ providerDocumentId: "fuzz" }),
      type: "application/json"
    })
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OUTCOMES),
        fc.oneof(hostileId, fc.constantFrom(queued.id, started.id)),
        hostileBody,
        contentType,
        async (outcome, id, body, type) => {
          await send("POST", `/v1/crm/signing-attempts/${id}/${outcome}`, { body, ...(type === undefined ? {} : { type }) })
        }
      ),
      { numRuns: 250 }
    )
  })

  it("refuses unknown members and non-object bodies on every report with 400 problem details (issue 19)", async () => {
    const started = await app.run(Signing.prepared(org, await app.run(Signing.contract(org))))
    await send("POST", `/v1/crm/signing-attempts/${started.id}/started`, { body: JSON.stringify({ providerDocumentId: "fuzz-strict" }), type: "application/json" })
    const valid: Record<(typeof OUTCOMES)[number], Record<string, unknown>> = {
      started: { providerDocumentId: "doc" },
      "signed-document-upload": { sizeBytes: 10, sha256: "a".repeat(64) },
      signed: { uploadId: "00000000-0000-4000-8000-000000000000" },
      declined: { partyId: "00000000-0000-4000-8000-000000000000" },
      expired: {},
      withdrawn: {},
      failed: { reason: "could not create" }
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...OUTCOMES).chain((outcome) =>
          fc.tuple(fc.constant(outcome), fc.oneof(withUnknownMembers(fc.constant(valid[outcome])), nonObjectBody.filter((text) => text !== "")))
        ),
        fc.constantFrom(started.id, "00000000-0000-4000-8000-000000000000"),
        async ([outcome, body], id) => {
          const status = await send("POST", `/v1/crm/signing-attempts/${id}/${outcome}`, { body, type: "application/json" })
          expect(status, `${outcome} ${body.slice(0, 100)}`).toBe(400)
        }
      ),
      { numRuns: 150 }
    )
    expect((await app.run(Signing.attemptState(started.id))).status).toBe("started")
  })

  it("answers every hostile queue query with less than 500 and problem details", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("/v1/crm/signing-queue", "/v1/crm/withdrawal-queue"),
        fc.option(hostileText, { nil: undefined }),
        fc.option(fc.oneof(hostileText, fc.base64String({ maxLength: 80 })), { nil: undefined }),
        async (path, limit, cursor) => {
          const search = new URLSearchParams()
          if (limit !== undefined) search.set("limit", limit)
          if (cursor !== undefined) search.set("cursor", cursor)
          await send("GET", `${path}?${search.toString()}`)
        }
      ),
      { numRuns: 150 }
    )
  })

  it("answers every hostile upload or download address with less than 500 and problem details", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("PUT /v1/crm/signed-document-uploads/", "GET /v1/crm/signing-documents/"),
        hostileId,
        fc.option(hostileText, { nil: undefined }),
        fc.option(hostileText, { nil: undefined }),
        fc.option(hostileText, { nil: undefined }),
        async (route, id, expires, signature, body) => {
          const [method, prefix] = route.split(" ") as [string, string]
          const search = new URLSearchParams()
          if (expires !== undefined) search.set("expires", expires)
          if (signature !== undefined) search.set("signature", signature)
          const path = `${prefix}${id}${method === "GET" ? "/content" : ""}?${search.toString()}`
          await send(method, path, { bearer: false, ...(method === "PUT" && body !== undefined ? { body } : {}) })
        }
      ),
      { numRuns: 150 }
    )
  })

  it("answers every PDF crafted against the document check, sent to its own address, with 400 and problem details", async () => {
    const started = await app.run(Signing.prepared(org, await app.run(Signing.contract(org))))
    await send("POST", `/v1/crm/signing-attempts/${started.id}/started`, {
      body: JSON.stringify({ providerDocumentId: "fuzz-pdf" }),
      type: "application/json"
    })
    await fc.assert(
      fc.asyncProperty(hostilePdf, async (pdf) => {
        const declared = { sizeBytes: pdf.length, sha256: createHash("sha256").update(pdf).digest("hex") }
        const answer = await fetch(`${app.apiUrl}/v1/crm/signing-attempts/${started.id}/signed-document-upload`, {
          method: "POST",
          headers: { authorization: `Bearer ${signingToken}`, "content-type": "application/json" },
          body: JSON.stringify(declared)
        })
        expect(answer.status).toBe(201)
        const address = new URL(((await answer.json()) as { url: string }).url)
        const status = await send("PUT", `${address.pathname}${address.search}`, {
          bearer: false,
          body: pdf,
          type: "application/pdf"
        })
        expect(status).toBe(400)
      }),
      { numRuns: 40 }
    )
  }, 120_000)

  it("refused something and accepted something (the fuzzer reached both sides)", () => {
    expect([...statuses.keys()].some((status) => status >= 400)).toBe(true)
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true)
  })
})
