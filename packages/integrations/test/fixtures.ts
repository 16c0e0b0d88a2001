import { Either } from "effect"
import type { ConnectionReferenceRecord } from "../src/ConnectionReference.js"
import type { InstallationFacts } from "../src/ConfigurationLifecycle.js"
import type { IntegrationConfigurationRecord } from "../src/IntegrationConfiguration.js"

/** The frozen "now" every transition in the tests is given. */
export const NOW = new Date("2026-11-23T09:26:53.000Z")
/** An earlier instant, for fields set before the transition under test. */
export const EARLIER = new Date("2026-11-23T09:20:00.000Z")

export const ORGANIZATION_ID = "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e01"
export const INSTALLATION_ID = "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e02"
export const OTHER_INSTALLATION_ID = "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e03"
export const CONFIGURATION_ID = "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e04"

/** A context tree: root → (sverige → kungsholmen), (norge → aker). */
export const CONTEXTS = {
  root: "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e10",
  sverige: "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e11",
  norge: "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e12",
  kungsholmen: "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e13",
  aker: "7a0c5e2e-5b1d-4d3a-9f0e-1c2b3a4d5e14"
} as const

export const TREE = [
  { id: CONTEXTS.root, parentId: null },
  { id: CONTEXTS.sverige, parentId: CONTEXTS.root },
  { id: CONTEXTS.norge, parentId: CONTEXTS.root },
  { id: CONTEXTS.kungsholmen, parentId: CONTEXTS.sverige },
  { id: CONTEXTS.aker, parentId: CONTEXTS.norge }
]

export const anInstallation = (fields: Partial<InstallationFacts> = {}): InstallationFacts => ({
  id: INSTALLATION_ID,
  appId: "acme-erp",
  organizationId: ORGANIZATION_ID,
  status: "active",
  roles: ["billing", "signing", "booking", "integrations"],
  contextIds: [CONTEXTS.sverige],
  ...fields
})

export const aConfiguration = (fields: Partial<IntegrationConfigurationRecord> = {}): IntegrationConfigurationRecord => ({
  id: CONFIGURATION_ID,
  organizationId: ORGANIZATION_ID,
  installationId: INSTALLATION_ID,
  appId: "acme-erp",
  kind: "billing",
  status: "pending",
  operationalContextIds: [CONTEXTS.sverige],
  declaredGates: [],
  createdAt: EARLIER,
  updatedAt: EARLIER,
  ...fields
})

export const aReference = (fields: Partial<ConnectionReferenceRecord> = {}): ConnectionReferenceRecord => ({
  digest: "a".repeat(64),
  configurationId: CONFIGURATION_ID,
  installationId: INSTALLATION_ID,
  issuedAt: EARLIER,
  expiresAt: new Date(EARLIER.getTime() + 600_000),
  ...fields
})

export const getRight = <R, L>(either: Either.Either<R, L>): R => {
  if (Either.isLeft(either)) throw new Error(`expected Right, got Left: ${JSON.stringify(either.left)}`)
  return either.right
}

export const getLeft = <R, L>(either: Either.Either<R, L>): L => {
  if (Either.isRight(either)) throw new Error(`expected Left, got Right: ${JSON.stringify(either.right)}`)
  return either.left
}
