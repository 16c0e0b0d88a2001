/**
 * The console's booking read views: resources with their rules, price rules and add-ons, add-on products, and
 * booking requests by start time (the calendar), always within one organization.
 */
import { Effect } from "effect"
import { sql } from "kysely"
import { contextNameOf } from "../contexts/ContextRepository.js"
import * as CursorPage from "../platform/CursorPage.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { spanned } from "../platform/Spans.js"
import * as Sql from "../platform/Sql.js"
import { containing, keyed } from "../platform/ConsoleListing.js"

const resourceColumns = [
  "bookingResources.id",
  "bookingResources.name",
  "bookingResources.kind",
  "bookingResources.operationalContextId",
  contextNameOf("booking_resources.operational_context_id").as("operationalContextName"),
  "bookingResources.timeZone",
  "bookingResources.capacity",
  "bookingResources.currency",
  "bookingResources.status",
  "bookingResources.createdAt",
  sql<number>`(select count(*) from booking_requests r where r.resource_id = booking_resources.id and r.status = 'pending')`.as(
    "pendingRequests"
  )
] as const

const addOnColumns = [
  "id",
  "name",
  "category",
  "currency",
  "unitPriceMinorUnits",
  "vatRateBasisPoints",
  "leadTimeMinutes",
  "retiredAt"
] as const

/** A booking request as the calendar shows it, with its resource's name and time zone. */
const requestColumns = [
  "bookingRequests.id",
  "bookingRequests.resourceId",
  "bookingResources.name as resourceName",
  "bookingResources.timeZone",
  "bookingRequests.status",
  "bookingRequests.startsAt",
  "bookingRequests.endsAt",
  "bookingRequests.guestName",
  "bookingRequests.guestEmail",
  "bookingRequests.companyName",
  "bookingRequests.message",
  "bookingRequests.currency",
  "bookingRequests.totalGrossMinorUnits",
  "bookingRequests.holdExpiresAt",
  "bookingRequests.declineReason",
  "bookingRequests.createdAt"
] as const

export interface RequestFilter {
  readonly status: "pending" | "approved" | "declined" | "expired" | "cancelled" | undefined
  readonly resourceId: string | undefined
  /** Requests starting at or after. */
  readonly from: Date | undefined
  /** Requests starting before. */
  readonly to: Date | undefined
}

export class BookingReadRepository extends Effect.Service<BookingReadRepository>()("@propline/api/booking/BookingReadRepository", {
  succeed: spanned("BookingReadRepository", {
    /** A page of resources, newest first; `q` matches the name. */
    resources: (
      organizationId: string,
      filter: { readonly q: string | undefined; readonly kind: string | undefined; readonly status: string | undefined },
      after: CursorPage.Position | undefined,
      limit: number
    ) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("bookingResources")
          .select(resourceColumns)
          .select(CursorPage.sortKey("bookingResources.createdAt").as("cursorAt"))
          .where("bookingResources.organizationId", "=", organizationId)
        if (after !== undefined) query = query.where(CursorPage.before("bookingResources.createdAt", "bookingResources.id", after))
        if (filter.q !== undefined) query = query.where("bookingResources.name", "ilike", containing(filter.q))
        if (filter.kind !== undefined) query = query.where(sql<string>`booking_resources.kind`, "=", filter.kind)
        if (filter.status !== undefined) query = query.where(sql<string>`booking_resources.status`, "=", filter.status)
        return query.orderBy("bookingResources.createdAt", "desc").orderBy("bookingResources.id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-resources", keyed(rows), limit))),

    /**
     * A resource with its opening hours, rules, price rules, offered add-ons and the ids of the Applications allowed
     * to sell it (identity names them); RecordNotFound when not the organization's.
     */
    resource: (organizationId: string, resourceId: string) =>
      Effect.gen(function* () {
        const resource = yield* Sql.query((db) =>
          db
            .selectFrom("bookingResources")
            .select(resourceColumns)
            .select([
              "bookingResources.description",
              "bookingResources.openingHours",
              "bookingResources.minDurationMinutes",
              "bookingResources.maxDurationMinutes",
              "bookingResources.durationIncrementMinutes",
              "bookingResources.startIncrementMinutes",
              "bookingResources.minimumNoticeMinutes",
              "bookingResources.horizonDays",
              "bookingResources.bufferBeforeMinutes",
              "bookingResources.bufferAfterMinutes",
              "bookingResources.holdMinutes"
            ])
            .where("bookingResources.organizationId", "=", organizationId)
            .where("bookingResources.id", "=", resourceId)
            .executeTakeFirst()
        )
        if (resource === undefined) return yield* new RecordNotFound({ kind: "resource" })
        const priceRules = yield* Sql.query((db) =>
          db
            .selectFrom("bookingPriceRules")
            .select(["name", "unit", "amountMinorUnits", "vatRateBasisPoints", "weekdays", "windowFrom", "windowTo"])
            .where("resourceId", "=", resourceId)
            .orderBy("position")
            .execute()
        )
        const addOnProducts = yield* Sql.query((db) =>
          db
            .selectFrom("bookingResourceAddOnProducts as offer")
            .innerJoin("bookingAddOnProducts as product", "product.id", "offer.addOnProductId")
            .select(addOnColumns.map((column) => `product.${column}` as const))
            .where("offer.resourceId", "=", resourceId)
            .orderBy("offer.position")
            .execute()
        )
        const sellerIds = yield* Sql.query((db) =>
          db.selectFrom("bookingApplicationResources").select("applicationId").where("resourceId", "=", resourceId).execute()
        ).pipe(Effect.map((rows) => rows.map((row) => row.applicationId)))
        return { resource, priceRules, addOnProducts, sellerIds }
      }),

    /** An add-on product of the organization; RecordNotFound when not the organization's. */
    addOnProduct: (organizationId: string, productId: string) =>
      Sql.query((db) =>
        db.selectFrom("bookingAddOnProducts").select(addOnColumns).where("organizationId", "=", organizationId).where("id", "=", productId).executeTakeFirst()
      ).pipe(Effect.flatMap((row) => (row === undefined ? new RecordNotFound({ kind: "add-on product" }) : Effect.succeed(row)))),

    /** A page of the organization's add-on products, newest first. */
    addOnProducts: (organizationId: string, filter: { readonly q: string | undefined }, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("bookingAddOnProducts")
          .select(addOnColumns)
          .select(CursorPage.sortKey("bookingAddOnProducts.createdAt").as("cursorAt"))
          .where("organizationId", "=", organizationId)
        if (after !== undefined) query = query.where(CursorPage.before("bookingAddOnProducts.createdAt", "bookingAddOnProducts.id", after))
        if (filter.q !== undefined) query = query.where("name", "ilike", containing(filter.q))
        return query.orderBy("createdAt", "desc").orderBy("id", "desc").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-add-ons", keyed(rows), limit))),

    /** A page of booking requests by start time (the calendar's order). */
    requests: (organizationId: string, filter: RequestFilter, after: CursorPage.Position | undefined, limit: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("bookingRequests")
          .innerJoin("bookingResources", "bookingResources.id", "bookingRequests.resourceId")
          .select([...requestColumns, CursorPage.sortKey("bookingRequests.startsAt").as("cursorAt")])
          .where("bookingRequests.organizationId", "=", organizationId)
        if (after !== undefined) query = query.where(CursorPage.after("bookingRequests.startsAt", "bookingRequests.id", after))
        if (filter.status !== undefined) query = query.where("bookingRequests.status", "=", filter.status)
        if (filter.resourceId !== undefined) query = query.where("bookingRequests.resourceId", "=", filter.resourceId)
        if (filter.from !== undefined) query = query.where("bookingRequests.startsAt", ">=", filter.from)
        if (filter.to !== undefined) query = query.where("bookingRequests.startsAt", "<", filter.to)
        return query.orderBy("bookingRequests.startsAt").orderBy("bookingRequests.id").limit(limit + 1).execute()
      }).pipe(Effect.map((rows) => CursorPage.page("admin-booking-requests", keyed(rows), limit))),

    /** One booking request as the calendar shows it; RecordNotFound when not the organization's. */
    request: (organizationId: string, bookingId: string) =>
      Sql.query((db) =>
        db
          .selectFrom("bookingRequests")
          .innerJoin("bookingResources", "bookingResources.id", "bookingRequests.resourceId")
          .select(requestColumns)
          .where("bookingRequests.organizationId", "=", organizationId)
          .where("bookingRequests.id", "=", bookingId)
          .executeTakeFirst()
      ).pipe(Effect.flatMap((row) => (row === undefined ? new RecordNotFound({ kind: "booking request" }) : Effect.succeed(row))))
  })
}) {}
