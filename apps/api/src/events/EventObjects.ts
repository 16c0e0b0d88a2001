/**
 * The resource of each event (`data.object`), as the API returns it, read through its owner's read path when the
 * event is published (issue 22, decisions 9), and the event's own fields beside it. One renderer per domain event
 * type, in a record keyed by every type, so a domain event added without one fails to compile; and the catalog of
 * the contract (`@propline/contract/Events`) must list exactly the same types (checked below, also at compile time).
 *
 * Invoice runs and installations are no resource of the API (the console manages them): their events carry a
 * reference (`InvoiceRunReference`, `InstallationReference`) made from the event alone. A resource that no longer
 * exists when the event is published renders as `null` (today no resource of an event is ever deleted).
 */
import type { BillingEventType } from "@propline/billing/BillingEvent"
import type { BookingEventType } from "@propline/booking/BookingEvent"
import {
  EVENT_CATALOG,
  type EventType,
  InstallationReference,
  InvoiceRunReference
} from "@propline/contract/Events"
import type { OperationalContextId } from "@propline/contract/Ids"
import { IntegrationConfiguration } from "@propline/contract/Integrations"
import { Invoice } from "@propline/contract/Invoice"
import { InvoiceProposal } from "@propline/contract/InvoiceProposal"
import { InvoiceWithdrawal } from "@propline/contract/InvoiceWithdrawal"
import { BookingRequest } from "@propline/contract/BookingRecords"
import { SigningAttempt } from "@propline/contract/Signing"
import type { InstallationEvent } from "@propline/identity/Installation"
import type { ConfigurationEventType } from "@propline/integrations/IntegrationsEvent"
import type { SigningEventType } from "@propline/signing/SigningEvent"
import type * as Db from "@propline/db/Db"
import { Effect, Schema } from "effect"
import { toInvoice, toProposal, toWithdrawal } from "../billing/BillingHandlers.js"
import { InvoiceRepository } from "../billing/InvoiceRepository.js"
import { ProposalRepository } from "../billing/ProposalRepository.js"
import { WithdrawalRepository } from "../billing/WithdrawalRepository.js"
import { toBookingRequest } from "../booking/BookingHandlers.js"
import { BookingRequestRepository } from "../booking/BookingRequestRepository.js"
import { toIntegrationConfiguration } from "../integrations/IntegrationHandlers.js"
import { IntegrationConfigurationRepository } from "../integrations/IntegrationConfigurationRepository.js"
import { toSigningAttempt } from "../signing/SigningHandlers.js"
import { SigningAttemptRepository } from "../signing/SigningAttemptRepository.js"

/** Every type of event the domain writes to the outbox. */
export type DomainEventType =
  | BillingEventType
  | SigningEventType
  | BookingEventType
  | ConfigurationEventType
  | InstallationEvent["_tag"]

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
/** Fails to compile unless the contract's catalog lists exactly the domain's event types. */
export const CATALOG_MATCHES_DOMAIN: Same<DomainEventType, EventType> = true

/** What publishing makes of an outbox event: the envelope's scope fields and its `data`. */
export interface RenderedEvent {
  readonly operationalContextId: string | null
  readonly installationId: string | null
  /** `{ object, …the event's own fields }`, as JSON values. */
  readonly data: Record<string, unknown>
}

/** The domain event as `Outbox.append` stored it. */
type Payload = Record<string, unknown>

/** The resource's JSON, or null when it no longer exists. */
type ObjectReader = (
  organizationId: string,
  payload: Payload,
  now: Date
) => Effect.Effect<unknown, never, Db.Db | Readers>

type Readers =
  | InvoiceRepository
  | ProposalRepository
  | WithdrawalRepository
  | SigningAttemptRepository
  | BookingRequestRepository
  | IntegrationConfigurationRepository

const text = (payload: Payload, field: string): string => String(payload[field])

const encoded =
  <A, I>(schema: Schema.Schema<A, I>) =>
  (value: A | undefined): unknown =>
    value === undefined ? null : Schema.encodeSync(schema)(value)

const encodeInvoice = encoded(Invoice)
const encodeProposal = encoded(InvoiceProposal)
const encodeWithdrawal = encoded(InvoiceWithdrawal)
const encodeAttempt = encoded(SigningAttempt)
const encodeBooking = encoded(BookingRequest)
const encodeConfiguration = encoded(IntegrationConfiguration)
const encodeRun = encoded(InvoiceRunReference)
const encodeInstallation = encoded(InstallationReference)

/** A resource read for a whole batch at once: its JSON and organization, by id. */
type BatchRead = ReadonlyMap<string, { readonly organizationId: string; readonly json: unknown }>

/**
 * Resources read for a whole batch in one statement each (the hot paths' events: pass, reports, payments), by the
 * payload field naming them.
 */
const batched = {
  invoice: {
    field: "invoiceId",
    read: (ids: ReadonlyArray<string>, now: Date): Effect.Effect<BatchRead, never, Db.Db | InvoiceRepository> =>
      Effect.flatMap(InvoiceRepository, (invoices) =>
        Effect.map(invoices.byIds(ids), (records) => {
          const today = now.toISOString().slice(0, 10)
          return new Map(records.map((record) => [record.id, { organizationId: record.organizationId, json: encodeInvoice(toInvoice(record, today)) }]))
        })
      )
  },
  proposal: {
    field: "proposalId",
    read: (ids: ReadonlyArray<string>): Effect.Effect<BatchRead, never, Db.Db | ProposalRepository> =>
      Effect.flatMap(ProposalRepository, (proposals) =>
        Effect.map(proposals.findMany(ids), (records) =>
          new Map(records.map((record) => [record.id, { organizationId: record.organizationId, json: encodeProposal(toProposal(record)) }]))
        )
      )
  }
} as const

type BatchKind = keyof typeof batched

/** How an event type's resource is read: with its batch ({@link batched}), or one by one. */
type Reader = BatchKind | ObjectReader

const invoice: Reader = "invoice"
const proposal: Reader = "proposal"

const withdrawal: ObjectReader = (organizationId, payload) =>
  Effect.flatMap(WithdrawalRepository, (withdrawals) =>
    Effect.map(withdrawals.find(organizationId, text(payload, "invoiceId")), (record) =>
      encodeWithdrawal(record === undefined ? undefined : toWithdrawal(record))
    )
  )

const run: ObjectReader = (_organizationId, payload) =>
  Effect.succeed(
    encodeRun(
      new InvoiceRunReference(
        { id: text(payload, "invoiceRunId"), operationalContextId: text(payload, "operationalContextId") as OperationalContextId },
        true
      )
    )
  )

const attempt: ObjectReader = (organizationId, payload) =>
  Effect.flatMap(SigningAttemptRepository, (attempts) =>
    Effect.map(attempts.find(organizationId, text(payload, "attemptId"), false), (record) =>
      encodeAttempt(record === undefined ? undefined : toSigningAttempt(record))
    )
  )

const booking: ObjectReader = (organizationId, payload, now) =>
  Effect.flatMap(BookingRequestRepository, (requests) =>
    Effect.map(requests.find(organizationId, text(payload, "bookingId")), (record) =>
      encodeBooking(record === undefined ? undefined : toBookingRequest(record, now))
    )
  )

const configuration: ObjectReader = (organizationId, payload) =>
  Effect.flatMap(IntegrationConfigurationRepository, (configurations) =>
    Effect.map(configurations.inOrganization(organizationId, text(payload, "configurationId")), (view) =>
      encodeConfiguration(view === undefined ? undefined : toIntegrationConfiguration(view.configuration))
    )
  )

const installation: ObjectReader = (_organizationId, payload) =>
  Effect.succeed(
    encodeInstallation(new InstallationReference({ id: text(payload, "installationId"), appId: text(payload, "appId") }, true))
  )

/** The reader of each event type's resource. */
const readers: { readonly [Type in DomainEventType]: Reader } = {
  "billing.invoice.created": invoice,
  "billing.invoice.approved": invoice,
  "billing.invoice.failed": invoice,
  "billing.invoice.sent": invoice,
  "billing.invoice.payment_recorded": invoice,
  "billing.invoice.payment_reversed": invoice,
  "billing.invoice.write_off_recorded": invoice,
  "billing.invoice.paid": invoice,
  "billing.invoice.written_off": invoice,
  "billing.invoice.reopened": invoice,
  "billing.invoice.deleted": invoice,
  "billing.invoice.credited": invoice,
  "billing.invoice_withdrawal.discarded": withdrawal,
  "billing.invoice_run.created": run,
  "billing.invoice_run.continued": run,
  "billing.invoice_run.approved": run,
  "billing.invoice_proposal.created": proposal,
  "billing.invoice_proposal.passed": proposal,
  "billing.invoice_proposal.rejected": proposal,
  "billing.invoice_proposal.cancelled": proposal,
  "crm.signing_attempt.queued": attempt,
  "crm.signing_attempt.started": attempt,
  "crm.signing_attempt.signed_document_uploaded": attempt,
  "crm.signing_attempt.signed": attempt,
  "crm.signing_attempt.declined": attempt,
  "crm.signing_attempt.expired": attempt,
  "crm.signing_attempt.failed": attempt,
  "crm.signing_attempt.withdrawal_requested": attempt,
  "crm.signing_attempt.withdrawn": attempt,
  "booking.booking_request.created": booking,
  "booking.booking_request.approved": booking,
  "booking.booking_request.declined": booking,
  "booking.booking_request.expired": booking,
  "booking.booking_request.cancelled": booking,
  "booking.booking_request.rescheduled": booking,
  "integrations.configuration.created": configuration,
  "integrations.configuration.connection_requested": configuration,
  "integrations.configuration.connecting": configuration,
  "integrations.configuration.ready": configuration,
  "integrations.configuration.failed": configuration,
  "integrations.configuration.disconnected": configuration,
  "integrations.installation.created": installation,
  "integrations.installation.suspended": installation,
  "integrations.installation.resumed": installation,
  "integrations.installation.removed": installation,
  "integrations.installation.grant_changed": installation
}

/** Every domain event type (the renderers' keys). */
export const DOMAIN_EVENT_TYPES = Object.keys(readers) as ReadonlyArray<DomainEventType>

const isDomainType = (type: string): type is DomainEventType => Object.hasOwn(readers, type)

const nullableText = (value: unknown): string | null => (typeof value === "string" ? value : null)

/** An outbox event as the publisher claimed it. */
export interface OutboxEvent {
  readonly type: string
  readonly organizationId: string
  /** The domain event as `Outbox.append` stored it. */
  readonly payload: Payload
}

/**
 * Renders a batch of outbox events at `now`, in order: each one's resource through its reader (the batched kinds
 * in one statement per kind for the whole batch, only within the event's organization), the event's own fields
 * (the catalog's) from the payload, its operational context and, for `integrations.*`, its installation. A type
 * the catalog does not know renders with a null object (it is published, but no reader's scope shows it).
 */
export const renderAll = (
  events: ReadonlyArray<OutboxEvent>,
  now: Date
): Effect.Effect<ReadonlyArray<RenderedEvent>, never, Db.Db | Readers> =>
  Effect.gen(function* () {
    const reads = new Map<BatchKind, BatchRead>()
    for (const kind of Object.keys(batched) as ReadonlyArray<BatchKind>) {
      const ids = events.flatMap((event) =>
        isDomainType(event.type) && readers[event.type] === kind ? [text(event.payload, batched[kind].field)] : []
      )
      if (ids.length > 0) reads.set(kind, yield* batched[kind].read([...new Set(ids)], now))
    }
    const rendered: Array<RenderedEvent> = []
    for (const { organizationId, payload, type } of events) {
      const scope = {
        operationalContextId: nullableText(payload["operationalContextId"]),
        installationId: type.startsWith("integrations.") ? nullableText(payload["installationId"]) : null
      }
      if (!isDomainType(type)) {
        rendered.push({ ...scope, data: { object: null } })
        continue
      }
      const reader = readers[type]
      let object: unknown
      if (typeof reader === "string") {
        const found = reads.get(reader)?.get(text(payload, batched[reader].field))
        object = found !== undefined && found.organizationId === organizationId ? found.json : null
      } else {
        object = yield* reader(organizationId, payload, now)
      }
      const fields = Object.keys(EVENT_CATALOG[type].fields)
      rendered.push({ ...scope, data: { object, ...Object.fromEntries(fields.map((field) => [field, payload[field]])) } })
    }
    return rendered
  })
