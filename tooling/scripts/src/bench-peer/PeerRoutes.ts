/**
 * The peer's `/v1` routes (see `PeerServer.ts`), a Fastify plugin: the billing and booking hot paths as a
 * conventional Fastify + kysely server writes them. Reads the benchmark compares byte for byte with the product
 * (the billing scope, the send-queue page, the booking resource) run the shared statement texts through kysely
 * (`CompiledQuery.raw`, rows through the CamelCasePlugin); the writes of pass and report-payment are kysely's query
 * builder, statement by statement in the API's order, inside `db.transaction()`. Answers go through Fastify's
 * response schemas (fast-json-stringify); bodies, paths and query strings are validated by its JSON schemas.
 *
 * - `GET /billing/send-queue?limit&cursor`: the scope, then the page; `{ items, nextCursor }`.
 * - `POST /billing/invoice-proposals/:proposalId/pass` `{externalReference}`: scope, proposal locked, charges
 *   locked, externalReference check, invoice, lines, charges, proposal, three events, audit; 201 `{proposal, invoice}`.
 * - `POST /billing/invoices/:invoiceId/report-payment` `{paymentId, amountMinorUnits, paidOn, currency}`: scope,
 *   invoice locked, payments and write-offs read, payment, invoice, event, audit; 200 with the invoice.
 * - `GET /booking/resources/:resourceId/availability?from&to&durationMinutes` and `POST /booking/booking-requests/preview`.
 */
import { randomUUID } from "node:crypto"
import type { Database } from "@propline/db/Database"
import { bookableStarts, freePeriods } from "@propline/booking/Availability"
import { checkBooking } from "@propline/booking/BookingCheck"
import type { AddOnProduct } from "@propline/booking/AddOnProduct"
import type { BookableResource } from "@propline/booking/Resource"
import type { FastifyPluginAsync, FastifyReply } from "fastify"
import { CompiledQuery, type Kysely, type Transaction } from "kysely"
import { scopeStatement, sendQueueCursor, sendQueueSql } from "../internal/BaselineBilling.js"
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

type Db = Kysely<Database> | Transaction<Database>

/** The events of a write, in its transaction (one insert). */
const appendEvents = (trx: Transaction<Database>, organizationId: string, events: ReadonlyArray<{ readonly _tag: string }>, at: Date) =>
  trx
    .insertInto("events")
    .values(events.map((event) => ({ id: randomUUID(), organizationId, type: event._tag, payload: JSON.stringify(event), occurredAt: at }) as never))
    .execute()

/** The audit entry of a write, in its transaction. */
const audit = (
  trx: Transaction<Database>,
  principal: Principal,
  entry: { readonly action: string; readonly targetType: string; readonly targetId: string; readonly details: object; readonly at: Date }
) =>
  trx
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
    .execute()

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

    const scope = async (executor: Db, principal: Principal): Promise<Scope | undefined> =>
      (
        await executor.executeQuery<Scope>(
          CompiledQuery.raw(scopeStatement(principal.contextIds.length), [
            principal.organizationId,
            ...principal.contextIds,
            principal.organizationId
          ])
        )
      ).rows[0]

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
        const found = await scope(db, principal)
        if (found === undefined || found.declaredGates === null) return problem(reply, 409, "integration_not_ready")
        const contextIds = found.contextIds
        const rows =
          contextIds.length === 0
            ? []
            : (
                await db.executeQuery<{ id: string; cursorAt: string }>(
                  CompiledQuery.raw(sendQueueSql(contextIds.length, after !== undefined), [
                    principal.organizationId,
                    ...contextIds,
                    ...(after === undefined ? [] : [after.t, after.i]),
                    limit + 1
                  ])
                )
              ).rows
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
          const found = await scope(trx, principal)
          if (found === undefined || found.declaredGates === null || !found.declaredGates.includes("verification")) {
            return { status: 409, code: "integration_not_ready" } as const
          }
          if (found.contextIds.length === 0) return { status: 404, code: "not_found" } as const
          const proposal = await trx
            .selectFrom("invoiceProposals")
            .selectAll()
            .where("id", "=", proposalId)
            .where("organizationId", "=", organizationId)
            .where("operationalContextId", "in", found.contextIds)
            .forUpdate()
            .executeTakeFirst()
          if (proposal === undefined) return { status: 404, code: "not_found" } as const
          if (proposal.status !== "proposed" || proposal.invoiceNumber === null) {
            return { status: 409, code: "proposal_not_proposed" } as const
          }
          const charges = await trx
            .selectFrom("charges")
            .select(["id", "invoiceId"])
            .where("id", "in", (qb) =>
              qb.selectFrom("documentLines").select("chargeId").where("proposalId", "=", proposalId).where("chargeId", "is not", null)
            )
            .forUpdate()
            .execute()
          const taken = await trx
            .selectFrom("invoices")
            .select("id")
            .where("organizationId", "=", organizationId)
            .where("externalReference", "=", externalReference)
            .execute()
          if (charges.some((charge) => charge.invoiceId !== null) || taken.length > 0) {
            return { status: 409, code: "conflict" } as const
          }
          const now = new Date()
          const invoiceId = randomUUID()
          const invoice = await trx
            .insertInto("invoices")
            .values({
              id: invoiceId,
              organizationId,
              invoiceRunId: proposal.invoiceRunId,
              operationalContextId: proposal.operationalContextId,
              contractId: proposal.contractId,
              recipientAgentId: proposal.recipientAgentId,
              recipientAgentName: proposal.recipientAgentName,
              billingAccountId: proposal.billingAccountId,
              documentKind: proposal.documentKind,
              creditedInvoiceId: proposal.creditedInvoiceId,
              billingStream: proposal.billingStream,
              requestedInvoiceDate: proposal.requestedInvoiceDate,
              requestedDueDate: proposal.requestedDueDate,
              paymentTermsDays: proposal.paymentTermsDays,
              invoiceNumber: proposal.invoiceNumber,
              status: "approved",
              currency: proposal.currency,
              totalNetMinorUnits: proposal.totalNetMinorUnits,
              totalVatMinorUnits: proposal.totalVatMinorUnits,
              totalGrossMinorUnits: proposal.totalGrossMinorUnits,
              externalReference,
              issuedInvoiceNumber: null,
              issuedInvoiceDate: null,
              dueDate: null,
              issuedTotalGrossMinorUnits: null,
              paymentReference: null,
              paymentReferenceType: null,
              documentUrl: null,
              balanceMinorUnits: null,
              sentAt: null,
              paidAt: null,
              writtenOffAt: null,
              failedAt: null,
              failureReason: null,
              approvedAt: now,
              createdAt: now,
              updatedAt: now
            } as never)
            .returningAll()
            .executeTakeFirstOrThrow()
          await trx
            .insertInto("documentLines")
            .columns([
              "id",
              "proposalId",
              "invoiceId",
              "chargeId",
              "position",
              "description",
              "netMinorUnits",
              "vatRateBasisPoints",
              "vatMinorUnits",
              "grossMinorUnits"
            ])
            .expression((eb) =>
              eb
                .selectFrom("documentLines")
                .select((s) => [
                  s.fn<string>("gen_random_uuid").as("id"),
                  s.val(null).as("proposalId"),
                  s.val(invoiceId).as("invoiceId"),
                  "chargeId",
                  "position",
                  "description",
                  "netMinorUnits",
                  "vatRateBasisPoints",
                  "vatMinorUnits",
                  "grossMinorUnits"
                ])
                .where("proposalId", "=", proposalId)
            )
            .execute()
          if (charges.length > 0) {
            await trx
              .updateTable("charges")
              .set({ invoiceId })
              .where("id", "in", charges.map((charge) => charge.id))
              .execute()
          }
          const passed = await trx
            .updateTable("invoiceProposals")
            .set({ status: "passed", externalReference, passedAt: now, updatedAt: now, invoiceId })
            .where("id", "=", proposalId)
            .returningAll()
            .executeTakeFirstOrThrow()
          const context = proposal.operationalContextId
          const at = now.toISOString()
          const events = [
            { _tag: "billing.invoice_proposal.passed", proposalId, organizationId, operationalContextId: context, at, invoiceId },
            { _tag: "billing.invoice.created", invoiceId, organizationId, operationalContextId: context, at },
            { _tag: "billing.invoice.approved", invoiceId, organizationId, operationalContextId: context, at }
          ]
          await appendEvents(trx, organizationId, events, now)
          await audit(trx, principal, {
            action: "billing.invoice_proposal.pass",
            targetType: "invoice_proposal",
            targetId: proposalId,
            details: { externalReference, invoiceId },
            at: now
          })
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
          const found = await scope(trx, principal)
          if (found === undefined || found.declaredGates === null) return { status: 409, code: "integration_not_ready" } as const
          if (found.contextIds.length === 0) return { status: 404, code: "not_found" } as const
          const invoice = await trx
            .selectFrom("invoices")
            .selectAll()
            .where("id", "=", invoiceId)
            .where("organizationId", "=", organizationId)
            .where("operationalContextId", "in", found.contextIds)
            .where("deletedAt", "is", null)
            .forUpdate()
            .executeTakeFirst()
          if (invoice === undefined) return { status: 404, code: "not_found" } as const
          const payments = await trx
            .selectFrom("payments")
            .leftJoin("paymentReversals", "paymentReversals.paymentRowId", "payments.id")
            .select([
              "payments.paymentId",
              "payments.amountMinorUnits",
              "payments.paidOn",
              "payments.currency",
              "payments.recordedAt",
              "paymentReversals.reversedOn",
              "paymentReversals.reason",
              "paymentReversals.recordedAt as reversalRecordedAt"
            ])
            .where("payments.invoiceId", "=", invoiceId)
            .orderBy("payments.recordedAt")
            .orderBy("payments.id")
            .execute()
          const writeOffs = await trx
            .selectFrom("writeOffs")
            .select(["writeOffId", "amountMinorUnits", "writtenOffOn", "reason", "recordedAt"])
            .where("invoiceId", "=", invoiceId)
            .orderBy("recordedAt")
            .orderBy("id")
            .execute()
          if (payments.some((payment) => payment.paymentId === paymentId)) return { status: 200, body: invoice } as const
          if (!["sent", "paid", "written-off"].includes(invoice.status)) return { status: 409, code: "invoice_not_sent" } as const
          if (invoice.currency !== currency) return { status: 422, code: "currency_mismatch" } as const
          const now = new Date()
          const paid = payments
            .filter((payment) => payment.reversedOn === null)
            .reduce((sum, payment) => sum + Number(payment.amountMinorUnits), 0)
          const writtenOff = writeOffs.reduce((sum, writeOff) => sum + Number(writeOff.amountMinorUnits), 0)
          const balance = Number(invoice.issuedTotalGrossMinorUnits) - paid - amountMinorUnits - writtenOff
          const status = balance <= 0 ? "paid" : invoice.status
          await trx
            .insertInto("payments")
            .values({ id: randomUUID(), organizationId, invoiceId, paymentId, amountMinorUnits, paidOn, currency, recordedAt: now } as never)
            .execute()
          const paidAt = status === "paid" && invoice.status !== "paid" ? now : invoice.paidAt
          const updated = await trx
            .updateTable("invoices")
            .set({ status, balanceMinorUnits: balance, paidAt, updatedAt: now })
            .where("id", "=", invoiceId)
            .returningAll()
            .executeTakeFirstOrThrow()
          const event = {
            _tag: "billing.invoice.payment_recorded",
            invoiceId,
            organizationId,
            operationalContextId: invoice.operationalContextId,
            at: now.toISOString(),
            paymentId
          }
          await appendEvents(trx, organizationId, [event], now)
          await audit(trx, principal, {
            action: "billing.invoice.report_payment",
            targetType: "invoice",
            targetId: invoiceId,
            details: { paymentId, amountMinorUnits, paidOn, currency },
            at: now
          })
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
