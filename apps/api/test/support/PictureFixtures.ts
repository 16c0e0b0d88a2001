/**
 * Records the console's pictures draw (issue 25, item 6), relative to today: invoices sent and issued this month and
 * last, overdue by 40 and 5 days, one payment this month and one reversed; and a resource with one approved booking
 * and one pending request (a hold) in a week three weeks ahead.
 */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { Temporal } from "temporal-polyfill"
import { BookingOperatorService } from "../../src/booking/BookingOperatorService.js"
import { at, bookingSetup, localDate, OPERATOR } from "./BookingFixtures.js"
import * as Fixtures from "./Fixtures.js"
import { call, type TestApp, token } from "./TestApp.js"

const day = (offset: number) => new Date(Date.now() + offset * 24 * 60 * 60 * 1000).toISOString().slice(0, 10)

/** What {@link billingPictures} expects the charts to show (SEK minor units). */
export interface BillingPictures {
  readonly thisMonth: string
  readonly overdueMonth: string
}

/** Two sent invoices (gross 12 500 and 8 000 SEK minor units), overdue by 40 and 5 days; payments of 3 000 (and 999, reversed). */
export const billingPictures = (org: Fixtures.OrganizationFixture) =>
  Effect.gen(function* () {
    const today = day(0)
    const thisMonth = today.slice(0, 7)
    const lateInvoice = yield* Fixtures.approvedInvoice(org, { order: 100 })
    const recentInvoice = yield* Fixtures.approvedInvoice(org, { order: 101 })
    const send = (id: string, issued: string, due: string, gross: number, balance: number) =>
      Db.query((db) =>
        db
          .updateTable("invoices")
          .set({
            status: "sent",
            issuedInvoiceDate: issued,
            dueDate: due,
            issuedTotalGrossMinorUnits: gross,
            totalGrossMinorUnits: gross,
            balanceMinorUnits: balance,
            sentAt: new Date()
          })
          .where("id", "=", id)
          .execute()
      )
    yield* send(lateInvoice, `${thisMonth}-01`, day(-40), 12_500, 12_500)
    yield* send(recentInvoice, `${thisMonth}-01`, day(-5), 8_000, 5_000)
    const payment = (amount: number) => ({
      id: randomUUID(),
      organizationId: org.organizationId,
      invoiceId: recentInvoice,
      paymentId: `pay-${randomUUID()}`,
      amountMinorUnits: amount,
      paidOn: today,
      currency: "SEK",
      recordedAt: new Date()
    })
    const kept = payment(3_000)
    const reversed = payment(999)
    yield* Db.query((db) => db.insertInto("payments").values([kept, reversed]).execute())
    yield* Db.query((db) =>
      db
        .insertInto("paymentReversals")
        .values({ paymentRowId: reversed.id, organizationId: org.organizationId, invoiceId: recentInvoice, reversedOn: today, reason: null, recordedAt: new Date() })
        .execute()
    )
    return { thisMonth, overdueMonth: day(-40).slice(0, 7) } satisfies BillingPictures
  }).pipe(Effect.orDie)

/** The Monday of the week three weeks ahead, and the booking and hold made on its Tuesday in the Boardroom. */
export const bookingPictures = async (app: TestApp, org: Fixtures.OrganizationFixture) => {
  const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
  const fixture = await app.run(bookingSetup(org, [seller.id]).pipe(Effect.provide(BookingOperatorService.Default)))
  const tuesday = localDate("Europe/Stockholm", 21, 2)
  const monday = Temporal.PlainDate.from(tuesday).subtract({ days: 1 }).toString()
  const sellerToken = await token(app.authUrl, seller.clientId, seller.secret)
  const request = async (guest: string, from: string, to: string) => {
    const answer = await call(`${app.apiUrl}/v1/booking/booking-requests`, {
      token: sellerToken,
      body: {
        requestId: `pictures-${randomUUID()}`,
        guest: { name: guest, email: "guest@example.se" },
        resourceId: fixture.room.id,
        period: { start: at("Europe/Stockholm", tuesday, from), end: at("Europe/Stockholm", tuesday, to) }
      }
    })
    if (answer.status !== 201) throw new Error(`booking request: ${answer.status} ${JSON.stringify(answer.body)}`)
    return answer.body.id as string
  }
  const booked = await request("Astrid Lindqvist", "09:00", "11:00")
  const held = await request("Olav Haugen", "13:00", "14:00")
  await app.run(
    Effect.flatMap(BookingOperatorService, (service) => service.approve(OPERATOR, org.organizationId, booked)).pipe(
      Effect.provide(BookingOperatorService.Default),
      Effect.orDie
    )
  )
  return { monday, booked, held, room: fixture.room }
}
