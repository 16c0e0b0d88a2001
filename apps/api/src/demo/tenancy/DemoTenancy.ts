/**
 * The tenancy part of the demo (spec 2.1, 2.2; decisions 2, 5): the organizations, their operational contexts,
 * and the customers, billing accounts, contracts and contract lines at the properties. Names, areas, prices and
 * organisation numbers are drawn from the shared generator, in customer order.
 *
 * - "Nordhavn Workspaces AB" (SE): contexts root → Sverige (Stockholm Slussen, Göteborg Lindholmen), Norge
 *   (Oslo Bjørvika, Bergen Bryggen); 24 customers (22 companies with valid organisation numbers, 2 private
 *   persons), a billing account and a contract each (SEK in Sweden, NOK in Norway), monthly lines at the
 *   countries' VAT rates; one contract starts this month in each country, one ended last month.
 * - "Fjord Offices AS" (NO), for tenant-isolation checks: 3 contexts, 1 customer, 1 contract.
 */
import type {
  BillingAccountTable,
  ContractLineTable,
  ContractTable,
  CustomerTable,
  OperationalContextTable,
  OrganizationTable
} from "@propline/db/Database"
import type { Currency } from "@propline/billing/Invoice"
import { calendarMonthOf, type ContractMaterial } from "@propline/billing/InvoiceRun"
import type { Insertable } from "kysely"
import {
  DEMO_IDS,
  DEMO_ORGANIZATION_NAME,
  demoId,
  type DemoTimeline,
  norwegianOrganisationNumber,
  orDie,
  type Random,
  SECOND_ORGANIZATION_NAME,
  swedishOrganisationNumber
} from "../DemoIds.js"

type Country = "SE" | "NO"
export type Profile = "office" | "coworking" | "flex" | "exempt-office"

export interface PropertySpec {
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

export interface CustomerSpec {
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

/** `units` whole kronor or kroner in minor units (öre, øre). */
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

/** A contract with the ids of its rows and what billing drafts its documents from. */
export interface ContractRows {
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

/** The id of one of Nordhavn's contexts: a country (`SE`, `NO`) or a property's key (`sthlm`). */
export const nordhavnContextId = (key: string): string => demoId(`context:nordhavn:${key}`)

/** The tenancy rows of the demo, per table, each in an order that satisfies its own foreign keys. */
export interface DemoTenancyPlan {
  readonly operationalContexts: ReadonlyArray<Insertable<OperationalContextTable>>
  readonly customers: ReadonlyArray<Insertable<CustomerTable>>
  readonly billingAccounts: ReadonlyArray<Insertable<BillingAccountTable>>
  readonly contracts: ReadonlyArray<Insertable<ContractTable>>
  readonly contractLines: ReadonlyArray<Insertable<ContractLineTable>>
}

/** What billing drafts its documents from: each organization's contracts, in customer order. */
export interface DemoContracts {
  readonly nordhavn: ReadonlyArray<ContractRows>
  readonly fjord: ContractRows
}

/**
 * The tenancy rows for `timeline`, drawing from `random` (Nordhavn's customers in order, then Fjord's), and the
 * contracts billing needs.
 */
export const demoTenancy = (
  timeline: DemoTimeline,
  random: Random
): { readonly plan: DemoTenancyPlan; readonly contracts: DemoContracts } => {
  const { lastMonth, setupAt, thisMonth, today } = timeline

  // -- Nordhavn Workspaces AB -------------------------------------------------------------------------------
  const organizationId = DEMO_IDS.organization
  const root = DEMO_IDS.rootContext
  const context = nordhavnContextId
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

  const plan: DemoTenancyPlan = {
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
    ]
  }
  return { plan, contracts: { nordhavn: contractRows, fjord: fjordContract } }
}

/**
 * The two organizations; `nextInvoiceNumber` is the next free number of each one's series once billing has
 * numbered its documents.
 */
export const demoOrganizations = (
  timeline: DemoTimeline,
  nextInvoiceNumber: { readonly nordhavn: number; readonly fjord: number }
): ReadonlyArray<Insertable<OrganizationTable>> => [
  {
    id: DEMO_IDS.organization,
    name: DEMO_ORGANIZATION_NAME,
    country: "SE",
    nextInvoiceNumber: nextInvoiceNumber.nordhavn,
    createdAt: timeline.setupAt,
    updatedAt: timeline.now
  },
  {
    id: DEMO_IDS.secondOrganization,
    name: SECOND_ORGANIZATION_NAME,
    country: "NO",
    nextInvoiceNumber: nextInvoiceNumber.fjord,
    createdAt: timeline.setupAt,
    updatedAt: timeline.now
  }
]
