/**
 * SQL of booking requests (decisions 7): reading one back, finding one by the caller's requestId, the live
 * bookings of a resource near a period, stale holds, and writing requests and decisions. PostgreSQL has the last
 * word on a race: the exclusion constraint `booking_requests_no_overlap` refuses a second live booking whose
 * buffered span overlaps (→ `SlotTaken`, 409), the unique key `booking_requests_request_id_key` a second request
 * with one requestId (→ {@link RequestIdRace}).
 */
import type { BookingTime } from "@propline/booking/BookingCheck"
import { SlotTaken } from "@propline/booking/BookingRefusal"
import type { BookingRequestRecord } from "@propline/booking/BookingRequest"
import type { PriceBreakdown } from "@propline/booking/Pricing"
import type { BookingRequestTable, Database } from "@propline/db/Database"
import { Data, Effect } from "effect"
import { type Kysely, type Selectable, sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import { groupedBy, nullable } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

/** Another request with the same requestId committed first; the caller re-reads it and replays. */
export class RequestIdRace extends Data.TaggedError("RequestIdRace") {}

/** Another cancellation or reschedule with the same id committed first; the caller re-reads it and replays. */
export class ChangeIdRace extends Data.TaggedError("ChangeIdRace") {}

/** A cancellation's or reschedule's id as stored: the request it changed, the kind and the body's fingerprint. */
export interface BookingRequestChange {
  readonly bookingId: string
  readonly kind: "cancel" | "reschedule"
  readonly fingerprint: string
}

const EXCLUSION = "booking_requests_no_overlap"
const REQUEST_ID_KEY = "booking_requests_request_id_key"
const CHANGE_KEY = "booking_request_changes_pkey"

// JSON keeps instants as ISO strings; these are the fields of the breakdown that are instants.
const reviveLine = (line: Record<string, unknown>) =>
  line["kind"] === "resource"
    ? { ...line, start: new Date(line["start"] as string), end: new Date(line["end"] as string) }
    : { ...line, deliverAt: new Date(line["deliverAt"] as string) }

const priceFromJson = (json: Record<string, unknown>): PriceBreakdown =>
  ({ ...json, lines: (json["lines"] as Array<Record<string, unknown>>).map(reviveLine) }) as unknown as PriceBreakdown

// The range's bounds as timestamps (its text form is driver-specific).
const bounds = [sql<Date>`lower(blocked)`.as("blockedStart"), sql<Date>`upper(blocked)`.as("blockedEnd")] as const

type Row = Selectable<BookingRequestTable> & { readonly blockedStart: Date; readonly blockedEnd: Date }

const toRecord = (row: Row): BookingRequestRecord => {
  const time: BookingTime =
    row.checkInDate !== null && row.checkOutDate !== null
      ? { _tag: "Stay", checkInDate: row.checkInDate, checkOutDate: row.checkOutDate }
      : { _tag: "Period", start: row.startsAt, end: row.endsAt }
  return {
    id: row.id,
    requestId: row.requestId,
    fingerprint: row.fingerprint,
    organizationId: row.organizationId,
    operationalContextId: row.operationalContextId,
    resourceId: row.resourceId,
    requestedBy: row.applicationId,
    status: row.status,
    time,
    start: row.startsAt,
    end: row.endsAt,
    blockedStart: new Date(row.blockedStart),
    blockedEnd: new Date(row.blockedEnd),
    ...(row.nights === null ? {} : { nights: row.nights }),
    guest: { name: row.guestName, email: row.guestEmail, ...(row.guestPhone === null ? {} : { phone: row.guestPhone }) },
    ...(row.companyCountry === null || row.companyOrganisationNumber === null
      ? {}
      : {
          company: {
            country: row.companyCountry as "SE",
            organisationNumber: row.companyOrganisationNumber,
            name: row.companyName ?? ""
          }
        }),
    ...(row.message === null ? {} : { message: row.message }),
    addOns: row.addOns.map((line) => ({ ...line, deliverAt: new Date(line.deliverAt) })),
    price: priceFromJson(row.price),
    holdExpiresAt: row.holdExpiresAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    ...(row.approvedAt === null ? {} : { approvedAt: row.approvedAt }),
    ...(row.declinedAt === null ? {} : { declinedAt: row.declinedAt }),
    ...(row.declineReason === null ? {} : { declineReason: row.declineReason }),
    ...(row.expiredAt === null ? {} : { expiredAt: row.expiredAt }),
    ...(row.cancelledAt === null ? {} : { cancelledAt: row.cancelledAt }),
    ...(row.cancelledBy === null ? {} : { cancelledBy: row.cancelledBy }),
    ...(row.cancellationReason === null ? {} : { cancellationReason: row.cancellationReason }),
    ...(row.lateCancellation === null
      ? {}
      : { lateCancellation: row.lateCancellation as unknown as NonNullable<BookingRequestRecord["lateCancellation"]> }),
    ...(row.rescheduledAt === null ? {} : { rescheduledAt: row.rescheduledAt })
  }
}

/** The columns of a request's booked time and price (written by an insert and by a reschedule). */
const timeColumns = (record: BookingRequestRecord) => ({
  checkInDate: record.time._tag === "Stay" ? record.time.checkInDate : null,
  checkOutDate: record.time._tag === "Stay" ? record.time.checkOutDate : null,
  startsAt: record.start,
  endsAt: record.end,
  blocked: sql<string>`tstzrange(${record.blockedStart}::timestamptz, ${record.blockedEnd}::timestamptz)`,
  nights: nullable(record.nights),
  addOns: JSON.stringify(record.addOns),
  price: JSON.stringify(record.price),
  totalNetMinorUnits: record.price.totalNetMinorUnits,
  totalVatMinorUnits: record.price.totalVatMinorUnits,
  totalGrossMinorUnits: record.price.totalGrossMinorUnits,
  holdExpiresAt: record.holdExpiresAt
})

const slotTaken = (violation: Sql.ConstraintViolation): SlotTaken | undefined =>
  violation.kind === "exclusion" && violation.constraint === EXCLUSION
    ? new SlotTaken({ detail: "Another booking holds part of this time." })
    : undefined

/**
 * What an Application's list of its own booking requests is narrowed by: the status it reads as at `now` (a
 * pending request past its hold reads `expired`), the resource, and a period the booking overlaps (`from`
 * inclusive, `to` exclusive; either may be absent).
 */
export interface BookingRequestFilters {
  readonly status?: BookingRequestRecord["status"]
  readonly resourceId?: string
  readonly from?: Date
  readonly to?: Date
}

/** A request of the organization by id; locked (`for update`) when `lock` is true. */
/** The period of a live booking, without its buffers. */
interface LivePeriod {
  readonly start: Date
  readonly end: Date
}

/** Bookings of `resourceIds` live at `now` (approved, or pending with a hold running) that overlap `[from, to)`. */
const live = (db: Kysely<Database>, resourceIds: ReadonlyArray<string>, from: Date, to: Date, now: Date) =>
  db
    .selectFrom("bookingRequests")
    .where("resourceId", "in", resourceIds)
    .where("startsAt", "<", to)
    .where("endsAt", ">", from)
    .where((eb) => eb.or([eb("status", "=", "approved"), eb.and([eb("status", "=", "pending"), eb("holdExpiresAt", ">", now)])]))

const requestOf = (organizationId: string, id: string, lock: boolean) =>
  Sql.query((db) => {
    const query = db.selectFrom("bookingRequests").selectAll().select(bounds).where("organizationId", "=", organizationId).where("id", "=", id)
    return (lock ? query.forUpdate() : query).executeTakeFirst()
  }).pipe(Effect.map((row) => (row === undefined ? undefined : toRecord(row))))

/** A request an Application made, by id; locked (`for update`) when `lock` is true. */
const requestOfApplication = (organizationId: string, applicationId: string, id: string, lock: boolean) =>
  Sql.query((db) => {
    const query = db
      .selectFrom("bookingRequests")
      .selectAll()
      .select(bounds)
      .where("organizationId", "=", organizationId)
      .where("applicationId", "=", applicationId)
      .where("id", "=", id)
    return (lock ? query.forUpdate() : query).executeTakeFirst()
  }).pipe(Effect.map((row) => (row === undefined ? undefined : toRecord(row))))

export class BookingRequestRepository extends Effect.Service<BookingRequestRepository>()(
  "@propline/api/booking/BookingRequestRepository",
  {
    succeed: {
      /** A request an Application made, by id; undefined when missing or another Application's. */
      findForApplication: (organizationId: string, applicationId: string, id: string) =>
        requestOfApplication(organizationId, applicationId, id, false),

      /**
       * An Application's booking requests in the organization, oldest first by `(created_at, id)` (the index
       * `booking_requests_application_idx`), `limit + 1` rows keyed for {@link CursorPage.page}.
       */
      listForApplication: (
        organizationId: string,
        applicationId: string,
        filters: BookingRequestFilters,
        now: Date,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        Sql.query((db) => {
          let query = db
            .selectFrom("bookingRequests")
            .selectAll()
            .select(bounds)
            .select(CursorPage.sortKey("bookingRequests.createdAt").as("cursorAt"))
            .where("organizationId", "=", organizationId)
            .where("applicationId", "=", applicationId)
          if (filters.resourceId !== undefined) query = query.where("resourceId", "=", filters.resourceId)
          if (filters.from !== undefined) query = query.where("endsAt", ">", filters.from)
          if (filters.to !== undefined) query = query.where("startsAt", "<", filters.to)
          const status = filters.status
          if (status === "pending") query = query.where("status", "=", "pending").where("holdExpiresAt", ">", now)
          else if (status === "expired") {
            query = query.where((eb) =>
              eb.or([eb("status", "=", "expired"), eb.and([eb("status", "=", "pending"), eb("holdExpiresAt", "<=", now)])])
            )
          } else if (status !== undefined) query = query.where("status", "=", status)
          if (after !== undefined) query = query.where(CursorPage.after("bookingRequests.createdAt", "bookingRequests.id", after))
          return query.orderBy("createdAt").orderBy("id").limit(limit + 1).execute()
        }).pipe(
          Effect.map((rows) =>
            rows.map(({ cursorAt, ...row }) => ({ record: toRecord(row), position: { at: cursorAt, id: row.id } }))
          )
        ),

      /** The request an Application made with `requestId`, if any. */
      findByRequestId: (applicationId: string, requestId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("bookingRequests")
            .selectAll()
            .select(bounds)
            .where("applicationId", "=", applicationId)
            .where("requestId", "=", requestId)
            .executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toRecord(row)))),

      /** A request of the organization, locked for the transaction (operators' decisions); undefined when missing. */
      lock: (organizationId: string, id: string) => requestOf(organizationId, id, true),

      /** A request of the organization, not locked (the events publisher renders it); undefined when missing. */
      find: (organizationId: string, id: string) => requestOf(organizationId, id, false),

      /**
       * The periods of a resource's live bookings — approved, or pending with a hold running at `now` — that
       * overlap `[from, to)`; without the request `exceptId` (the one a reschedule moves).
       */
      livePeriods: (resourceId: string, from: Date, to: Date, now: Date, exceptId?: string) =>
        Sql.query((db) =>
          live(db, [resourceId], from, to, now)
            .select(["startsAt as start", "endsAt as end"])
            .$if(exceptId !== undefined, (query) => query.where("id", "<>", exceptId ?? ""))
            .orderBy("startsAt")
            .execute()
        ),

      /**
       * {@link livePeriods} of several resources in one statement (a search across resources), by resource id;
       * a resource with none is absent.
       */
      livePeriodsOf: (resourceIds: ReadonlyArray<string>, from: Date, to: Date, now: Date) =>
        resourceIds.length === 0
          ? Effect.succeed(new Map<string, Array<LivePeriod>>())
          : Sql.query((db) =>
              live(db, resourceIds, from, to, now).select(["resourceId", "startsAt as start", "endsAt as end"]).orderBy("startsAt").execute()
            ).pipe(Effect.map((rows) => groupedBy(rows, (row) => row.resourceId, (row): LivePeriod => ({ start: row.start, end: row.end })))),

      /** A resource's pending requests whose hold has run out at `now`, locked. */
      staleHolds: (resourceId: string, now: Date) =>
        Sql.query((db) =>
          db
            .selectFrom("bookingRequests")
            .selectAll()
            .select(bounds)
            .where("resourceId", "=", resourceId)
            .where("status", "=", "pending")
            .where("holdExpiresAt", "<=", now)
            .forUpdate()
            .execute()
        ).pipe(Effect.map((rows) => rows.map(toRecord))),

      /**
       * Inserts a new request. Fails with `SlotTaken` when the exclusion constraint refuses it and with
       * {@link RequestIdRace} when the Application's requestId was taken meanwhile.
       */
      insert: (record: BookingRequestRecord) =>
        Sql.catchConstraintViolations(
          (db) =>
            db
              .insertInto("bookingRequests")
              .values({
                id: record.id,
                organizationId: record.organizationId,
                operationalContextId: record.operationalContextId,
                resourceId: record.resourceId,
                applicationId: record.requestedBy,
                requestId: record.requestId,
                fingerprint: record.fingerprint,
                status: record.status,
                ...timeColumns(record),
                guestName: record.guest.name,
                guestEmail: record.guest.email,
                guestPhone: nullable(record.guest.phone),
                companyCountry: record.company?.country ?? null,
                companyOrganisationNumber: record.company?.organisationNumber ?? null,
                companyName: record.company?.name ?? null,
                message: nullable(record.message),
                currency: record.price.currency,
                approvedAt: null,
                declinedAt: null,
                declineReason: null,
                expiredAt: null,
                cancelledAt: null,
                cancelledBy: null,
                cancellationReason: null,
                lateCancellation: null,
                rescheduledAt: null,
                createdAt: record.createdAt,
                updatedAt: record.updatedAt
              })
              .execute(),
          (violation): SlotTaken | RequestIdRace | undefined => {
            const taken = slotTaken(violation)
            if (taken !== undefined) return taken
            if (violation.kind === "unique" && violation.constraint === REQUEST_ID_KEY) return new RequestIdRace()
            return undefined
          }
        ).pipe(Effect.asVoid),

      /** Writes a decision or an expiry: status and its timestamps. */
      updateStatus: (record: BookingRequestRecord) =>
        Sql.query((db) =>
          db
            .updateTable("bookingRequests")
            .set({
              status: record.status,
              approvedAt: nullable(record.approvedAt),
              declinedAt: nullable(record.declinedAt),
              declineReason: nullable(record.declineReason),
              expiredAt: nullable(record.expiredAt),
              cancelledAt: nullable(record.cancelledAt),
              cancelledBy: nullable(record.cancelledBy),
              cancellationReason: nullable(record.cancellationReason),
              lateCancellation: record.lateCancellation === undefined ? null : JSON.stringify(record.lateCancellation),
              updatedAt: record.updatedAt
            })
            .where("id", "=", record.id)
            .execute()
        ).pipe(Effect.asVoid),

      /**
       * Writes a reschedule: the new time, buffered span, add-ons, price and hold. Fails with `SlotTaken` when the
       * exclusion constraint refuses the new span.
       */
      reschedule: (record: BookingRequestRecord) =>
        Sql.catchConstraintViolations(
          (db) =>
            db
              .updateTable("bookingRequests")
              .set({ ...timeColumns(record), rescheduledAt: nullable(record.rescheduledAt), updatedAt: record.updatedAt })
              .where("id", "=", record.id)
              .execute(),
          slotTaken
        ).pipe(Effect.asVoid),

      /** A cancellation's or reschedule's id the Application used before, if any. */
      findChange: (applicationId: string, changeId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("bookingRequestChanges")
            .select(["bookingId", "kind", "fingerprint"])
            .where("applicationId", "=", applicationId)
            .where("changeId", "=", changeId)
            .executeTakeFirst()
        ).pipe(Effect.map((row): BookingRequestChange | undefined => row)),

      /** Records a cancellation's or reschedule's id; {@link ChangeIdRace} when the Application's id was taken meanwhile. */
      insertChange: (applicationId: string, changeId: string, change: BookingRequestChange, at: Date) =>
        Sql.catchConstraintViolations(
          (db) =>
            db
              .insertInto("bookingRequestChanges")
              .values({ applicationId, changeId, ...change, createdAt: at })
              .execute(),
          (violation) => (violation.kind === "unique" && violation.constraint === CHANGE_KEY ? new ChangeIdRace() : undefined)
        ).pipe(Effect.asVoid),

      /** A request an Application made, locked for the transaction; undefined when missing or another's. */
      lockForApplication: (organizationId: string, applicationId: string, id: string) =>
        requestOfApplication(organizationId, applicationId, id, true)
    }
  }
) {}
