/**
 * The peer's `/v1` routes (see `PeerServer.ts`), a Fastify plugin: the billing and booking hot paths as a
 * conventional Fastify + kysely server writes them. Reads the benchmark compares byte for byte with the product
 * (the billing scope, the send-queue page, the booking resource) run the shared statement texts through kysely
 * (`CompiledQuery.raw`, rows through the CamelCasePlugin); the writes of pass and report-payment run the product's
 * statements in its order inside `db.transaction()`: the scope with the row locked as the shared text
 * (`scopeLockingStatement`), the rest with kysely's query builder (`sql` fragments where it has no builder: `array(…)`,
 * literal columns of a `union all`). Answers go through Fastify's response schemas (fast-json-stringify); bodies,
 * paths and query strings are validated by its JSON schemas.
 *
 * - `GET /billing/send-queue?limit&cursor`: the scope, then the page; `{ items, nextCursor }`.
 * - `POST /billing/invoice-proposals/:proposalId/pass` `{externalReference}`: scope with the proposal locked, charges
 *   locked with the externalReference check, invoice + lines + charges + three events + audit + proposal (one
 *   statement); 201 `{proposal, invoice}`.
 * - `POST /billing/invoices/:invoiceId/report-payment` `{paymentId, amountMinorUnits, paidOn, currency}`: scope with
 *   the invoice locked, the ledger (payments and write-offs) in one read, payment + event + audit + invoice (one
 *   statement); 200 with the invoice.
 * - `GET /booking/resources/:resourceId/availability?from&to&durationMinutes` and `POST /booking/booking-requests/preview`.
 */
import { randomUUID } from "node:crypto"
import type { Database } from "@propline/db/Database"
import { bookableStarts, freePeriods } from "@propline/booking/Availability"
import { checkBooking } from "@propline/booking/BookingCheck"
import type { AddOnProduct } from "@propline/booking/AddOnProduct"
import type { BookableResource } from "@propline/booking/Resource"
import type { FastifyPluginAsync, FastifyReply } from "fastify"
import { CompiledQuery, type Kysely, type QueryCreator, type Selectable, sql, type Transaction } from "kysely"
import {
  LOCKED_INVOICE,
  LOCKED_PROPOSAL,
  passEvents,
  type LockedRow,
  scopeLockingStatement,
  sendQueueCursor,
  sendQueueWithScopeSql
} from "../internal/BaselineBilling.js"
import { LIVE_BOOKINGS_SQL, OFFERED_ADD_ONS_SQL, SELLABLE_RESOURCE_SQL } from "../internal/BookingStatements.js"

/** What a verified access token says. */
export interface Principal {
  readonly organizationId: string
  readonly contextIds: ReadonlyArray<string>
  readonly clientId: string
  readonly subject: string
}

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal
  }
}

export interface PeerDependencies {
  readonly db: Kysely<Database>
  readonly authenticate: (authorization: string | undefined) => Promise<Principal | undefined>
  readonly applicationId: string
}

const uuid = { type: "string", format: "uuid" } as const
const nullable = (type: string, format?: string) => ({ type: [type, "null"], ...(format === undefined ? {} : { format }) })
const dateTime = { type: "string", format: "date-time" } as const

/** The columns both documents share, as the response schema's properties (camelCase, as kysely returns them). */
const documentProperties = {
  id: uuid,
  organizationId: uuid,
  invoiceRunId: uuid,
  operationalContextId: uuid,
  contractId: uuid,
  recipientAgentId: uuid,
  recipientAgentName: { type: "string" },
  billingAccountId: uuid,
  documentKind: { type: "string" },
  creditedInvoiceId: nullable("string"),
  billingStream: { type: "string" },
  requestedInvoiceDate: { type: "string" },
  requestedDueDate: nullable("string"),
  paymentTermsDays: nullable("integer"),
  currency: { type: "string" },
  totalNetMinorUnits: { type: "integer" },
  totalVatMinorUnits: { type: "integer" },
  totalGrossMinorUnits: { type: "integer" },
  externalReference: nullable("string"),
  createdAt: dateTime,
  updatedAt: dateTime
} as const

const invoiceSchema = {
  type: "object",
  properties: {
    ...documentProperties,
    invoiceNumber: { type: "integer" },
    status: { type: "string" },
    issuedInvoiceNumber: nullable("string"),
    issuedInvoiceDate: nullable("string"),
    dueDate: nullable("string"),
    issuedTotalGrossMinorUnits: nullable("integer"),
    paymentReference: nullable("string"),
    paymentReferenceType: nullable("string"),
    documentUrl: nullable("string"),
    balanceMinorUnits: nullable("integer"),
    approvedAt: nullable("string", "date-time"),
    sentAt: nullable("string", "date-time"),
    paidAt: nullable("string", "date-time"),
    writtenOffAt: nullable("string", "date-time"),
    failedAt: nullable("string", "date-time"),
    failureReason: nullable("string")
  }
} as const

const proposalSchema = {
  type: "object",
  properties: {
    ...documentProperties,
    invoiceNumber: nullable("integer"),
    status: { type: "string" },
    rejectionReason: nullable("string"),
    passedAt: nullable("string", "date-time"),
    rejectedAt: nullable("string", "date-time"),
    cancelledAt: nullable("string", "date-time"),
    invoiceId: nullable("string")
  }
} as const

const problemSchema = { type: "object", properties: { code: { type: "string" }, status: { type: "integer" } } } as const
const problems = { "4xx": problemSchema } as const

const problem = (reply: FastifyReply, status: number, code: string) => reply.code(status).send({ code, status })

interface Scope {
  readonly declaredGates: Array<string> | null
  readonly contextIds: Array<string>
}

type ProposalRow = Selectable<Database["invoiceProposals"]>

/** The columns a pass copies from a proposal's lines onto its invoice's. */
const copiedLineColumns = [
  "chargeId",
  "position",
  "description",
  "netMinorUnits",
  "vatRateBasisPoints",
  "vatMinorUnits",
  "grossMinorUnits"
] as const
type InvoiceRow = Selectable<Database["invoices"]>

/** The events of a write (one insert), as a CTE of its one statement (`appended`, as the product's). */
const appendEvents = (db: QueryCreator<Database>, organizationId: string, events: ReadonlyArray<{ readonly _tag: string }>, at: Date) =>
  db
    .insertInto("events")
    .values(events.map((event) => ({ id: randomUUID(), organizationId, type: event._tag, payload: JSON.stringify(event), occurredAt: at }) as never))

/** The audit entry of a write, as a CTE of its one statement (`audited`, as the product's). */
const audit = (
  db: QueryCreator<Database>,
  principal: Principal,
  entry: { readonly action: string; readonly targetType: string; readonly targetId: string; readonly details: object; readonly at: Date }
) =>
  db
    .insertInto("auditLog")
    .values({
      id: randomUUID(),
      organizationId: principal.organizationId,
      actorType: "application",
      actorId: principal.subject,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId,
      requestId: randomUUID(),
      details: JSON.stringify(entry.details),
      occurredAt: entry.at
    } as never)

/** The peer's billing and booking routes; register under `/v1`. */
export const peerRoutes =
  (deps: PeerDependencies): FastifyPluginAsync =>
  async (app) => {
    const { db } = deps
    app.decorateRequest("principal", null as unknown as Principal)
    app.addHook("onRequest", async (request, reply) => {
      const principal = await deps.authenticate(request.headers.authorization)
      if (principal === undefined) return problem(reply, 401, "unauthorized")
      request.principal = principal
    })

    /**
     * The billing scope and, in the same statement, the `target` row locked `for update` if it lies in a visible
     * context (the API's `scopeLocking`, its shared text: a recursive CTE and a locking CTE left-joined to the
     * scope, which kysely's builder can't write as one select).
     */
    const scopeLocking = async <Row extends { readonly id: string }>(
      trx: Transaction<Database>,
      principal: Principal,
      target: LockedRow,
      id: string
    ): Promise<{ readonly declaredGates: Array<string> | null; readonly row: Row | undefined }> => {
      const found = (
        await trx.executeQuery<Scope & { readonly id: string | null }>(
          CompiledQuery.raw(scopeLockingStatement(principal.contextIds.length, target), [
            principal.organizationId,
            ...principal.contextIds,
            id,
            principal.organizationId,
            principal.organizationId
          ])
        )
      ).rows[0]
      if (found === undefined) return { declaredGates: null, row: undefined }
      const { declaredGates, contextIds: _contextIds, ...row } = found
      return { declaredGates, row: row.id === null ? undefined : (row as unknown as Row) }
    }

    app.get<{ Querystring: { limit: number; cursor?: string } }>(
      "/billing/send-queue",
      {
        schema: {
          querystring: {
            type: "object",
            properties: { limit: { type: "integer", minimum: 1, maximum: 100, default: 50 }, cursor: { type: "string", maxLength: 200 } }
          },
          response: {
            200: { type: "object", properties: { items: { type: "array", items: invoiceSchema }, nextCursor: nullable("string") } },
            ...problems
          }
        }
      },
      async (request, reply) => {
        const { limit, cursor } = request.query
        let after: { t: string; i: string } | undefined
        if (cursor !== undefined) {
          try {
            after = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { t: string; i: string }
          } catch {
            return problem(reply, 400, "invalid_cursor")
          }
          if (typeof after?.t !== "string" || typeof after.i !== "string") return problem(reply, 400, "invalid_cursor")
        }
        const principal = request.principal
        const found = (
          await db.executeQuery<{ billingConfigured: boolean; id: string | null; cursorAt: string }>(
            CompiledQuery.raw(sendQueueWithScopeSql(principal.contextIds.length, after !== undefined), [
              principal.organizationId,
              ...principal.contextIds,
              ...(after === undefined ? [] : [after.t, after.i]),
              limit + 1
            ])
          )
        ).rows
        if (found[0]?.billingConfigured !== true) return problem(reply, 409, "integration_not_ready")
        const rows = found[0].id === null ? [] : (found as ReadonlyArray<{ id: string; cursorAt: string }>)
        return { items: rows.slice(0, limit), nextCursor: sendQueueCursor(rows, limit, (row) => row.cursorAt) }
      }
    )

    app.post<{ Params: { proposalId: string }; Body: { externalReference: string } }>(
      "/billing/invoice-proposals/:proposalId/pass",
      {
        schema: {
          params: { type: "object", properties: { proposalId: uuid }, required: ["proposalId"] },
          body: {
            type: "object",
            properties: { externalReference: { type: "string", minLength: 1, maxLength: 200 } },
            required: ["externalReference"],
            additionalProperties: false
          },
          response: { 201: { type: "object", properties: { proposal: proposalSchema, invoice: invoiceSchema } }, ...problems }
        }
      },
      async (request, reply) => {
        const { proposalId } = request.params
        const { externalReference } = request.body
        const principal = request.principal
        const organizationId = principal.organizationId
        const outcome = await db.transaction().execute(async (trx) => {
          const { declaredGates, row: proposal } = await scopeLocking<ProposalRow>(trx, principal, LOCKED_PROPOSAL, proposalId)
          if (declaredGates === null || !declaredGates.includes("verification")) {
            return { status: 409, code: "integration_not_ready" } as const
          }
          if (proposal === undefined) return { status: 404, code: "not_found" } as const
          if (proposal.status !== "proposed" || proposal.invoiceNumber === null) {
            return { status: 409, code: "proposal_not_proposed" } as const
          }
          const facts = await trx
            .with("charged", (db) =>
              db
                .selectFrom("charges")
                .select(["id", "invoiceId"])
                .where("id", "in", (qb) =>
                  qb.selectFrom("documentLines").select("chargeId").where("proposalId", "=", proposalId).where("chargeId", "is not", null)
                )
                .forUpdate()
            )
            .selectNoFrom((eb) => [
              sql<Array<string>>`array(${eb.selectFrom("charged").select("id")})`.as("chargeIds"),
              eb.exists(eb.selectFrom("charged").select(eb.lit(1).as("one")).where("invoiceId", "is not", null)).as("alreadyInvoiced"),
              eb
                .exists(
                  eb
                    .selectFrom("invoices")
                    .select(eb.lit(1).as("one"))
                    .where("organizationId", "=", organizationId)
                    .where("externalReference", "=", externalReference)
                )
                .as("externalReferenceTaken")
            ])
            .executeTakeFirstOrThrow()
          if (facts.alreadyInvoiced || facts.externalReferenceTaken) return { status: 409, code: "conflict" } as const
          const now = new Date()
          const invoiceId = randomUUID()
          // The invoice carries the proposal's document columns (the row as locked: no invoiceId among them).
          const {
            id: _id,
            status: _status,
            externalReference: _externalReference,
            createdAt: _createdAt,
            updatedAt: _updatedAt,
            rejectionReason: _rejectionReason,
            passedAt: _passedAt,
            rejectedAt: _rejectedAt,
            cancelledAt: _cancelledAt,
            invoiceId: _invoiceId,
            ...document
          } = proposal
          const invoice = {
            ...document,
            id: invoiceId,
            status: "approved",
            externalReference,
            approvedAt: now,
            createdAt: now,
            updatedAt: now
          }
          const events = passEvents(organizationId, proposalId, invoiceId, proposal.operationalContextId, now)
          const change = {
            action: "billing.invoice_proposal.pass",
            targetType: "invoice_proposal",
            targetId: proposalId,
            details: { externalReference, invoiceId },
            at: now
          }
          // The invoice, its lines, the charges, the events, the audit entry and the proposal's verdict in one
          // statement (data-modifying CTEs, in the product's order).
          const writes = trx
            .with("invoice", (db) => db.insertInto("invoices").values(invoice as never))
            .with("lines", (db) =>
              db
                .insertInto("documentLines")
                .columns(["id", "proposalId", "invoiceId", ...copiedLineColumns])
                .expression((eb) =>
                  eb
                    .selectFrom("documentLines")
                    .select((s) => [
                      s.fn<string>("gen_random_uuid").as("id"),
                      s.val(null).as("proposalId"),
                      s.val(invoiceId).as("invoiceId"),
                      ...copiedLineColumns
                    ])
                    .where("proposalId", "=", proposalId)
                )
            )
          const verdict = {
            status: "passed",
            externalReference,
            rejectionReason: null,
            passedAt: now,
            rejectedAt: null,
            cancelledAt: null,
            updatedAt: now,
            invoiceId
          } as const
          // The charges' CTE only when there are charges (its type differs; the query is the same builder).
          const charged =
            facts.chargeIds.length === 0
              ? writes
              : (writes.with("charged", (db) =>
                  db.updateTable("charges").set({ invoiceId }).where("id", "in", facts.chargeIds)
                ) as unknown as typeof writes)
          const passed = await charged
            .with("appended", (db) => appendEvents(db, organizationId, events, now))
            .with("audited", (db) => audit(db, principal, change))
            .updateTable("invoiceProposals")
            .set(verdict)
            .where("id", "=", proposalId)
            .returningAll()
            .executeTakeFirstOrThrow()
          return { status: 201, body: { proposal: passed, invoice } } as const
        })
        if (outcome.status !== 201) return problem(reply, outcome.status, outcome.code)
        return reply.code(201).send(outcome.body)
      }
    )

    app.post<{
      Params: { invoiceId: string }
      Body: { paymentId: string; amountMinorUnits: number; paidOn: string; currency: string }
    }>(
      "/billing/invoices/:invoiceId/report-payment",
      {
        schema: {
          params: { type: "object", properties: { invoiceId: uuid }, required: ["invoiceId"] },
          body: {
            type: "object",
            properties: {
              paymentId: { type: "string", minLength: 1, maxLength: 200 },
              amountMinorUnits: { type: "integer", minimum: 1 },
              paidOn: { type: "string", format: "date" },
              currency: { type: "string", pattern: "^[A-Z]{3}$" }
            },
            required: ["paymentId", "amountMinorUnits", "paidOn", "currency"],
            additionalProperties: false
          },
          response: { 200: invoiceSchema, ...problems }
        }
      },
      async (request, reply) => {
        const { invoiceId } = request.params
        const { paymentId, amountMinorUnits, paidOn, currency } = request.body
        const principal = request.principal
        const organizationId = principal.organizationId
        const outcome = await db.transaction().execute(async (trx) => {
          const { declaredGates, row: invoice } = await scopeLocking<InvoiceRow>(trx, principal, LOCKED_INVOICE, invoiceId)
          if (invoice === undefined) return { status: 404, code: "not_found" } as const
          if (declaredGates === null) return { status: 409, code: "integration_not_ready" } as const
          // The ledger in one read: payments with their reversals, then write-offs.
          const ledger = await trx
            .selectFrom("payments as p")
            .leftJoin("paymentReversals as r", "r.paymentRowId", "p.id")
            .select((eb) => [
              sql<boolean>`false`.as("writeOff"),
              "p.paymentId as reportId",
              "p.amountMinorUnits",
              "p.paidOn as on",
              eb.ref("p.currency").$castTo<string | null>().as("currency"),
              "p.recordedAt",
              "r.reversedOn",
              "r.reason",
              "r.recordedAt as reversalRecordedAt",
              "p.id as rowId"
            ])
            .where("p.invoiceId", "=", invoiceId)
            .unionAll((eb) =>
              eb
                .selectFrom("writeOffs")
                .select([
                  sql<boolean>`true`.as("writeOff"),
                  "writeOffId as reportId",
                  "amountMinorUnits",
                  "writtenOffOn as on",
                  sql<string | null>`null`.as("currency"),
                  "recordedAt",
                  sql<string | null>`null`.as("reversedOn"),
                  "reason",
                  sql<Date | null>`null`.as("reversalRecordedAt"),
                  "id as rowId"
                ])
                .where("invoiceId", "=", invoiceId)
            )
            .orderBy("writeOff")
            .orderBy("recordedAt")
            .orderBy("rowId")
            .execute()
          if (ledger.some((entry) => !entry.writeOff && entry.reportId === paymentId)) return { status: 200, body: invoice } as const
          if (!["sent", "paid", "written-off"].includes(invoice.status)) return { status: 409, code: "invoice_not_sent" } as const
          if (invoice.currency !== currency) return { status: 422, code: "currency_mismatch" } as const
          const now = new Date()
          const settled = ledger
            .filter((entry) => entry.writeOff || entry.reversedOn === null)
            .reduce((sum, entry) => sum + Number(entry.amountMinorUnits), 0)
          const balance = Number(invoice.issuedTotalGrossMinorUnits) - settled - amountMinorUnits
          const status = balance <= 0 ? "paid" : invoice.status
          const paidAt = status === "paid" && invoice.status !== "paid" ? now : invoice.paidAt
          const event = {
            _tag: "billing.invoice.payment_recorded",
            invoiceId,
            organizationId,
            operationalContextId: invoice.operationalContextId,
            at: now.toISOString(),
            paymentId
          }
          // The payment, its event, its audit entry and the invoice in one statement (data-modifying CTEs).
          const updated = await trx
            .with("recorded", (db) =>
              db
                .insertInto("payments")
                .values({ id: randomUUID(), organizationId, invoiceId, paymentId, amountMinorUnits, paidOn, currency, recordedAt: now } as never)
            )
            .with("appended", (db) => appendEvents(db, organizationId, [event], now))
            .with("audited", (db) =>
              audit(db, principal, {
                action: "billing.invoice.report_payment",
                targetType: "invoice",
                targetId: invoiceId,
                details: { paymentId, amountMinorUnits, paidOn, currency },
                at: now
              })
            )
            .updateTable("invoices")
            .set({ status, balanceMinorUnits: balance, paidAt, updatedAt: now } as never)
            .where("id", "=", invoiceId)
            .returningAll()
            .executeTakeFirstOrThrow()
          return { status: 200, body: updated } as const
        })
        if (outcome.status !== 200) return problem(reply, outcome.status, outcome.code)
        return outcome.body
      }
    )

    type ResourceRow = Omit<BookableResource, "priceRules" | "nightStays"> & {
      readonly nightStays: BookableResource["nightStays"] | null
      readonly rules: Array<{
        id: string
        name: string
        unit: string
        amountMinorUnits: number | string
        vatRateBasisPoints: number
        weekdays: Array<number>
        windowFrom: string | null
        windowTo: string | null
      }>
    }

    const sellableResource = async (principal: Principal, resourceId: string): Promise<BookableResource | undefined> => {
      const row = (
        await db.executeQuery<ResourceRow>(
          CompiledQuery.raw(SELLABLE_RESOURCE_SQL, [principal.organizationId, principal.contextIds, deps.applicationId, resourceId])
        )
      ).rows[0]
      if (row === undefined) return undefined
      const { rules, nightStays, ...resource } = row
      return {
        ...resource,
        ...(nightStays === null || nightStays === undefined ? {} : { nightStays }),
        priceRules: rules.map((rule) => ({
          id: rule.id,
          name: rule.name,
          unit: rule.unit as BookableResource["priceRules"][number]["unit"],
          amountMinorUnits: Number(rule.amountMinorUnits),
          vatRateBasisPoints: rule.vatRateBasisPoints,
          weekdays: rule.weekdays as BookableResource["priceRules"][number]["weekdays"],
          ...(rule.windowFrom === null || rule.windowTo === null ? {} : { window: { from: rule.windowFrom, to: rule.windowTo } })
        }))
      }
    }

    const livePeriods = async (resourceId: string, from: Date, to: Date) =>
      (
        await db.executeQuery<{ startsAt: Date; endsAt: Date }>(CompiledQuery.raw(LIVE_BOOKINGS_SQL, [resourceId, from, to]))
      ).rows.map((row) => ({ start: row.startsAt, end: row.endsAt }))

    const period = { type: "object", properties: { start: dateTime, end: dateTime } } as const

    app.get<{ Params: { resourceId: string }; Querystring: { from: string; to: string; durationMinutes: number } }>(
      "/booking/resources/:resourceId/availability",
      {
        schema: {
          params: { type: "object", properties: { resourceId: uuid }, required: ["resourceId"] },
          querystring: {
            type: "object",
            properties: { from: dateTime, to: dateTime, durationMinutes: { type: "integer", minimum: 1, maximum: 100_000 } },
            required: ["from", "to", "durationMinutes"]
          },
          response: {
            200: {
              type: "object",
              properties: { resourceId: uuid, freePeriods: { type: "array", items: period }, startTimes: { type: "array", items: dateTime } }
            },
            ...problems
          }
        }
      },
      async (request, reply) => {
        const resource = await sellableResource(request.principal, request.params.resourceId)
        if (resource === undefined) return problem(reply, 404, "not_found")
        const window = { from: new Date(request.query.from), to: new Date(request.query.to) }
        const duration = request.query.durationMinutes
        const reach = (resource.bufferBeforeMinutes + resource.bufferAfterMinutes + duration) * 60_000
        const otherBookings = await livePeriods(resource.id, new Date(window.from.getTime() - reach), new Date(window.to.getTime() + reach))
        const now = new Date()
        const state = { resource, otherBookings }
        return {
          resourceId: resource.id,
          freePeriods: freePeriods(state, window, now),
          startTimes: bookableStarts(state, window, duration, now)
        }
      }
    )

    app.post<{ Body: { resourceId: string; period: { start: string; end: string } } }>(
      "/booking/booking-requests/preview",
      {
        schema: {
          body: {
            type: "object",
            properties: {
              resourceId: uuid,
              period: { type: "object", properties: { start: dateTime, end: dateTime }, required: ["start", "end"] }
            },
            required: ["resourceId", "period"]
          },
          response: {
            200: {
              type: "object",
              properties: {
                resourceId: uuid,
                start: dateTime,
                end: dateTime,
                price: { type: "object", additionalProperties: true }
              }
            },
            ...problems
          }
        }
      },
      async (request, reply) => {
        const resource = await sellableResource(request.principal, request.body.resourceId)
        if (resource === undefined) return problem(reply, 404, "not_found")
        const start = new Date(request.body.period.start)
        const end = new Date(request.body.period.end)
        const gap = (resource.bufferBeforeMinutes + resource.bufferAfterMinutes) * 60_000
        const [addOns, otherBookings] = await Promise.all([
          db.executeQuery<{ id: string; currency: string; retiredAt: Date | null }>(CompiledQuery.raw(OFFERED_ADD_ONS_SQL, [resource.id])),
          livePeriods(resource.id, new Date(start.getTime() - gap), new Date(end.getTime() + gap))
        ])
        const offeredAddOns = addOns.rows.map(
          (row) => ({ ...row, retired: row.retiredAt !== null }) as unknown as AddOnProduct
        )
        const checked = checkBooking(
          { resource, offeredAddOns, otherBookings },
          { time: { _tag: "Period", start, end }, addOns: [] },
          new Date()
        )
        if (checked._tag === "Left") return problem(reply, checked.left.status, checked.left.code)
        return { resourceId: resource.id, start, end, price: checked.right.price }
      }
    )
  }
