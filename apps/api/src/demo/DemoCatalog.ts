/**
 * The demo data as rows to insert, built without I/O from the current time: the same `now` gives the same rows.
 * Ids are name-based (UUID version 5 in a demo namespace), names, prices and organisation numbers come from a
 * seeded pseudo-random generator, so every database seeded in the same month holds the same demo records and
 * the harness can name them ({@link DEMO_IDS}).
 *
 * What it holds (spec 2.1, 2.2; decisions 2, 5):
 * - "Nordhavn Workspaces AB" (SE): contexts root → Sverige (Stockholm Slussen, Göteborg Lindholmen), Norge
 *   (Oslo Bjørvika, Bergen Bryggen); 24 customers (22 companies with valid organisation numbers, 2 private
 *   persons), a billing account and a contract each (SEK in Sweden, NOK in Norway), monthly lines at the
 *   countries' VAT rates; a ready Fortnox integration that declared the `verification` gate;
 *   - last month's run, approved: 22 invoices and 1 credit note in the send queue;
 *   - a one-contract run this month: 1 invoice the operator made for a parking charge, also in the send queue;
 *   - this month's run, approved under the verification gate: 23 proposals awaiting verification, one of which
 *     ({@link DEMO_IDS}.doubleBilledProposal) bills the parking charge that invoice already billed.
 * - "Fjord Offices AS" (NO), for tenant-isolation checks: 3 contexts, 1 customer, 1 contract, 1 approved
 *   invoice, 1 proposal.
 */
import { unsentInvoiceColumns } from "../billing/InvoiceRepository.js"
import type {
  BillingAccountTable,
  BillingIntegrationTable,
  ChargeTable,
  ContractLineTable,
  ContractTable,
  CustomerTable,
  DocumentLineTable,
  InvoiceProposalTable,
  InvoiceRunTable,
  InvoiceTable,
  OperationalContextTable,
  OrganizationTable
} from "@propline/db/Database"
import type { Currency } from "@propline/billing/Invoice"
import {
  type BillingPeriod,
  calendarMonthOf,
  type ContractMaterial,
  draftCreditNote,
  draftDocuments,
  type DraftLine
} from "@propline/billing/InvoiceRun"
import { Either } from "effect"
import type { Insertable } from "kysely"
import { createHash } from "node:crypto"

// ---------------------------------------------------------------------------------------------------------------
// Deterministic ids and numbers
// ---------------------------------------------------------------------------------------------------------------

/** Namespace of the demo's name-based ids (a random UUID fixed once). */
const DEMO_NAMESPACE = "5c0f4d2e-9a57-4b1e-8f0a-6d3c2b1a0e97"

/** UUID version 5 (RFC 9562 5.5): SHA-1 of the namespace and `name`, so a name always gives the same id. */
export const demoId = (name: string): string => {
  const namespace = Buffer.from(DEMO_NAMESPACE.replaceAll("-", ""), "hex")
  const bytes = createHash("sha1").update(namespace).update(name, "utf8").digest().subarray(0, 16)
  bytes[6] = ((bytes[6] as number) & 0x0f) | 0x50
  bytes[8] = ((bytes[8] as number) & 0x3f) | 0x80
  const hex = bytes.toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** Mulberry32: a small seeded generator; enough for demo data, never for secrets. Returns [0, 1). */
const seededRandom = (seed: number) => {
  let state = seed >>> 0
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
  /** An integer from `min` to `max`, both inclusive. */
  const int = (min: number, max: number): number => min + Math.floor(next() * (max - min + 1))
  const digits = (count: number): string => Array.from({ length: count }, () => String(int(0, 9))).join("")
  return { int, digits, chance: (probability: number) => next() < probability }
}

type Random = ReturnType<typeof seededRandom>

/**
 * Luhn check digit of a Swedish organisationsnummer's first nine digits: weights 2, 1, 2, 1 … from the left,
 * the digits of each product summed, then the distance to the next multiple of ten.
 */
export const luhnCheckDigit = (digits: string): number => {
  let sum = 0
  for (const [index, char] of [...digits].entries()) {
    const product = Number(char) * (index % 2 === 0 ? 2 : 1)
    sum += product > 9 ? product - 9 : product
  }
  return (10 - (sum % 10)) % 10
}

/**
 * MOD11 check digit of a Norwegian organisasjonsnummer's first eight digits (weights 3, 2, 7, 6, 5, 4, 3, 2);
 * `undefined` when the remainder gives 10, a number Brønnøysundregistrene never issues.
 */
export const mod11CheckDigit = (digits: string): number | undefined => {
  const weights = [3, 2, 7, 6, 5, 4, 3, 2]
  const sum = [...digits].reduce((total, char, index) => total + Number(char) * (weights[index] ?? 0), 0)
  const check = 11 - (sum % 11)
  return check === 11 ? 0 : check === 10 ? undefined : check
}

/** A Swedish aktiebolag's number: 559 (the series registered since 2013), six digits, the Luhn digit. */
const swedishOrganisationNumber = (random: Random): string => {
  const body = `559${random.digits(6)}`
  return `${body}${luhnCheckDigit(body)}`
}

/** A Norwegian number: 9, seven digits, the MOD11 digit (drawn again when the remainder gives 10). */
const norwegianOrganisationNumber = (random: Random): string => {
  for (;;) {
    const body = `9${random.digits(7)}`
    const check = mod11CheckDigit(body)
    if (check !== undefined) return `${body}${check}`
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Names of the notable records
// ---------------------------------------------------------------------------------------------------------------

/** Name of the first demo organization; the demo is found by it and {@link DEMO_IDS}.organization. */
export const DEMO_ORGANIZATION_NAME = "Nordhavn Workspaces AB"
/** Name of the second, small organization (tenant-isolation checks). */
export const SECOND_ORGANIZATION_NAME = "Fjord Offices AS"
/** Name of the demo Application in each organization (roles `billing`, granted the root context). */
export const DEMO_APPLICATION_NAME = "Demo ERP connector"

/**
 * Ids of the records scenarios refer to. Stable across databases: they are name-based, not random.
 * - `doubleBilledProposal`: a proposal of this month's run whose parking charge is already on
 *   `manualInvoice`; passing it answers 409 `BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED`.
 * - `creditNote` credits `creditedInvoice` (last month's run), both in the send queue.
 */
export const DEMO_IDS = {
  organization: demoId("organization:nordhavn"),
  rootContext: demoId("context:nordhavn:root"),
  lastMonthRun: demoId("run:nordhavn:last-month"),
  currentMonthRun: demoId("run:nordhavn:current-month"),
  manualRun: demoId("run:nordhavn:manual"),
  creditedInvoice: demoId("invoice:nordhavn:last-month:SE-08"),
  creditNote: demoId("credit-note:nordhavn:SE-08"),
  manualInvoice: demoId("invoice:nordhavn:manual:SE-04"),
  doubleBilledProposal: demoId("proposal:nordhavn:current-month:SE-04"),
  secondOrganization: demoId("organization:fjord"),
  secondRootContext: demoId("context:fjord:root"),
  secondInvoice: demoId("invoice:fjord:last-month:FJ-01"),
  secondProposal: demoId("proposal:fjord:current-month:FJ-01")
} as const

// ---------------------------------------------------------------------------------------------------------------
// The catalog
// ---------------------------------------------------------------------------------------------------------------

type Country = "SE" | "NO"
type Profile = "office" | "coworking" | "flex" | "exempt-office"

interface PropertySpec {
  readonly key: string
  readonly name: string
  readonly region: Country
  readonly city: string
  readonly postalCode: string
  readonly street: string
  /** Yearly office rent per m², whole currency units. */
  readonly rentPerSquareMetre: readonly [number, number]
  /** Monthly price of one parking space, whole currency units. */
  readonly parking: readonly [number, number]
}

const PROPERTIES: ReadonlyArray<PropertySpec> = [
  {
    key: "sthlm",
    name: "Stockholm Slussen",
    region: "SE",
    city: "Stockholm",
    postalCode: "11645",
    street: "Katarinavägen 15",
    rentPerSquareMetre: [3200, 4200],
    parking: [1900, 2600]
  },
  {
    key: "gbg",
    name: "Göteborg Lindholmen",
    region: "SE",
    city: "Göteborg",
    postalCode: "41756",
    street: "Lindholmspiren 7",
    rentPerSquareMetre: [2100, 2900],
    parking: [1100, 1600]
  },
  {
    key: "oslo",
    name: "Oslo Bjørvika",
    region: "NO",
    city: "Oslo",
    postalCode: "0150",
    street: "Dronning Eufemias gate 16",
    rentPerSquareMetre: [3600, 4900],
    parking: [2600, 3400]
  },
  {
    key: "bergen",
    name: "Bergen Bryggen",
    region: "NO",
    city: "Bergen",
    postalCode: "5003",
    street: "Bryggen 21",
    rentPerSquareMetre: [2400, 3300],
    parking: [1800, 2400]
  }
]

interface CustomerSpec {
  /** Stable key, part of every id derived for the customer. */
  readonly key: string
  readonly name: string
  readonly kind: "company" | "private"
  readonly property: string
  readonly profile: Profile
  readonly paymentTermsDays: number
  /** `new`: the contract starts this month; `ended`: it ended last month. */
  readonly timing?: "new" | "ended"
}

const customer = (
  key: string,
  name: string,
  property: string,
  profile: Profile,
  paymentTermsDays: number,
  timing?: "new" | "ended"
): CustomerSpec => ({
  key,
  name,
  kind: profile === "flex" ? "private" : "company",
  property,
  profile,
  paymentTermsDays,
  ...(timing === undefined ? {} : { timing })
})

const CUSTOMERS: ReadonlyArray<CustomerSpec> = [
  customer("SE-01", "Ljungberg Arkitekter AB", "sthlm", "office", 30),
  customer("SE-02", "Saltsjö Data AB", "sthlm", "coworking", 30),
  customer("SE-03", "Norrsken Redovisning AB", "sthlm", "office", 20),
  customer("SE-04", "Kvarnholmen Juridik AB", "sthlm", "office", 30),
  customer("SE-05", "Skeppsholm Media AB", "sthlm", "coworking", 10),
  customer("SE-06", "Tranbär Hälsa AB", "sthlm", "exempt-office", 30),
  customer("SE-07", "Elin Sandberg", "sthlm", "flex", 10),
  customer("SE-08", "Vinga Logistik AB", "gbg", "office", 30),
  customer("SE-09", "Hisingen Design AB", "gbg", "coworking", 30),
  customer("SE-10", "Gotha Fintech AB", "gbg", "office", 20, "new"),
  customer("SE-11", "Masthugget Konsult AB", "gbg", "coworking", 30),
  customer("SE-12", "Älvsborg Bygg & Projekt AB", "gbg", "office", 30),
  customer("NO-01", "Fjellheim Rådgivning AS", "oslo", "office", 30),
  customer("NO-02", "Nordlys Programvare AS", "oslo", "coworking", 30),
  customer("NO-03", "Havbris Regnskap AS", "oslo", "office", 20),
  customer("NO-04", "Tindvik Arkitekter AS", "oslo", "coworking", 30),
  customer("NO-05", "Granli Advokatfirma AS", "oslo", "office", 30, "ended"),
  customer("NO-06", "Solstreif Energi AS", "oslo", "office", 10),
  customer("NO-07", "Ola Haugen", "oslo", "flex", 10),
  customer("NO-08", "Bergen Kulturstiftelse", "bergen", "exempt-office", 30),
  customer("NO-09", "Vågen Analyse AS", "bergen", "coworking", 30),
  customer("NO-10", "Kystlinje Shipping AS", "bergen", "office", 30, "new"),
  customer("NO-11", "Bølgen Markedsføring AS", "bergen", "coworking", 20),
  customer("NO-12", "Fløyen Helse AS", "bergen", "exempt-office", 30)
]

/** An invoice address under the reserved `.example` domain: `faktura@vingalogistik.example`. */
const invoiceEmail = (spec: CustomerSpec): string => {
  const ascii = spec.name
    .toLowerCase()
    .replaceAll("æ", "ae")
    .replaceAll("ø", "o")
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
  if (spec.kind === "private") return `${ascii.replaceAll(" ", ".")}@post.example`
  const words = ascii.replace(/ (ab|as)$/, "").replace(/[^a-z0-9 ]/g, "")
  return `faktura@${words.replaceAll(" ", "")}.example`
}

/** The customer whose parking the operator invoiced by hand this month (the double-billing case). */
const MANUALLY_INVOICED_CUSTOMER = "SE-04"
/** The customer whose cleaning last month is credited. */
const CREDITED_CUSTOMER = "SE-08"

const whole = (units: number): number => units * 100

/** Monthly lines of a contract, drawn for its profile, property and country (VAT rates of that country). */
const contractLines = (
  random: Random,
  customer: CustomerSpec,
  property: PropertySpec
): ReadonlyArray<ContractMaterial["lines"][number]> => {
  const se = property.region === "SE"
  const line = (description: string, monthlyNetMinorUnits: number, vatRateBasisPoints: number) => ({
    description,
    monthlyNetMinorUnits,
    vatRateBasisPoints
  })
  const officeRent = (area: number) =>
    // m² × yearly price per m² / 12 months, in minor units: rarely a whole krona, as on real rent invoices.
    Math.round((area * random.int(...property.rentPerSquareMetre) * 100) / 12)
  switch (customer.profile) {
    case "office": {
      const area = random.int(9, 42) * 10
      const spaces = random.int(1, 4)
      const lines = [
        line(se ? `Kontorshyra ${area} m²` : `Kontorleie ${area} m²`, officeRent(area), 2500),
        line(
          spaces === 1
            ? `Parkering, 1 ${se ? "plats" : "plass"}`
            : `Parkering, ${spaces} ${se ? "platser" : "plasser"}`,
          spaces * whole(random.int(...property.parking)),
          2500
        ),
        line(se ? "Internet 1000/1000 Mbit/s" : "Internett 1000/1000 Mbit/s", whole(se ? 795 : 995), 2500),
        line(se ? "Städning kontor" : "Renhold kontor", area * (se ? 1450 : 1850), 2500)
      ]
      if (random.chance(0.5)) {
        lines.push(line(se ? "Mötesrumspaket 10 h" : "Møteromspakke 10 t", whole(se ? 2950 : 3450), 2500))
      }
      const people = Math.round(area / 12)
      lines.push(
        se
          ? line(`Frukostabonnemang, ${people} personer`, people * whole(390), 1200)
          : line(`Kantineavtale, ${people} personer`, people * whole(450), 1500)
      )
      return lines
    }
    case "exempt-office": {
      // Rent to a tenant without VAT-liable business (care, culture) is exempt: no voluntary VAT liability.
      const area = random.int(12, 30) * 10
      return [
        line(se ? `Lokalhyra ${area} m², momsfri` : `Kontorleie ${area} m², unntatt mva`, officeRent(area), 0),
        line(se ? "Städning kontor" : "Renhold kontor", area * (se ? 1450 : 1850), 2500),
        line(se ? "Internet 500/500 Mbit/s" : "Internett 500/500 Mbit/s", whole(se ? 595 : 745), 2500)
      ]
    }
    case "coworking": {
      const desks = random.int(2, 9)
      const lines = [
        line(
          se ? `Coworking, fast skrivbord × ${desks}` : `Coworking, fast plass × ${desks}`,
          desks * whole(random.int(se ? 39 : 45, se ? 49 : 59) * 100),
          2500
        ),
        line(se ? "Mötesrumspaket 10 h" : "Møteromspakke 10 t", whole(se ? 2950 : 3450), 2500)
      ]
      if (random.chance(0.5)) {
        lines.push(line(se ? "Parkering, 1 plats" : "Parkering, 1 plass", whole(random.int(...property.parking)), 2500))
      }
      if (se) lines.push(line(`Gymaccess, ${desks} kort`, desks * whole(349), 600))
      else lines.push(line(`Fruktordning, ${desks} personer`, desks * whole(189), 1500))
      return lines
    }
    case "flex":
      return se
        ? [line("Coworking, flexplats", whole(2450), 2500), line("Gymaccess, 1 kort", whole(349), 600)]
        : [line("Coworking, flex-medlemskap", whole(2900), 2500), line("Kaffe og frukt", whole(240), 1500)]
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The plan
// ---------------------------------------------------------------------------------------------------------------

/** Every row of the demo, per table, in an order that satisfies the foreign keys. */
export interface DemoPlan {
  readonly organizations: ReadonlyArray<Insertable<OrganizationTable>>
  readonly operationalContexts: ReadonlyArray<Insertable<OperationalContextTable>>
  readonly customers: ReadonlyArray<Insertable<CustomerTable>>
  readonly billingAccounts: ReadonlyArray<Insertable<BillingAccountTable>>
  readonly contracts: ReadonlyArray<Insertable<ContractTable>>
  readonly contractLines: ReadonlyArray<Insertable<ContractLineTable>>
  readonly billingIntegrations: ReadonlyArray<Insertable<BillingIntegrationTable>>
  readonly invoiceRuns: ReadonlyArray<Insertable<InvoiceRunTable>>
  readonly invoices: ReadonlyArray<Insertable<InvoiceTable>>
  readonly invoiceProposals: ReadonlyArray<Insertable<InvoiceProposalTable>>
  readonly charges: ReadonlyArray<Insertable<ChargeTable>>
  readonly documentLines: ReadonlyArray<Insertable<DocumentLineTable>>
  /** Why the credit note credits its invoice (kept in the audit entry of the seed). */
  readonly creditReason: string
}

/** First number of the demo organizations' invoice number series. */
const FIRST_INVOICE_NUMBER = { nordhavn: 24_001, fjord: 1_001 } as const

const HOUR = 3_600_000
const DAY = 24 * HOUR
const isoDate = (at: Date): string => at.toISOString().slice(0, 10)
const monthLabel = (period: BillingPeriod): string => period.periodStart.slice(0, 7)

const orDie = <A, E>(either: Either.Either<A, E>): A =>
  Either.getOrThrowWith(either, (error) => new Error(`demo catalog: ${String(error)}`))

interface ContractRows {
  readonly spec: CustomerSpec
  readonly property: PropertySpec
  readonly contextId: string
  readonly customerId: string
  readonly billingAccountId: string
  readonly contractId: string
  readonly currency: Currency
  readonly lineIds: ReadonlyArray<string>
  readonly material: ContractMaterial
}

/** Builds the plan's rows for one organization step by step; `take` hands out invoice numbers in order. */
const planBuilder = (firstInvoiceNumber: number) => {
  let nextNumber = firstInvoiceNumber
  const rows = {
    charges: [] as Array<Insertable<ChargeTable>>,
    invoices: [] as Array<Insertable<InvoiceTable>>,
    invoiceProposals: [] as Array<Insertable<InvoiceProposalTable>>,
    documentLines: [] as Array<Insertable<DocumentLineTable>>
  }
  const take = () => nextNumber++

  /** One charge per contract line for `period`; ids are derived from the contract line and the month. */
  const chargesFor = (
    contract: ContractRows,
    period: BillingPeriod,
    lines: ReadonlyArray<DraftLine>,
    createdAt: Date,
    invoiceIdOf: (position: number) => string | null
  ): ReadonlyArray<string> =>
    lines.map((line) => {
      const lineId = contract.lineIds[line.position - 1] as string
      const id = demoId(`charge:${lineId}:${monthLabel(period)}`)
      rows.charges.push({
        id,
        organizationId: "",
        contractId: contract.contractId,
        contractLineId: lineId,
        periodStart: period.periodStart,
        periodEnd: period.periodEnd,
        description: line.description,
        netMinorUnits: line.netMinorUnits,
        vatRateBasisPoints: line.vatRateBasisPoints,
        invoiceId: invoiceIdOf(line.position),
        createdAt
      })
      return id
    })

  const documentLinesFor = (
    owner: { readonly invoiceId: string } | { readonly proposalId: string },
    lines: ReadonlyArray<DraftLine>,
    chargeIds: ReadonlyArray<string | null>
  ) => {
    const ownerId = "invoiceId" in owner ? owner.invoiceId : owner.proposalId
    for (const line of lines) {
      rows.documentLines.push({
        id: demoId(`line:${ownerId}:${line.position}`),
        proposalId: "proposalId" in owner ? owner.proposalId : null,
        invoiceId: "invoiceId" in owner ? owner.invoiceId : null,
        chargeId: chargeIds[line.position - 1] ?? null,
        position: line.position,
        description: line.description,
        netMinorUnits: line.netMinorUnits,
        vatRateBasisPoints: line.vatRateBasisPoints,
        vatMinorUnits: line.vatMinorUnits,
        grossMinorUnits: line.grossMinorUnits
      })
    }
  }

  return {
    rows,
    take,
    chargesFor,
    documentLinesFor,
    used: () => nextNumber
  }
}

/** The document columns every invoice and proposal of a contract share. */
const documentParty = (contract: ContractRows) => ({
  operationalContextId: contract.contextId,
  contractId: contract.contractId,
  recipientAgentId: contract.customerId,
  recipientAgentName: contract.spec.name,
  billingAccountId: contract.billingAccountId,
  currency: contract.currency,
  billingStream: "contractual" as const,
  externalReference: null
})

const withMonth = (material: ContractMaterial, period: BillingPeriod): ContractMaterial => ({
  ...material,
  lines: material.lines.map((line) => ({ ...line, description: `${line.description}, ${monthLabel(period)}` }))
})

/**
 * The demo's rows for `now` (see the module comment). Pure and deterministic: times are offsets from `now`
 * (records made before it), periods are the calendar months (UTC) before and containing `now`.
 */
export const demoPlan = (now: Date): DemoPlan => {
  const random = seededRandom(20_261_122)
  const today = isoDate(now)
  const lastMonth = orDie(calendarMonthOf(today, -1))
  const thisMonth = orDie(calendarMonthOf(today, 0))
  const ago = (ms: number) => new Date(now.getTime() - ms)
  const setupAt = ago(120 * DAY)

  // Timeline (UTC): setup 120 days ago; last month's run approved 25 h ago; the integration declared the
  // verification gate 24 h ago (so last month's run produced invoices, this month's proposals); the credit note
  // 20 h ago; this month's run 2 h ago; the manual invoice 1 h ago, after the run had proposed its material.
  const lastRunCreatedAt = ago(26 * HOUR)
  const lastRunApprovedAt = ago(25 * HOUR)
  const gateDeclaredAt = ago(24 * HOUR)
  const creditNoteAt = ago(20 * HOUR)
  const currentRunAt = ago(2 * HOUR)
  const manualAt = ago(1 * HOUR)

  // -- Nordhavn Workspaces AB -------------------------------------------------------------------------------
  const organizationId = DEMO_IDS.organization
  const root = DEMO_IDS.rootContext
  const context = (key: string) => demoId(`context:nordhavn:${key}`)
  const contextRow = (
    organization: string,
    id: string,
    parentId: string | null,
    kind: OperationalContextTable["kind"],
    name: string
  ): Insertable<OperationalContextTable> => ({
    id,
    organizationId: organization,
    parentId,
    kind,
    name,
    createdAt: setupAt,
    updatedAt: setupAt
  })
  const operationalContexts = [
    contextRow(organizationId, root, null, "organization", DEMO_ORGANIZATION_NAME),
    contextRow(organizationId, context("SE"), root, "region", "Sverige"),
    contextRow(organizationId, context("NO"), root, "region", "Norge"),
    ...PROPERTIES.map((property) =>
      contextRow(organizationId, context(property.key), context(property.region), "property", property.name)
    )
  ]

  const customers: Array<Insertable<CustomerTable>> = []
  const billingAccounts: Array<Insertable<BillingAccountTable>> = []
  const contracts: Array<Insertable<ContractTable>> = []
  const lineRows: Array<Insertable<ContractLineTable>> = []
  const contractRows: Array<ContractRows> = []
  const seenNumbers = new Set<string>()

  for (const [index, spec] of CUSTOMERS.entries()) {
    const property = PROPERTIES.find((candidate) => candidate.key === spec.property) as PropertySpec
    const country = property.region
    let organisationNumber: string | null = null
    if (spec.kind === "company") {
      do {
        organisationNumber = country === "SE" ? swedishOrganisationNumber(random) : norwegianOrganisationNumber(random)
      } while (seenNumbers.has(organisationNumber))
      seenNumbers.add(organisationNumber)
    }
    const customerId = demoId(`customer:nordhavn:${spec.key}`)
    const billingAccountId = demoId(`billing-account:nordhavn:${spec.key}`)
    const contractId = demoId(`contract:nordhavn:${spec.key}`)
    const currency: Currency = country === "SE" ? "SEK" : "NOK"
    customers.push({
      id: customerId,
      organizationId,
      customerNumber: String(1001 + index),
      name: spec.name,
      kind: spec.kind,
      country,
      organisationNumber,
      createdAt: setupAt,
      updatedAt: setupAt
    })
    billingAccounts.push({
      id: billingAccountId,
      organizationId,
      customerId,
      name: spec.kind === "company" ? `${spec.name}, ${country === "SE" ? "ekonomi" : "økonomi"}` : spec.name,
      email: invoiceEmail(spec),
      addressLine: property.street,
      postalCode: property.postalCode,
      city: property.city,
      country,
      createdAt: setupAt,
      updatedAt: setupAt
    })
    const startsOn =
      spec.timing === "new" ? thisMonth.periodStart : orDie(calendarMonthOf(today, -random.int(4, 40))).periodStart
    contracts.push({
      id: contractId,
      organizationId,
      operationalContextId: context(property.key),
      customerId,
      billingAccountId,
      contractNumber: `NW-${startsOn.slice(0, 4)}-${String(index + 1).padStart(4, "0")}`,
      currency,
      paymentTermsDays: spec.paymentTermsDays,
      startsOn,
      endsOn: spec.timing === "ended" ? lastMonth.periodEnd : null,
      status: spec.timing === "ended" ? "terminated" : "active",
      createdAt: setupAt,
      updatedAt: setupAt
    })
    const lines = contractLines(random, spec, property)
    const lineIds = lines.map((_, position) => demoId(`contract-line:${contractId}:${position + 1}`))
    lines.forEach((line, position) =>
      lineRows.push({ id: lineIds[position] as string, contractId, ...line, createdAt: setupAt })
    )
    contractRows.push({
      spec,
      property,
      contextId: context(property.key),
      customerId,
      billingAccountId,
      contractId,
      currency,
      lineIds,
      material: { contractId, customerName: spec.name, currency, paymentTermsDays: spec.paymentTermsDays, lines }
    })
  }

  const nordhavn = planBuilder(FIRST_INVOICE_NUMBER.nordhavn)

  // Last month's run: approved, one invoice per contract that ran last month, all in the send queue.
  const lastMonthContracts = contractRows.filter((contract) => contract.spec.timing !== "new")
  const lastDrafts = orDie(
    draftDocuments({
      ...lastMonth,
      invoiceDate: lastMonth.periodStart,
      contracts: lastMonthContracts.map((contract) => withMonth(contract.material, lastMonth))
    })
  )
  lastDrafts.forEach((draft, index) => {
    const contract = lastMonthContracts[index] as ContractRows
    const invoiceId = demoId(`invoice:nordhavn:last-month:${contract.spec.key}`)
    const approvedAt = new Date(lastRunApprovedAt.getTime() + index * 1000)
    nordhavn.rows.invoices.push({
      id: invoiceId,
      organizationId,
      invoiceRunId: DEMO_IDS.lastMonthRun,
      ...documentParty(contract),
      documentKind: "invoice",
      creditedInvoiceId: null,
      requestedInvoiceDate: draft.requestedInvoiceDate,
      requestedDueDate: draft.requestedDueDate,
      paymentTermsDays: draft.paymentTermsDays,
      invoiceNumber: nordhavn.take(),
      status: "approved",
      totalNetMinorUnits: draft.totals.net,
      totalVatMinorUnits: draft.totals.vat,
      totalGrossMinorUnits: draft.totals.gross,
      ...unsent,
      approvedAt,
      createdAt: lastRunCreatedAt,
      updatedAt: approvedAt
    })
    const chargeIds = nordhavn.chargesFor(contract, lastMonth, draft.lines, lastRunCreatedAt, () => invoiceId)
    nordhavn.documentLinesFor({ invoiceId }, draft.lines, chargeIds)
  })

  // The credit note: last month's cleaning at Vinga Logistik was not done (the floor was being rebuilt).
  const creditReason = `Städning ej utförd ${monthLabel(lastMonth)} på grund av ombyggnad av våningsplanet.`
  const creditedIndex = lastMonthContracts.findIndex((contract) => contract.spec.key === CREDITED_CUSTOMER)
  const creditedContract = lastMonthContracts[creditedIndex] as ContractRows
  const creditedDraft = lastDrafts[creditedIndex]
  const cleaning = creditedDraft?.lines.filter((line) => line.description.startsWith("Städning")) ?? []
  const credit = orDie(draftCreditNote(cleaning, creditReason))
  nordhavn.rows.invoices.push({
    id: DEMO_IDS.creditNote,
    organizationId,
    invoiceRunId: DEMO_IDS.lastMonthRun,
    ...documentParty(creditedContract),
    documentKind: "credit-note",
    creditedInvoiceId: DEMO_IDS.creditedInvoice,
    requestedInvoiceDate: isoDate(creditNoteAt),
    requestedDueDate: null,
    paymentTermsDays: null,
    invoiceNumber: nordhavn.take(),
    status: "approved",
    totalNetMinorUnits: credit.totals.net,
    totalVatMinorUnits: credit.totals.vat,
    totalGrossMinorUnits: credit.totals.gross,
    ...unsent,
    approvedAt: creditNoteAt,
    createdAt: creditNoteAt,
    updatedAt: creditNoteAt
  })
  nordhavn.documentLinesFor({ invoiceId: DEMO_IDS.creditNote }, credit.lines, [])

  // This month's run: approved under the verification gate, so it proposes; one proposal per running contract.
  const currentContracts = contractRows.filter((contract) => contract.spec.timing !== "ended")
  const currentDrafts = orDie(
    draftDocuments({
      ...thisMonth,
      invoiceDate: thisMonth.periodStart,
      contracts: currentContracts.map((contract) => withMonth(contract.material, thisMonth))
    })
  )
  const currentChargeIds = new Map<string, ReadonlyArray<string>>()
  currentDrafts.forEach((draft, index) => {
    const contract = currentContracts[index] as ContractRows
    const proposalId = demoId(`proposal:nordhavn:current-month:${contract.spec.key}`)
    const createdAt = new Date(currentRunAt.getTime() + index * 1000)
    nordhavn.rows.invoiceProposals.push({
      id: proposalId,
      organizationId,
      invoiceRunId: DEMO_IDS.currentMonthRun,
      invoiceNumber: nordhavn.take(),
      ...documentParty(contract),
      documentKind: "invoice",
      creditedInvoiceId: null,
      requestedInvoiceDate: draft.requestedInvoiceDate,
      requestedDueDate: draft.requestedDueDate,
      paymentTermsDays: draft.paymentTermsDays,
      status: "proposed",
      totalNetMinorUnits: draft.totals.net,
      totalVatMinorUnits: draft.totals.vat,
      totalGrossMinorUnits: draft.totals.gross,
      ...notDecided,
      createdAt,
      updatedAt: createdAt
    })
    const isManual = contract.spec.key === MANUALLY_INVOICED_CUSTOMER
    const parkingPosition = draft.lines.find((line) => line.description.startsWith("Parkering"))?.position
    const chargeIds = nordhavn.chargesFor(contract, thisMonth, draft.lines, currentRunAt, (position) =>
      isManual && position === parkingPosition ? DEMO_IDS.manualInvoice : null
    )
    currentChargeIds.set(contract.spec.key, chargeIds)
    nordhavn.documentLinesFor({ proposalId }, draft.lines, chargeIds)
  })

  // The manual invoice: after the run had proposed it, the operator invoiced Kvarnholmen Juridik's parking for
  // this month on its own (the customer asked for a separate invoice). The proposal still holds that charge.
  const manualIndex = currentContracts.findIndex((contract) => contract.spec.key === MANUALLY_INVOICED_CUSTOMER)
  const manualContract = currentContracts[manualIndex] as ContractRows
  const manualDraft = currentDrafts[manualIndex]
  const manualParking = manualDraft?.lines.find((line) => line.description.startsWith("Parkering"))
  const [manualDocument] = orDie(
    draftDocuments({
      ...thisMonth,
      invoiceDate: isoDate(manualAt),
      contracts: [
        {
          ...manualContract.material,
          lines:
            manualParking === undefined
              ? []
              : [
                  {
                    description: manualParking.description,
                    monthlyNetMinorUnits: manualParking.netMinorUnits,
                    vatRateBasisPoints: manualParking.vatRateBasisPoints
                  }
                ]
        }
      ]
    })
  )
  if (manualDocument === undefined || manualParking === undefined) throw new Error("demo catalog: no parking line")
  nordhavn.rows.invoices.push({
    id: DEMO_IDS.manualInvoice,
    organizationId,
    invoiceRunId: DEMO_IDS.manualRun,
    ...documentParty(manualContract),
    documentKind: "invoice",
    creditedInvoiceId: null,
    requestedInvoiceDate: manualDocument.requestedInvoiceDate,
    requestedDueDate: manualDocument.requestedDueDate,
    paymentTermsDays: manualDocument.paymentTermsDays,
    invoiceNumber: nordhavn.take(),
    status: "approved",
    totalNetMinorUnits: manualDocument.totals.net,
    totalVatMinorUnits: manualDocument.totals.vat,
    totalGrossMinorUnits: manualDocument.totals.gross,
    ...unsent,
    approvedAt: manualAt,
    createdAt: manualAt,
    updatedAt: manualAt
  })
  const manualChargeId = currentChargeIds.get(MANUALLY_INVOICED_CUSTOMER)?.[manualParking.position - 1] ?? null
  nordhavn.documentLinesFor({ invoiceId: DEMO_IDS.manualInvoice }, manualDocument.lines, [manualChargeId])

  // -- Fjord Offices AS --------------------------------------------------------------------------------------
  const fjordId = DEMO_IDS.secondOrganization
  const fjordRoot = DEMO_IDS.secondRootContext
  const fjordRegion = demoId("context:fjord:rogaland")
  const fjordProperty = demoId("context:fjord:stavanger")
  const fjordCustomer = demoId("customer:fjord:FJ-01")
  const fjordAccount = demoId("billing-account:fjord:FJ-01")
  const fjordContractId = demoId("contract:fjord:FJ-01")
  const fjordLines = [
    {
      description: "Kontorleie 140 m²",
      monthlyNetMinorUnits: Math.round((140 * 2950 * 100) / 12),
      vatRateBasisPoints: 2500
    },
    { description: "Renhold kontor", monthlyNetMinorUnits: 140 * 1850, vatRateBasisPoints: 2500 },
    { description: "Kantineavtale, 12 personer", monthlyNetMinorUnits: 12 * whole(450), vatRateBasisPoints: 1500 }
  ]
  const fjordLineIds = fjordLines.map((_, position) => demoId(`contract-line:${fjordContractId}:${position + 1}`))
  const fjordContract: ContractRows = {
    spec: {
      key: "FJ-01",
      name: "Sjøbris Konsult AS",
      kind: "company",
      property: "stavanger",
      profile: "office",
      paymentTermsDays: 14
    },
    property: PROPERTIES[2] as PropertySpec,
    contextId: fjordProperty,
    customerId: fjordCustomer,
    billingAccountId: fjordAccount,
    contractId: fjordContractId,
    currency: "NOK",
    lineIds: fjordLineIds,
    material: {
      contractId: fjordContractId,
      customerName: "Sjøbris Konsult AS",
      currency: "NOK",
      paymentTermsDays: 14,
      lines: fjordLines
    }
  }
  const fjord = planBuilder(FIRST_INVOICE_NUMBER.fjord)
  const [fjordInvoiceDraft] = orDie(
    draftDocuments({
      ...lastMonth,
      invoiceDate: lastMonth.periodStart,
      contracts: [withMonth(fjordContract.material, lastMonth)]
    })
  )
  const [fjordProposalDraft] = orDie(
    draftDocuments({
      ...thisMonth,
      invoiceDate: thisMonth.periodStart,
      contracts: [withMonth(fjordContract.material, thisMonth)]
    })
  )
  if (fjordInvoiceDraft === undefined || fjordProposalDraft === undefined) throw new Error("demo catalog: fjord")
  fjord.rows.invoices.push({
    id: DEMO_IDS.secondInvoice,
    organizationId: fjordId,
    invoiceRunId: demoId("run:fjord:last-month"),
    ...documentParty(fjordContract),
    documentKind: "invoice",
    creditedInvoiceId: null,
    requestedInvoiceDate: fjordInvoiceDraft.requestedInvoiceDate,
    requestedDueDate: fjordInvoiceDraft.requestedDueDate,
    paymentTermsDays: fjordInvoiceDraft.paymentTermsDays,
    invoiceNumber: fjord.take(),
    status: "approved",
    totalNetMinorUnits: fjordInvoiceDraft.totals.net,
    totalVatMinorUnits: fjordInvoiceDraft.totals.vat,
    totalGrossMinorUnits: fjordInvoiceDraft.totals.gross,
    ...unsent,
    approvedAt: lastRunApprovedAt,
    createdAt: lastRunCreatedAt,
    updatedAt: lastRunApprovedAt
  })
  fjord.documentLinesFor(
    { invoiceId: DEMO_IDS.secondInvoice },
    fjordInvoiceDraft.lines,
    fjord.chargesFor(fjordContract, lastMonth, fjordInvoiceDraft.lines, lastRunCreatedAt, () => DEMO_IDS.secondInvoice)
  )
  fjord.rows.invoiceProposals.push({
    id: DEMO_IDS.secondProposal,
    organizationId: fjordId,
    invoiceRunId: demoId("run:fjord:current-month"),
    invoiceNumber: fjord.take(),
    ...documentParty(fjordContract),
    documentKind: "invoice",
    creditedInvoiceId: null,
    requestedInvoiceDate: fjordProposalDraft.requestedInvoiceDate,
    requestedDueDate: fjordProposalDraft.requestedDueDate,
    paymentTermsDays: fjordProposalDraft.paymentTermsDays,
    status: "proposed",
    totalNetMinorUnits: fjordProposalDraft.totals.net,
    totalVatMinorUnits: fjordProposalDraft.totals.vat,
    totalGrossMinorUnits: fjordProposalDraft.totals.gross,
    ...notDecided,
    createdAt: currentRunAt,
    updatedAt: currentRunAt
  })
  fjord.documentLinesFor(
    { proposalId: DEMO_IDS.secondProposal },
    fjordProposalDraft.lines,
    fjord.chargesFor(fjordContract, thisMonth, fjordProposalDraft.lines, currentRunAt, () => null)
  )

  const run = (
    id: string,
    organization: string,
    contextId: string,
    period: BillingPeriod,
    createdAt: Date,
    approvedAt: Date
  ): Insertable<InvoiceRunTable> => ({
    id,
    organizationId: organization,
    operationalContextId: contextId,
    ...period,
    status: "approved",
    approvedAt,
    createdAt,
    updatedAt: approvedAt
  })

  const ownCharges = (organization: string, charges: ReadonlyArray<Insertable<ChargeTable>>) =>
    charges.map((charge) => ({ ...charge, organizationId: organization }))

  return {
    organizations: [
      {
        id: organizationId,
        name: DEMO_ORGANIZATION_NAME,
        country: "SE",
        nextInvoiceNumber: nordhavn.used(),
        createdAt: setupAt,
        updatedAt: now
      },
      {
        id: fjordId,
        name: SECOND_ORGANIZATION_NAME,
        country: "NO",
        nextInvoiceNumber: fjord.used(),
        createdAt: setupAt,
        updatedAt: now
      }
    ],
    // One millisecond apart in tree order, so lists ordered by creation show parents before children.
    operationalContexts: [
      ...operationalContexts,
      contextRow(fjordId, fjordRoot, null, "organization", SECOND_ORGANIZATION_NAME),
      contextRow(fjordId, fjordRegion, fjordRoot, "region", "Rogaland"),
      contextRow(fjordId, fjordProperty, fjordRegion, "property", "Stavanger Sentrum")
    ].map((row, index) => {
      const at = new Date(setupAt.getTime() + index)
      return { ...row, createdAt: at, updatedAt: at }
    }),
    customers: [
      ...customers,
      {
        id: fjordCustomer,
        organizationId: fjordId,
        customerNumber: "101",
        name: "Sjøbris Konsult AS",
        kind: "company",
        country: "NO",
        organisationNumber: norwegianOrganisationNumber(random),
        createdAt: setupAt,
        updatedAt: setupAt
      }
    ],
    billingAccounts: [
      ...billingAccounts,
      {
        id: fjordAccount,
        organizationId: fjordId,
        customerId: fjordCustomer,
        name: "Sjøbris Konsult AS, økonomi",
        email: "faktura@sjobriskonsult.example",
        addressLine: "Skagen 22",
        postalCode: "4006",
        city: "Stavanger",
        country: "NO",
        createdAt: setupAt,
        updatedAt: setupAt
      }
    ],
    contracts: [
      ...contracts,
      {
        id: fjordContractId,
        organizationId: fjordId,
        operationalContextId: fjordProperty,
        customerId: fjordCustomer,
        billingAccountId: fjordAccount,
        contractNumber: "FO-2025-0001",
        currency: "NOK",
        paymentTermsDays: 14,
        startsOn: orDie(calendarMonthOf(today, -14)).periodStart,
        endsOn: null,
        status: "active",
        createdAt: setupAt,
        updatedAt: setupAt
      }
    ],
    contractLines: [
      ...lineRows,
      ...fjordLines.map((line, position) => ({
        id: fjordLineIds[position] as string,
        contractId: fjordContractId,
        ...line,
        createdAt: setupAt
      }))
    ],
    billingIntegrations: [
      {
        organizationId,
        provider: "Fortnox",
        status: "ready",
        declaredGates: ["verification"],
        externalAccount: "fortnox:nordhavn-workspaces",
        createdAt: setupAt,
        updatedAt: gateDeclaredAt
      },
      {
        organizationId: fjordId,
        provider: "Tripletex",
        status: "ready",
        declaredGates: ["verification"],
        externalAccount: "tripletex:fjord-offices",
        createdAt: setupAt,
        updatedAt: gateDeclaredAt
      }
    ],
    invoiceRuns: [
      run(DEMO_IDS.lastMonthRun, organizationId, root, lastMonth, lastRunCreatedAt, lastRunApprovedAt),
      run(DEMO_IDS.currentMonthRun, organizationId, root, thisMonth, currentRunAt, currentRunAt),
      run(DEMO_IDS.manualRun, organizationId, context("sthlm"), thisMonth, manualAt, manualAt),
      run(demoId("run:fjord:last-month"), fjordId, fjordRoot, lastMonth, lastRunCreatedAt, lastRunApprovedAt),
      run(demoId("run:fjord:current-month"), fjordId, fjordRoot, thisMonth, currentRunAt, currentRunAt)
    ],
    // Originals before the credit note that references one of them.
    invoices: [...nordhavn.rows.invoices, ...fjord.rows.invoices].sort(
      (a, b) => Number(a.documentKind === "credit-note") - Number(b.documentKind === "credit-note")
    ),
    invoiceProposals: [...nordhavn.rows.invoiceProposals, ...fjord.rows.invoiceProposals],
    charges: [...ownCharges(organizationId, nordhavn.rows.charges), ...ownCharges(fjordId, fjord.rows.charges)],
    documentLines: [...nordhavn.rows.documentLines, ...fjord.rows.documentLines],
    creditReason
  }
}

/** A new invoice: no caller reference yet, and nothing that report-sent, payments or failures set later. */
const unsent = { externalReference: null, ...unsentInvoiceColumns } as const

/** The columns of a proposal that the verdicts set later: all empty. */
const notDecided = {
  rejectionReason: null,
  passedAt: null,
  rejectedAt: null,
  cancelledAt: null,
  invoiceId: null
} as const
