/**
 * SQL of bookable resources (decisions 7): a resource with its price rules as `@propline/booking`'s
 * BookableResource, the resources an Application may sell in the contexts its token sees, locking one for a
 * booking, the add-on products it offers, and the operator's setup writes.
 */
import type { AddOnProduct } from "@propline/booking/AddOnProduct"
import type { BookableResource, PriceRule } from "@propline/booking/Resource"
import type { BookingAddOnProductTable, BookingPriceRuleTable, BookingResourceTable, Database } from "@propline/db/Database"
import { Effect } from "effect"
import { type Insertable, type Kysely, type Selectable, sql } from "kysely"
import { visibleContextsPrefix, withVisibleContexts } from "../contexts/ContextRepository.js"
import * as CursorPage from "../platform/CursorPage.js"
import { groupedBy, nullable } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

/** A resource as the API shows it: the domain record and its timestamps. */
export interface ResourceRow {
  readonly resource: BookableResource
  readonly createdAt: Date
  readonly updatedAt: Date
}

const toRule = (row: Selectable<BookingPriceRuleTable>): PriceRule => ({
  id: row.id,
  name: row.name,
  unit: row.unit,
  amountMinorUnits: row.amountMinorUnits,
  vatRateBasisPoints: row.vatRateBasisPoints,
  weekdays: row.weekdays as PriceRule["weekdays"],
  ...(row.windowFrom === null || row.windowTo === null ? {} : { window: { from: row.windowFrom, to: row.windowTo } })
})

const toResource = (row: Selectable<BookingResourceTable>, rules: ReadonlyArray<Selectable<BookingPriceRuleTable>>): ResourceRow => ({
  resource: {
    id: row.id,
    organizationId: row.organizationId,
    operationalContextId: row.operationalContextId,
    kind: row.kind,
    name: row.name,
    ...(row.description === null ? {} : { description: row.description }),
    timeZone: row.timeZone,
    capacity: row.capacity,
    currency: row.currency as BookableResource["currency"],
    openingHours: row.openingHours,
    minDurationMinutes: row.minDurationMinutes,
    maxDurationMinutes: row.maxDurationMinutes,
    durationIncrementMinutes: row.durationIncrementMinutes,
    startIncrementMinutes: row.startIncrementMinutes,
    minimumNoticeMinutes: row.minimumNoticeMinutes,
    horizonDays: row.horizonDays,
    bufferBeforeMinutes: row.bufferBeforeMinutes,
    bufferAfterMinutes: row.bufferAfterMinutes,
    holdMinutes: row.holdMinutes,
    ...(row.nightStays === null ? {} : { nightStays: row.nightStays }),
    priceRules: rules.filter((rule) => rule.resourceId === row.id).map(toRule),
    ...(row.cancellationNoticeMinutes === null ? {} : { cancellationNoticeMinutes: row.cancellationNoticeMinutes }),
    ...(row.lateCancellationChargeBasisPoints === null
      ? {}
      : { lateCancellationChargeBasisPoints: row.lateCancellationChargeBasisPoints })
  },
  createdAt: row.createdAt,
  updatedAt: row.updatedAt
})

/** An add-on product row as the domain record. */
export const toAddOnProduct = (row: Selectable<BookingAddOnProductTable>): AddOnProduct => ({
  id: row.id,
  organizationId: row.organizationId,
  operationalContextId: row.operationalContextId,
  name: row.name,
  ...(row.description === null ? {} : { description: row.description }),
  category: row.category,
  currency: row.currency as AddOnProduct["currency"],
  unitPriceMinorUnits: row.unitPriceMinorUnits,
  vatRateBasisPoints: row.vatRateBasisPoints,
  leadTimeMinutes: row.leadTimeMinutes,
  ...(row.cutOffDaysBefore === null || row.cutOffTime === null
    ? {}
    : { cutOff: { daysBefore: row.cutOffDaysBefore, time: row.cutOffTime } }),
  maxQuantityPerLine: row.maxQuantityPerLine,
  specialPortions: row.specialPortions,
  deliveryHours: row.deliveryHours,
  retired: row.retiredAt !== null
})

/**
 * A resource as the rows that store it: its `booking_resources` row and its `booking_price_rules` rows (in rule
 * order), created and updated at `at`. One definition for the repository's writes and the demo's seed.
 */
export const resourceRows = (
  resource: BookableResource,
  at: Date
): { readonly resource: Insertable<BookingResourceTable>; readonly priceRules: ReadonlyArray<Insertable<BookingPriceRuleTable>> } => ({
  resource: {
    id: resource.id,
    organizationId: resource.organizationId,
    operationalContextId: resource.operationalContextId,
    kind: resource.kind,
    name: resource.name,
    description: nullable(resource.description),
    timeZone: resource.timeZone,
    capacity: resource.capacity,
    currency: resource.currency,
    openingHours: JSON.stringify(resource.openingHours),
    minDurationMinutes: resource.minDurationMinutes,
    maxDurationMinutes: resource.maxDurationMinutes,
    durationIncrementMinutes: resource.durationIncrementMinutes,
    startIncrementMinutes: resource.startIncrementMinutes,
    minimumNoticeMinutes: resource.minimumNoticeMinutes,
    horizonDays: resource.horizonDays,
    bufferBeforeMinutes: resource.bufferBeforeMinutes,
    bufferAfterMinutes: resource.bufferAfterMinutes,
    holdMinutes: resource.holdMinutes,
    nightStays: resource.nightStays === undefined ? null : JSON.stringify(resource.nightStays),
    status: "active",
    cancellationNoticeMinutes: nullable(resource.cancellationNoticeMinutes),
    lateCancellationChargeBasisPoints: nullable(resource.lateCancellationChargeBasisPoints),
    createdAt: at,
    updatedAt: at
  },
  priceRules: resource.priceRules.map((rule, position) => ({
    id: rule.id,
    resourceId: resource.id,
    position,
    name: rule.name,
    unit: rule.unit,
    amountMinorUnits: rule.amountMinorUnits,
    vatRateBasisPoints: rule.vatRateBasisPoints,
    weekdays: [...rule.weekdays],
    windowFrom: rule.window?.from ?? null,
    windowTo: rule.window?.to ?? null,
    createdAt: at
  }))
})

/** An add-on product as its `booking_add_on_products` row, created and updated (and, when retired, retired) at `at`. */
export const addOnProductRow = (product: AddOnProduct, at: Date): Insertable<BookingAddOnProductTable> => ({
  id: product.id,
  organizationId: product.organizationId,
  operationalContextId: product.operationalContextId,
  name: product.name,
  description: nullable(product.description),
  category: product.category,
  currency: product.currency,
  unitPriceMinorUnits: product.unitPriceMinorUnits,
  vatRateBasisPoints: product.vatRateBasisPoints,
  leadTimeMinutes: product.leadTimeMinutes,
  cutOffDaysBefore: product.cutOff?.daysBefore ?? null,
  cutOffTime: product.cutOff?.time ?? null,
  maxQuantityPerLine: product.maxQuantityPerLine,
  specialPortions: product.specialPortions,
  deliveryHours: JSON.stringify(product.deliveryHours),
  retiredAt: product.retired ? at : null,
  createdAt: at,
  updatedAt: at
})

/** Where an Application's sellable resources are: its grant rows, active, in the contexts its token sees. */
const sellable = (db: Kysely<Database>, organizationId: string, applicationId: string, contextIds: ReadonlyArray<string>) =>
  withVisibleContexts(db, organizationId, contextIds)
    .selectFrom("bookingResources")
    .innerJoin("bookingApplicationResources", "bookingApplicationResources.resourceId", "bookingResources.id")
    .selectAll("bookingResources")
    .where("bookingResources.organizationId", "=", organizationId)
    .where("bookingResources.status", "=", "active")
    .where("bookingApplicationResources.applicationId", "=", applicationId)
    .where("bookingResources.operationalContextId", "in", (qb) => qb.selectFrom("visible").select("visible.id"))

const rulesOf = (db: Kysely<Database>, resourceIds: ReadonlyArray<string>) =>
  resourceIds.length === 0
    ? Promise.resolve([])
    : db.selectFrom("bookingPriceRules").selectAll().where("resourceId", "in", resourceIds).orderBy("position").execute()

/**
 * What a search across resources narrows to (issue 26, item 4): resources in an operational context's subtree (the
 * context and its descendants, as a grant reaches), of a kind, seating at least `minCapacity`.
 */
export interface ResourceFilters {
  readonly operationalContextId?: string
  readonly kind?: BookableResource["kind"]
  readonly minCapacity?: number
}

/** Who may sell: the principal's organization, its Application id and its granted contexts. */
export interface Seller {
  readonly organizationId: string
  readonly applicationId: string
  readonly contextIds: ReadonlyArray<string>
}

export class ResourceRepository extends Effect.Service<ResourceRepository>()("@propline/api/booking/ResourceRepository", {
  succeed: {
    /**
     * The resources a seller may sell, oldest first, after `after`, narrowed by `filters` (a context's subtree
     * intersected with what the seller sees: a context it does not see gives no rows); `limit + 1` rows.
     */
    listSellable: (seller: Seller, after: CursorPage.Position | undefined, limit: number, filters: ResourceFilters = {}) =>
      Sql.query(async (db) => {
        const { operationalContextId, kind, minCapacity } = filters
        let query = sellable(db, seller.organizationId, seller.applicationId, seller.contextIds).select(
          CursorPage.sortKey("bookingResources.createdAt").as("cursorAt")
        )
        if (operationalContextId !== undefined) {
          // The context's subtree, by the grant's own rule (a subquery of its own: the outer `visible` is the token's).
          query = query.where(
            sql<boolean>`booking_resources.operational_context_id in (${visibleContextsPrefix(seller.organizationId, [operationalContextId])} select id from visible)`
          )
        }
        if (kind !== undefined) query = query.where("bookingResources.kind", "=", kind)
        if (minCapacity !== undefined) query = query.where("bookingResources.capacity", ">=", minCapacity)
        if (after !== undefined) query = query.where(CursorPage.after("bookingResources.createdAt", "bookingResources.id", after))
        const rows = await query.orderBy("bookingResources.createdAt").orderBy("bookingResources.id").limit(limit + 1).execute()
        const rules = await rulesOf(db, rows.map((row) => row.id))
        return rows.map(({ cursorAt, ...row }) => ({ record: toResource(row, rules), position: { at: cursorAt, id: row.id } }))
      }),

    /**
     * One resource the seller may sell, or undefined (404). With `lock`, the row is locked for the transaction, so
     * the requests for one resource run one after another and each sees the bookings the one before it made.
     */
    findSellable: (seller: Seller, resourceId: string, lock = false) =>
      Sql.query(async (db) => {
        const query = sellable(db, seller.organizationId, seller.applicationId, seller.contextIds).where(
          "bookingResources.id",
          "=",
          resourceId
        )
        const row = await (lock ? query.forUpdate("bookingResources") : query).executeTakeFirst()
        if (row === undefined) return undefined
        return toResource(row, await rulesOf(db, [row.id]))
      }),

    /** A resource of the organization by id (operators), optionally locked; undefined when missing. */
    find: (organizationId: string, resourceId: string, lock = false) =>
      Sql.query(async (db) => {
        const query = db.selectFrom("bookingResources").selectAll().where("organizationId", "=", organizationId).where("id", "=", resourceId)
        const row = await (lock ? query.forUpdate() : query).executeTakeFirst()
        if (row === undefined) return undefined
        return toResource(row, await rulesOf(db, [row.id]))
      }),

    /** The add-on products a resource offers (retired included), in its order, after `after`; `limit + 1` rows. */
    offeredAddOns: (resourceId: string, after?: CursorPage.Position, limit?: number) =>
      Sql.query((db) => {
        let query = db
          .selectFrom("bookingAddOnProducts")
          .innerJoin("bookingResourceAddOnProducts", "bookingResourceAddOnProducts.addOnProductId", "bookingAddOnProducts.id")
          .selectAll("bookingAddOnProducts")
          .select(CursorPage.sortKey("bookingAddOnProducts.createdAt").as("cursorAt"))
          .where("bookingResourceAddOnProducts.resourceId", "=", resourceId)
        if (after !== undefined) query = query.where(CursorPage.after("bookingAddOnProducts.createdAt", "bookingAddOnProducts.id", after))
        query = query.orderBy("bookingAddOnProducts.createdAt").orderBy("bookingAddOnProducts.id")
        return (limit === undefined ? query : query.limit(limit + 1)).execute()
      }).pipe(
        Effect.map((rows) =>
          rows.map(({ cursorAt, ...row }) => ({ record: toAddOnProduct(row), position: { at: cursorAt, id: row.id } }))
        )
      ),

    /** The add-on products each of `resourceIds` offers (retired included), by resource id (a search's prices). */
    offeredAddOnsOf: (resourceIds: ReadonlyArray<string>) =>
      resourceIds.length === 0
        ? Effect.succeed(new Map<string, Array<AddOnProduct>>())
        : Sql.query((db) =>
            db
              .selectFrom("bookingAddOnProducts")
              .innerJoin("bookingResourceAddOnProducts", "bookingResourceAddOnProducts.addOnProductId", "bookingAddOnProducts.id")
              .selectAll("bookingAddOnProducts")
              .select("bookingResourceAddOnProducts.resourceId as offeredBy")
              .where("bookingResourceAddOnProducts.resourceId", "in", resourceIds)
              .execute()
          ).pipe(Effect.map((rows) => groupedBy(rows, (row) => row.offeredBy, ({ offeredBy: _resource, ...row }) => toAddOnProduct(row)))),

    /** Add-on products of the organization by id (operators). */
    addOnProducts: (organizationId: string, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed<ReadonlyArray<AddOnProduct>>([])
        : Sql.query((db) =>
            db.selectFrom("bookingAddOnProducts").selectAll().where("organizationId", "=", organizationId).where("id", "in", ids).execute()
          ).pipe(Effect.map((rows) => rows.map(toAddOnProduct))),

    /** Writes a resource and replaces its price rules (operators' setup). */
    save: (resource: BookableResource, at: Date) =>
      Sql.query(async (db) => {
        const { resource: row, priceRules } = resourceRows(resource, at)
        const { id: _id, organizationId: _organization, status: _status, createdAt: _created, ...columns } = row
        await db
          .insertInto("bookingResources")
          .values(row)
          .onConflict((oc) => oc.column("id").doUpdateSet(columns))
          .execute()
        await db.deleteFrom("bookingPriceRules").where("resourceId", "=", resource.id).execute()
        if (priceRules.length > 0) await db.insertInto("bookingPriceRules").values(priceRules).execute()
      }),

    /** Writes an add-on product (operators' setup); a product retired before keeps its retirement time. */
    saveAddOnProduct: (product: AddOnProduct, at: Date) =>
      Sql.query((db) => {
        const row = addOnProductRow(product, at)
        const { id: _id, organizationId: _organization, createdAt: _created, ...columns } = row
        return db
          .insertInto("bookingAddOnProducts")
          .values(row)
          .onConflict((oc) =>
            oc.column("id").doUpdateSet({ ...columns, retiredAt: product.retired ? sql`coalesce(booking_add_on_products.retired_at, ${at})` : null })
          )
          .execute()
      }).pipe(Effect.asVoid),

    /** Replaces the add-on products a resource offers, in this order. */
    offer: (resourceId: string, productIds: ReadonlyArray<string>) =>
      Sql.query(async (db) => {
        await db.deleteFrom("bookingResourceAddOnProducts").where("resourceId", "=", resourceId).execute()
        if (productIds.length > 0) {
          await db
            .insertInto("bookingResourceAddOnProducts")
            .values(productIds.map((addOnProductId, position) => ({ resourceId, addOnProductId, position })))
            .execute()
        }
      }),

    /** Lets an Application sell resources (kept when already granted). */
    allow: (applicationId: string, resourceIds: ReadonlyArray<string>, at: Date) =>
      resourceIds.length === 0
        ? Effect.void
        : Sql.query((db) =>
            db
              .insertInto("bookingApplicationResources")
              .values(resourceIds.map((resourceId) => ({ applicationId, resourceId, createdAt: at })))
              .onConflict((oc) => oc.doNothing())
              .execute()
          ).pipe(Effect.asVoid)
  }
}) {}
