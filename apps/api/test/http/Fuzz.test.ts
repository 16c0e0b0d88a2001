/**
 * Fuzzing the API host black box (decisions 4: never a 500 for anything a client sent): random bodies, content
 * types, path ids, `limit` and `cursor` values — deep nesting, non-decimal numbers, C0 and C1 controls, lone
 * surrogates, huge numbers — sent to every operation with a valid billing token. Every answer must be below 500,
 * and every error must be problem details (`application/problem+json`, the Error record of spec 2.3).
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import { impossibleDate, nonObjectBody, withUnknownMembers } from "../support/Hostile.js"
import { start, type TestApp, token } from "../support/TestApp.js"

/** Text a hostile client might send: controls of both blocks, lone surrogates, brackets, digits in odd forms. */
const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("\u0000", "\u0085", "\u009b[31m", "\ud800", "\udfff", "\u2028", "  ", "", "null", "0x10", "1e2", "016", " 5"),
  fc.string({ unit: fc.constantFrom("[", "]", "{", "}", "\"", "\\", ",", ":", "9", "e", "-"), maxLength: 60 })
)

const nested = fc.integer({ min: 1, max: 4000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth))

const hostileBody = fc.oneof(
  fc.jsonValue({ maxDepth: 6 }).map((value) => JSON.stringify(value)),
  fc.record({ externalReference: fc.oneof(hostileText, fc.jsonValue({ maxDepth: 3 })), reason: fc.oneof(hostileText, fc.jsonValue({ maxDepth: 3 })) }).map((value) => JSON.stringify(value)),
  nested,
  nested.map((array) => `{"reason":${array},"externalReference":${array}}`),
  hostileText,
  fc.constantFrom("{", "{\"reason\":\"x\"", "\"\\u", "{\"reason\":\"\\ud800\"}", "1".repeat(400), "{\"reason\":1e999}")
)

const hostileId = fc.oneof(
  fc.uuid(),
  // Every byte percent-encoded (encodeURIComponent throws on a lone surrogate; a client's bytes don't).
  hostileText.map((text) => [...Buffer.from(text, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("")),
  fc.constantFrom("00000000-0000-0000-0000-000000000000", "..%2F..%2F", "%00", "not-a-uuid")
)

const hostileQuery = fc.record({
  limit: fc.option(fc.oneof(hostileText, fc.integer({ min: -1000, max: 1000 }).map(String)), { nil: undefined }),
  cursor: fc.option(fc.oneof(hostileText, fc.base64String({ maxLength: 80 })), { nil: undefined })
})

const contentType = fc.constantFrom("application/json", "application/json; charset=utf-8", "application/problem+json", "text/plain", "application/x-www-form-urlencoded", undefined)

describe.each(TestDatabase.kinds())("fuzzing the API host on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let billingToken: string
  const statuses = new Map<number, number>()

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Fuzz" }))
    const billingApp = await app.run(Fixtures.application(org))
    billingToken = await token(app.authUrl, billingApp.clientId, billingApp.secret)
  })
  afterAll(async () => {
    await app?.dispose()
  })

  const send = async (method: string, path: string, body?: string, type?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${billingToken}` }
    if (type !== undefined) headers["content-type"] = type
    const response = await fetch(`${app.apiUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
    const text = await response.text()
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    expect(response.status, `${method} ${path} ${body?.slice(0, 80) ?? ""} → ${text.slice(0, 200)}`).toBeLessThan(500)
    if (response.status >= 400) {
      expect(response.headers.get("content-type")).toContain("application/problem+json")
      const problem = JSON.parse(text) as { type: string; status: number; title: string }
      expect(problem.type).toBe("about:blank")
      expect(problem.status).toBe(response.status)
    }
    return response.status
  }

  it("answers every hostile report with less than 500 and problem details", async () => {
    const proposalId = await app.run(Fixtures.proposal(org))
    const invoiceId = await app.run(Fixtures.approvedInvoice(org))
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("pass", "reject", "report-failed"),
        fc.oneof(hostileId, fc.constantFrom(proposalId, invoiceId)),
        hostileBody,
        contentType,
        async (operation, id, body, type) => {
          const path =
            operation === "report-failed"
              ? `/v1/billing/invoices/${id}/report-failed`
              : `/v1/billing/invoice-proposals/${id}/${operation}`
          await send("POST", path, body, type)
        }
      ),
      { numRuns: 250 }
    )
  })

  it("answers every hostile money report, report-sent and report-discarded with less than 500", async () => {
    const invoiceId = await app.run(Fixtures.approvedInvoice(org, { externalReference: `FUZZ-${kind}` }))
    const sent = await fetch(`${app.apiUrl}/v1/billing/invoices/${invoiceId}/report-sent`, {
      method: "POST",
      headers: { authorization: `Bearer ${billingToken}`, "content-type": "application/json" },
      body: JSON.stringify({ issuedInvoiceNumber: "F-1", issuedInvoiceDate: "2026-11-20", dueDate: "2026-12-20", issuedTotalGrossMinorUnits: 1_250_000 })
    })
    expect(sent.status).toBe(201)
    const money = fc.oneof(fc.integer(), fc.double(), fc.constantFrom(0, -1, 9007199254740992, -9007199254740992, "100", null))
    const moneyBody = fc
      .record(
        {
          paymentId: fc.oneof(hostileText, fc.constantFrom("P-1", "P-2")),
          writeOffId: fc.oneof(hostileText, fc.constant("W-1")),
          amountMinorUnits: money,
          issuedTotalGrossMinorUnits: money,
          paidOn: fc.oneof(hostileText, fc.constantFrom("2026-11-21", "2026-02-30")),
          reversedOn: fc.oneof(hostileText, fc.constant("2026-11-22")),
          writtenOffOn: fc.oneof(hostileText, fc.constant("2026-11-22")),
          issuedInvoiceNumber: hostileText,
          issuedInvoiceDate: fc.oneof(hostileText, fc.constant("2026-11-20")),
          dueDate: fc.oneof(hostileText, fc.constant("2026-12-20")),
          currency: fc.oneof(hostileText, fc.constantFrom("SEK", "EUR")),
          paymentReference: fc.oneof(hostileText, fc.constantFrom("79927398713", "23-")),
          paymentReferenceType: fc.oneof(hostileText, fc.constantFrom("ocr", "kid", "reference")),
          documentUrl: fc.oneof(hostileText, fc.constant("https://erp.example/x.pdf")),
          reason: hostileText
        },
        { requiredKeys: [] }
      )
      .map((value) => JSON.stringify(value))
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("report-payment", "report-payment-reversed", "report-write-off", "report-sent", "by-reference", "discarded"),
        fc.oneof(hostileId, fc.constant(invoiceId), fc.constant(`FUZZ-${kind}`)),
        fc.oneof(moneyBody, hostileBody),
        contentType,
        async (operation, id, body, type) => {
          const path =
            operation === "discarded"
              ? `/v1/billing/invoice-withdrawals/${id}/report-discarded`
              : operation === "by-reference"
                ? `/v1/billing/invoices/by-external-reference/${id}/report-payment`
                : `/v1/billing/invoices/${id}/${operation}`
          await send("POST", path, body, type)
        }
      ),
      { numRuns: 300 }
    )
  })

  it("refuses impossible dates, unknown members and non-object bodies with 400 problem details (issue 19)", async () => {
    const invoiceId = await app.run(Fixtures.approvedInvoice(org))
    const reports = {
      "report-payment": { paymentId: "P-9", amountMinorUnits: 100, paidOn: "2026-11-21" },
      "report-payment-reversed": { paymentId: "P-9", reversedOn: "2026-11-22" },
      "report-write-off": { writeOffId: "W-9", amountMinorUnits: 100, writtenOffOn: "2026-11-22" },
      "report-sent": { issuedInvoiceNumber: "F-9", issuedInvoiceDate: "2026-11-20", dueDate: "2026-12-20", issuedTotalGrossMinorUnits: 100 },
      "report-failed": { reason: "ERP down" }
    } as const
    const dated = { "report-payment": "paidOn", "report-payment-reversed": "reversedOn", "report-write-off": "writtenOffOn", "report-sent": "dueDate", "report-failed": undefined } as const
    type Operation = keyof typeof reports
    const operation = fc.constantFrom(...(Object.keys(reports) as Array<Operation>))
    const body = (op: Operation) =>
      fc.oneof(
        withUnknownMembers(fc.constant({ ...reports[op] })),
        dated[op] === undefined ? withUnknownMembers(fc.constant({ ...reports[op] })) : impossibleDate.map((date) => JSON.stringify({ ...reports[op], [dated[op]!]: date })),
        nonObjectBody.filter((text) => text !== "")
      )
    await fc.assert(
      fc.asyncProperty(
        operation.chain((op) => fc.tuple(fc.constant(op), body(op))),
        fc.constantFrom(invoiceId, "00000000-0000-4000-8000-000000000000"),
        async ([op, text], id) => {
          expect(await send("POST", `/v1/billing/invoices/${id}/${op}`, text, "application/json"), `${op} ${text.slice(0, 100)}`).toBe(400)
        }
      ),
      { numRuns: 200 }
    )
    for (const text of ["[]", "[1,2]", "\"s\"", "1", "{\"discarded\":true}"]) {
      expect(await send("POST", `/v1/billing/invoice-withdrawals/${invoiceId}/report-discarded`, text, "application/json")).toBe(400)
    }
  })

  it("answers every hostile list query with less than 500 and problem details", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          "/v1/billing/send-queue",
          "/v1/billing/verification-queue",
          "/v1/billing/withdrawal-queue",
          "/v1/operational-contexts"
        ),
        hostileQuery,
        async (path, query) => {
          const search = new URLSearchParams()
          if (query.limit !== undefined) search.set("limit", query.limit)
          if (query.cursor !== undefined) search.set("cursor", query.cursor)
          await send("GET", `${path}?${search.toString()}`)
        }
      ),
      { numRuns: 200 }
    )
  })

  it("refused something and accepted something (the fuzzer reached both sides)", () => {
    expect([...statuses.keys()].some((status) => status >= 400)).toBe(true)
    expect([...statuses.keys()].some((status) => status < 300)).toBe(true)
  })
})
