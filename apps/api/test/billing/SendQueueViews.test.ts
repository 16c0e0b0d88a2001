/**
 * The send queue's page read as views of pg's column texts (`Sql.viewRows` in
 * `BillingScopeRepository.integrationAndPage`, issue 27): for generated invoices (every optional column set or
 * null, text JSON escapes and non-ASCII text, amounts past 32 bits and negative, timestamps with microseconds and
 * ties), every page of the queue, at several limits, encodes to the same bytes and has the same cursor positions as
 * the page made from plain rows (the scope, then `CursorPage.visiblePageRows`' `Sql.rows`), on PGlite and PostgreSQL.
 */
import type { InvoiceRecord } from "@propline/billing/Invoice"
import { isOverdue } from "@propline/billing/Invoice"
import { InvoicePage } from "@propline/contract/Billing"
import * as JsonEncoder from "@propline/contract/JsonEncoder"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Layer } from "effect"
import fc from "fast-check"
import { sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BillingScopeRepository } from "../../src/billing/BillingScopeRepository.js"
import { InvoiceRepository } from "../../src/billing/InvoiceRepository.js"
import * as CursorPage from "../../src/platform/CursorPage.js"
import * as Fixtures from "../support/Fixtures.js"
import { start, type TestApp } from "../support/TestApp.js"

const encodePage = JsonEncoder.makeBytes(InvoicePage)

/** Text a JSON encoder escapes or writes as multi-byte UTF-8 (no NUL: PostgreSQL's text refuses it). */
const text = fc.string({ unit: fc.constantFrom("a", "Z", " ", '"', "\\", "\n", "\t", "\u0001", "\u001f", "/", "å", "€", "🙂", "\u2028"), maxLength: 12 })
const timestamp = fc
  .integer({ min: Date.UTC(1990, 0, 1) * 1000, max: Date.UTC(2040, 0, 1) * 1000 })
  .map((micros) => `${new Date(Math.floor(micros / 1000)).toISOString().slice(0, 23)}${String(micros % 1000).padStart(3, "0")}Z`)
const isoDate = fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }).map((ms) => new Date(ms).toISOString().slice(0, 10))
const amount = fc.integer({ min: -(2 ** 45), max: 2 ** 45 })

/** The columns of an invoice a test sets (the rest are the fixture's). */
const invoiceColumns = fc.record({
  order: fc.integer({ min: 0, max: 3 }),
  approvedAt: fc.option(timestamp, { nil: undefined }),
  recipientAgentName: text,
  externalReference: fc.option(text, { nil: null }),
  requestedDueDate: fc.option(isoDate, { nil: null }),
  paymentTermsDays: fc.option(fc.integer({ min: 0, max: 400 }), { nil: null }),
  totalNetMinorUnits: amount,
  totalGrossMinorUnits: amount,
  issuedInvoiceNumber: fc.option(text, { nil: null }),
  dueDate: fc.option(isoDate, { nil: null }),
  issuedTotalGrossMinorUnits: fc.option(amount, { nil: null }),
  paymentReference: fc.option(text, { nil: null }),
  paymentReferenceType: fc.option(fc.constantFrom("ocr", "kid", "reference" as const), { nil: null }),
  documentUrl: fc.option(text, { nil: null }),
  balanceMinorUnits: fc.option(amount, { nil: null }),
  sentAt: fc.option(timestamp, { nil: null }),
  failureReason: fc.option(text, { nil: null }),
  updatedAt: timestamp
})

type Page = { readonly bytes: string; readonly positions: ReadonlyArray<CursorPage.Position> }

describe.each(TestDatabase.kinds())("the send queue's page from views on %s", (kind) => {
  let app: TestApp

  beforeAll(async () => {
    app = await start(kind)
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  /** Every page of the organization's queue, one way or the other, as the handler encodes it (`overdue` set). */
  const walk = (org: Fixtures.OrganizationFixture, limit: number, views: boolean, today: string) =>
    Effect.gen(function* () {
      const scopes = yield* BillingScopeRepository
      const target = (yield* InvoiceRepository).sendQueuePage
      const pages: Array<Page> = []
      let after: CursorPage.Position | undefined = undefined
      for (;;) {
        const rows: ReadonlyArray<CursorPage.Keyed<InvoiceRecord>> = views
          ? ((yield* scopes.integrationAndPage(org.organizationId, [org.rootId], target, after, limit)).rows as never)
          : ((yield* CursorPage.visiblePageRows({
              ...target,
              organizationId: org.organizationId,
              contextIds: (yield* scopes.scope(org.organizationId, [org.rootId])).contextIds,
              after,
              limit
            })) as never)
        const page = CursorPage.page("send-queue", rows, limit)
        for (const item of page.items) (item as InvoiceRecord & { overdue?: boolean }).overdue = isOverdue(item, today)
        pages.push({
          bytes: Buffer.from(encodePage(page as never)).toString("utf8"),
          positions: rows.map((row) => row.position)
        })
        if (rows.length <= limit) return pages
        after = rows[limit - 1]!.position
      }
    }).pipe(Effect.provide(Layer.mergeAll(BillingScopeRepository.Default, InvoiceRepository.Default)))

  it("encodes every page to the plain rows' bytes, with their cursors", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(invoiceColumns, { minLength: 1, maxLength: 6 }), isoDate, async (invoices, today) => {
        const org = await app.run(Fixtures.organization({ name: "Views" }))
        for (const [index, invoice] of invoices.entries()) {
          const id = await app.run(Fixtures.approvedInvoice(org, { order: invoice.order }))
          const { order: _order, approvedAt, sentAt, updatedAt, externalReference, ...columns } = invoice
          await app.run(
            Db.query((db) =>
              db
                .updateTable("invoices")
                .set({
                  ...columns,
                  // Unique within the organization (its key): the generated text and the invoice's place.
                  externalReference: externalReference === null ? null : `${externalReference}#${index}`,
                  ...(approvedAt === undefined ? {} : { approvedAt: sql<Date>`${approvedAt}::timestamptz` }),
                  sentAt: sentAt === null ? null : sql<Date>`${sentAt}::timestamptz`,
                  updatedAt: sql<Date>`${updatedAt}::timestamptz`
                })
                .where("id", "=", id)
                .execute()
            ).pipe(Effect.orDie)
          )
        }
        for (const limit of [1, 2, 50]) {
          const [plain, viewed] = await app.run(Effect.all([walk(org, limit, false, today), walk(org, limit, true, today)]))
          expect(viewed).toEqual(plain)
          expect(viewed.flatMap((page) => page.positions)).toHaveLength(invoices.length + Math.floor((invoices.length - 1) / limit))
        }
      }),
      { numRuns: kind === "postgres" ? 25 : 10 }
    )
  }, 120_000)
})
