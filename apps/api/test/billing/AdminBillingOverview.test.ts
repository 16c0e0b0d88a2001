/**
 * The console's billing overview over the admin API, black box, on PGlite and PostgreSQL (issue 11): the
 * organization's documents counted and summed per status and currency, and the proposals awaiting a verdict.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { adminCall, type Session } from "../support/AdminClient.js"
import { type AdminConsole, startAdminConsole } from "../support/AdminConsole.js"
import type { TestApp } from "../support/TestApp.js"

describe.each(TestDatabase.kinds())("the console's billing overview on %s", (kind) => {
  let app: TestApp
  let session: Session
  let url: AdminConsole["url"]

  beforeAll(async () => {
    ;({ app, session, url } = await startAdminConsole(kind))
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("billing overview", () => {
    it("counts and sums the organization's documents per status and currency, and the proposals awaiting a verdict", async () => {
      const answer = await adminCall(url("/api/billing/overview"), session)
      expect(answer.status).toBe(200)
      const approved = answer.body.buckets.find((bucket: { status: string }) => bucket.status === "approved")
      const invoices = await adminCall(url("/api/billing/invoices?status=approved&limit=100"), session)
      expect(approved).toMatchObject({ currency: "SEK", count: invoices.body.items.length })
      expect(approved.grossMinorUnits).toBe(
        invoices.body.items.reduce((sum: number, invoice: { totalGrossMinorUnits: number }) => sum + invoice.totalGrossMinorUnits, 0)
      )
      expect(answer.body.proposalsAwaitingVerification).toBe(1)
    })
  })
})
