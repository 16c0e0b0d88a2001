/**
 * Test fixtures written straight into a fresh database: an organization with a context tree, a customer, a
 * contract, a billing integration (an ERP connector's installation with a billing configuration of the root
 * context), an invoice run with proposals (each with a charge and a line) and
 * approved invoices, and an Application with a secret. Nothing here is mocked: the service reads these rows.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { unsentInvoiceColumns } from "../../src/billing/InvoiceRepository.js"
import { ApplicationService } from "../../src/identity/ApplicationService.js"

export const NOW = new Date("2026-11-20T09:00:00.000Z")

/**
 * A billing principal of `org` granted its root context, as the security middleware makes it from an access token
 * (for calling the services directly); `clientId` names it. Its token expires 10 minutes after NOW.
 */
export const billingPrincipal = (org: OrganizationFixture, clientId: string): PrincipalShape => ({
  clientId,
  subject: randomUUID(),
  organizationId: org.organizationId,
  roles: ["billing"],
  contexts: [org.rootId],
  expiresAt: Math.floor(NOW.getTime() / 1000) + 600
})

export interface OrganizationFixture {
  readonly organizationId: string
  readonly rootId: string
  readonly regionId: string
  readonly propertyId: string
  /** A property in another region: outside an Application granted only `regionId`. */
  readonly otherPropertyId: string
  readonly customerId: string
  readonly contractId: string
  readonly billingAccountId: string
  readonly invoiceRunId: string
}

export const organization = (options: {
  readonly name: string
  readonly integration?: { readonly gates: ReadonlyArray<string>; readonly status?: "connecting" | "ready" | "failed" } | "none"
}) =>
  Effect.gen(function* () {
    const at = NOW
    const organizationId = randomUUID()
    const rootId = randomUUID()
    const regionId = randomUUID()
    const otherRegionId = randomUUID()
    const propertyId = randomUUID()
    const otherPropertyId = randomUUID()
    const customerId = randomUUID()
    const billingAccountId = randomUUID()
    const contractId = randomUUID()
    const invoiceRunId = randomUUID()
    const stamp = { createdAt: at, updatedAt: at }
    yield* Db.query((db) =>
      db.insertInto("organizations").values({ id: organizationId, name: options.name, country: "SE", ...stamp }).execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("operationalContexts")
        .values([
          { id: rootId, organizationId, parentId: null, kind: "organization", name: options.name, ...stamp },
          { id: regionId, organizationId, parentId: rootId, kind: "region", name: "Sverige", ...stamp },
          { id: otherRegionId, organizationId, parentId: rootId, kind: "region", name: "Norge", ...stamp },
          { id: propertyId, organizationId, parentId: regionId, kind: "property", name: "Kungsholmen", ...stamp },
          { id: otherPropertyId, organizationId, parentId: otherRegionId, kind: "property", name: "Aker Brygge", ...stamp }
        ])
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("customers")
        .values({
          id: customerId,
          organizationId,
          customerNumber: "1001",
          name: "Ljusgården Konsult AB",
          kind: "company",
          country: "SE",
          organisationNumber: "5560360793",
          ...stamp
        })
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("billingAccounts")
        .values({ id: billingAccountId, organizationId, customerId, name: "Ekonomi", email: "faktura@example.se", addressLine: null, postalCode: null, city: null, country: "SE", ...stamp })
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("contracts")
        .values({
          id: contractId,
          organizationId,
          operationalContextId: propertyId,
          customerId,
          billingAccountId,
          contractNumber: "K-1",
          currency: "SEK",
          paymentTermsDays: 30,
          startsOn: "2026-01-01",
          endsOn: null,
          status: "active",
          ...stamp
        })
        .execute()
    )
    const integration = options.integration ?? { gates: ["verification"] }
    if (integration !== "none") yield* billingConfiguration(organizationId, rootId, integration)
    yield* Db.query((db) =>
      db
        .insertInto("invoiceRuns")
        .values({ id: invoiceRunId, organizationId, operationalContextId: rootId, periodStart: "2026-11-01", periodEnd: "2026-11-30", status: "approved", approvedAt: at, ...stamp })
        .execute()
    )
    return { organizationId, rootId, regionId, propertyId, otherPropertyId, customerId, contractId, billingAccountId, invoiceRunId } satisfies OrganizationFixture
  }).pipe(Effect.orDie)

/**
 * The organization's billing integration as billing reads it (decisions 5, 8): an ERP connector app installed in
 * the organization (billing and integrations over the root context) with a billing configuration of the root
 * context in `status` (default `ready`) that declared `gates`.
 */
export const billingConfiguration = (
  organizationId: string,
  rootId: string,
  integration: { readonly gates: ReadonlyArray<string>; readonly status?: "connecting" | "ready" | "failed" }
) =>
  Effect.gen(function* () {
    const at = NOW
    const stamp = { createdAt: at, updatedAt: at }
    const appId = `fixture-erp-${randomUUID().slice(0, 8)}`
    const installationId = randomUUID()
    const configurationId = randomUUID()
    const status = integration.status ?? "ready"
    yield* Db.query((db) =>
      db.insertInto("connectorApps").values({ id: appId, name: "Fortnox", setupUrl: "https://erp.example/setup", ...stamp }).execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("installations")
        .values({ id: installationId, appId, organizationId, status: "active", roles: ["billing", "integrations"], suspendedAt: null, removedAt: null, ...stamp })
        .execute()
    )
    yield* Db.query((db) => db.insertInto("installationContexts").values({ installationId, operationalContextId: rootId }).execute())
    yield* Db.query((db) =>
      db
        .insertInto("integrationConfigurations")
        .values({
          id: configurationId,
          organizationId,
          installationId,
          appId,
          kind: "billing",
          status,
          externalAccountId: status === "ready" ? "fortnox-1" : null,
          externalAccountName: status === "ready" ? "Fortnox" : null,
          declaredGates: status === "ready" ? [...integration.gates] : [],
          settings: null,
          failureReason: status === "failed" ? "The ERP refused the connection." : null,
          connectedAt: at,
          readyAt: status === "ready" ? at : null,
          failedAt: status === "failed" ? at : null,
          disconnectedAt: null,
          ...stamp
        })
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("integrationConfigurationContexts")
        .values({ configurationId, kind: "billing", operationalContextId: rootId, filled: status === "ready" })
        .execute()
    )
    return { appId, installationId, configurationId }
  }).pipe(Effect.orDie)

let invoiceNumbers = 1000

const document = (org: OrganizationFixture, contextId: string) => ({
  organizationId: org.organizationId,
  invoiceRunId: org.invoiceRunId,
  operationalContextId: contextId,
  contractId: org.contractId,
  recipientAgentId: org.customerId,
  recipientAgentName: "Ljusgården Konsult AB",
  billingAccountId: org.billingAccountId,
  documentKind: "invoice" as const,
  creditedInvoiceId: null,
  billingStream: "contractual" as const,
  requestedInvoiceDate: "2026-11-01",
  requestedDueDate: "2026-12-01",
  paymentTermsDays: 30,
  currency: "SEK",
  totalNetMinorUnits: 1_000_000,
  totalVatMinorUnits: 250_000,
  totalGrossMinorUnits: 1_250_000,
  externalReference: null
})

/** A proposal in `proposed` with one charge and one line; `createdAt` offset by `order` seconds. */
export const proposal = (org: OrganizationFixture, options: { readonly order?: number; readonly contextId?: string; readonly chargeInvoicedBy?: string } = {}) =>
  Effect.gen(function* () {
    const id = randomUUID()
    const chargeId = randomUUID()
    const at = new Date(NOW.getTime() + (options.order ?? 0) * 1000)
    yield* Db.query((db) =>
      db
        .insertInto("charges")
        .values({
          id: chargeId,
          organizationId: org.organizationId,
          contractId: org.contractId,
          contractLineId: null,
          periodStart: "2026-11-01",
          periodEnd: "2026-11-30",
          description: "Kontor 4 tr",
          netMinorUnits: 1_000_000,
          vatRateBasisPoints: 2500,
          invoiceId: options.chargeInvoicedBy ?? null,
          createdAt: at
        })
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("invoiceProposals")
        .values({
          id,
          ...document(org, options.contextId ?? org.propertyId),
          invoiceNumber: invoiceNumbers++,
          status: "proposed",
          rejectionReason: null,
          passedAt: null,
          rejectedAt: null,
          cancelledAt: null,
          invoiceId: null,
          createdAt: at,
          updatedAt: at
        })
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("documentLines")
        .values({ id: randomUUID(), proposalId: id, invoiceId: null, chargeId, position: 1, description: "Kontor 4 tr", netMinorUnits: 1_000_000, vatRateBasisPoints: 2500, vatMinorUnits: 250_000, grossMinorUnits: 1_250_000 })
        .execute()
    )
    return id
  }).pipe(Effect.orDie)

/** An invoice in `approved` (in the send queue), approved `order` seconds after NOW. */
export const approvedInvoice = (org: OrganizationFixture, options: { readonly order?: number; readonly contextId?: string; readonly externalReference?: string } = {}) =>
  Effect.gen(function* () {
    const id = randomUUID()
    const at = new Date(NOW.getTime() + (options.order ?? 0) * 1000)
    yield* Db.query((db) =>
      db
        .insertInto("invoices")
        .values({
          id,
          ...document(org, options.contextId ?? org.propertyId),
          externalReference: options.externalReference ?? null,
          invoiceNumber: invoiceNumbers++,
          status: "approved",
          ...unsentInvoiceColumns,
          approvedAt: at,
          createdAt: at,
          updatedAt: at
        })
        .execute()
    )
    return id
  }).pipe(Effect.orDie)

/** An Application with roles and granted contexts, and one secret. */
export const application = (org: OrganizationFixture, options: { readonly roles?: ReadonlyArray<"billing" | "signing" | "booking">; readonly contextIds?: ReadonlyArray<string> } = {}) =>
  Effect.gen(function* () {
    const applications = yield* ApplicationService
    const actor = { type: "system", id: "test" } as const
    const app = yield* applications.create(
      {
        organizationId: org.organizationId,
        name: `Test app ${randomUUID().slice(0, 8)}`,
        roles: options.roles ?? ["billing"],
        contextIds: options.contextIds ?? [org.rootId]
      },
      actor
    )
    const { secret } = yield* applications.issueSecret(app.id, actor)
    return { id: app.id, clientId: app.clientId, secret }
  }).pipe(Effect.orDie, Effect.provide(ApplicationService.Default))

/** Row counts the refusal tests compare before and after. */
export const counts = Db.query(async (db) => {
  const count = async (table: "invoices" | "events" | "auditLog") =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow()).n)
  return { invoices: await count("invoices"), events: await count("events"), auditLog: await count("auditLog") }
}).pipe(Effect.orDie)
