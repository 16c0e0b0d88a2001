/**
 * Fuzzing the signing operations black box (decisions 4: never a 500 for anything a client sent): hostile bodies,
 * content types and ids sent to every `/v1/crm` report with a valid signing token, hostile queries to both queues,
 * and hostile ids, query parameters and bodies sent to the signed upload and download addresses. Every answer must
 * be below 500 and every error problem details (spec 2.3).
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import * as Signing from "../support/SigningFixtures.js"
import { start, type TestApp, token } from "../support/TestApp.js"

const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("\u0000", "\u0085", "\ud800", "  ", "", "null", "0x10", "1e2", "-1", "99999999999999999999"),
  fc.string({ unit: fc.constantFrom("[", "]", "{", "}", "\"", "\\", ",", ":", "9", "e", "-", "%"), maxLength: 60 })
)

const hostileValue = fc.oneof(hostileText, fc.jsonValue({ maxDepth: 3 }))

const hostileBody = fc.oneof(
  fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.stringify(value)),
  fc
    .record(
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
    .map((value) => JSON.stringify(value)),
  fc.integer({ min: 1, max: 3000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
  hostileText
)

const percentEncoded = hostileText.map((text) =>
  [...Buffer.from(text, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("")
)
const hostileId = fc.oneof(fc.uuid(), percentEncoded, fc.constantFrom("not-a-uuid", "%00", "..%2F..%2F"))
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

  const send = async (method: string, path: string, options: { body?: string; type?: string; bearer?: boolean } = {}) => {
    const headers: Record<string, string> = options.bearer === false ? {} : { authorization: `Bearer ${signingToken}` }
    if (options.type !== undefined) headers["content-type"] = options.type
    const response = await fetch(`${app.apiUrl}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: options.body })
    })
    const text = await response.text()
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    expect(response.status, `${method} ${path} ${options.body?.slice(0, 80) ?? ""} → ${text.slice(0, 200)}`).toBeLessThan(500)
    if (response.status >= 400) {
      expect(response.headers.get("content-type")).toContain("application/problem+json")
      const problem = JSON.parse(text) as { type: string; status: number }
      expect(problem.type).toBe("about:blank")
      expect(problem.status).toBe(response.status)
    }
  }

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

  it("refused something and accepted something (the fuzzer reached both sides)", () => {
    expect([...statuses.keys()].some((status) => status >= 400)).toBe(true)
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true)
  })
})
