/**
 * The whole product as a user starts it, black box: the built `apps/api/dist/main.js` on a fresh database seeds the
 * demo organization and writes demo-credentials.json; the example connector's flow then runs against it with the
 * published client. Runs on PGlite and, when a server is configured, on PostgreSQL.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { type StartedProduct, startProduct } from "@propline/harness/StartedProduct"
import { readFileSync } from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runBookingWebsiteFlow } from "../src/BookingWebsiteFlow.js"
import { runConnectorFlow } from "../src/ConnectorFlow.js"
import { runSigningConnectorFlow } from "../src/SigningConnectorFlow.js"

describe.each(TestDatabase.kinds())("the example connector against the started product on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let product: StartedProduct
  /** One run of the flow: it consumes demo records (the credit note, the withdrawal), so it runs once. */
  let steps: ReadonlyArray<{ readonly step: string; readonly outcome: string }>

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    product = await startProduct(
      database.config._tag === "postgres" ? { databaseUrl: database.config.connectionString } : {}
    )
    steps = await runConnectorFlow(product.credentials, "e2e")
  }, 300_000)

  afterAll(async () => {
    await product?.stop()
    await database?.drop()
  }, 60_000)

  it("writes the credentials file with exactly the documented keys", () => {
    const file = JSON.parse(readFileSync(path.join(product.dataDir, "demo-credentials.json"), "utf8")) as Record<string, string>
    expect(Object.keys(file).sort()).toEqual(["auth_url", "base_url", "client_id", "client_secret"])
    expect(file["client_secret"]).toMatch(/^service_sk_[0-9A-Za-z]{43}$/)
  })

  it("runs the ERP flow: token, contexts, verification queue, pass, reject, send queue, report-failed", async () => {
    const outcome = (prefix: string) => steps.filter((s) => s.step.startsWith(prefix)).map((s) => s.outcome)
    expect(outcome("GET /v1/operational-contexts")[0]).toMatch(/^7 contexts/)
    expect(outcome("GET /v1/billing/verification-queue")[0]).toMatch(/^10 proposals/)
    expect(steps.some((s) => s.step.endsWith("/pass") && s.outcome.startsWith("201: proposal passed"))).toBe(true)
    expect(steps.some((s) => s.step.endsWith("/reject") && s.outcome === "201: proposal rejected")).toBe(true)
    expect(steps.some((s) => s.step.endsWith("/report-failed") && s.outcome.endsWith("failed"))).toBe(true)
    expect(steps.find((s) => s.step.endsWith("(repeated)"))?.outcome).toBe("refused: 400 BILLING_INVOICE_STATUS_INVALID")
  })

  it("runs the rest of the ERP life: sent, paid (a replay too), reversed, written off, a refund, withdrawals discarded", async () => {
    const outcomes = (suffix: string) => steps.filter((s) => s.step.endsWith(suffix)).map((s) => s.outcome)
    expect(outcomes("/report-sent").length).toBeGreaterThanOrEqual(3)
    expect(outcomes("/report-sent").every((outcome) => outcome.startsWith("201: ") && outcome.includes(" sent, "))).toBe(true)
    const first = outcomes("/report-payment")[0]
    const replay = outcomes("/report-payment (replayed)")[0]
    expect(first).toMatch(/^200: .* → sent, balance/)
    expect(replay).toBe(first)
    expect(outcomes("/report-payment (same id, other amount)")[0]).toBe("refused: 409 BILLING_PAYMENT_REPLAY_MISMATCH")
    expect(steps.some((s) => s.step.includes("/by-external-reference/") && s.outcome.includes("→ paid, balance 0.00"))).toBe(true)
    expect(outcomes("/report-payment-reversed")[0]).toMatch(/^200: sent, balance/)
    expect(outcomes("/report-write-off")[0]).toBe(`200: written-off, balance 0.00 ${outcomes("/report-write-off")[0]?.slice(-3)}`)
    expect(outcomes("/report-payment (refund)")[0]).toMatch(/→ paid, balance 0\.00/)
    expect(outcomes("/v1/billing/withdrawal-queue")[0]).toMatch(/^1 deleted invoices/)
    expect(outcomes("/report-discarded")).toStrictEqual(["201: withdrawal discarded"])
  })

  it("runs the booking website: resources, add-ons, availability, company lookup, priced preview, one booking for one requestId", async () => {
    const websiteSteps = await runBookingWebsiteFlow(product.credentials, "website-e2e")
    const outcome = (prefix: string) => websiteSteps.find((s) => s.step.startsWith(prefix))?.outcome ?? ""
    expect(outcome("GET /v1/booking/resources")).toMatch(/^7 resources/)
    expect(outcome("POST /v1/booking/company-lookups")).toMatch(/^556036-0793/)
    expect(outcome("POST /v1/booking/booking-requests/preview")).toContain("VAT 12 %")
    expect(outcome("POST /v1/booking/booking-requests/preview")).toMatch(/Total .* SEK/)
    const exactly = (step: string) => websiteSteps.find((s) => s.step === step)?.outcome ?? ""
    expect(exactly("POST /v1/booking/booking-requests")).toMatch(/^pending, held until/)
    expect(exactly("POST /v1/booking/booking-requests (same requestId)")).toBe("the same booking request")
  })

  it("runs the signing flow on the demo: queue, PDF download, started, upload, signed, withdrawal queue", async () => {
    const steps = await runSigningConnectorFlow(product.credentials, "e2e")
    const outcome = (suffix: string) => steps.find((s) => s.step.endsWith(suffix))?.outcome
    expect(steps.find((s) => s.step === "GET /v1/crm/signing-queue")?.outcome).toMatch(/^6 contracts to send/)
    expect(steps.find((s) => s.step.endsWith("(document.url)"))?.outcome).toMatch(/^200: \d+ bytes, SHA-256 as declared$/)
    expect(outcome("/started")).toMatch(/^201: started as esign-e2e-/)
    expect(outcome("/signed-document-upload")).toMatch(/^201: PUT address valid until /)
    expect(steps.find((s) => s.step.startsWith("PUT the signed PDF"))?.outcome).toBe("201")
    expect(outcome("/signed")).toBe("201: signed")
    expect(outcome("/signed (repeated)")).toBe("refused: 400 CRM_SIGNING_ATTEMPT_ENDED")
    expect(steps.find((s) => s.step === "GET /v1/crm/withdrawal-queue")?.outcome).toBe("2 attempts to withdraw")
    expect(steps.filter((s) => s.step.endsWith("/withdrawn")).map((s) => s.outcome.slice(0, 14))).toEqual([
      "201: withdrawn",
      "201: withdrawn"
    ])
  })
})
