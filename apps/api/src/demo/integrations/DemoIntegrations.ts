/**
 * The integrations part of the demo (spec 4.2 "Integrations"; decisions 5, 8): the demo connector app
 * (`identity/DemoConnector.ts` gives it its key pair at start-up) installed in both demo organizations with every
 * role over the root context, each installation with a billing configuration of the root context that its
 * connector reported `ready` with the `verification` gate — the billing integration the billing demo runs under.
 *
 * Start-up adds, to the demo organization's installation, a signing configuration waiting for Connect, and issues
 * a fresh connection reference for it on every start (`identity/DemoConnector.ts`).
 *
 * Timeline (UTC): the organizations' set-up day for the app, the installations and the configurations; the
 * billing configurations reported ready (with the gate) 24 h ago, so last month's run produced invoices and this
 * month's proposals.
 */
import type {
  ConnectorAppTable,
  InstallationContextTable,
  InstallationTable,
  IntegrationConfigurationContextTable,
  IntegrationConfigurationTable
} from "@propline/db/Database"
import type { Insertable } from "kysely"
import { DAY, DEMO_IDS, type DemoTimeline, demoId, HOUR } from "../DemoIds.js"
import {
  DEMO_CONNECTOR_APP_ID,
  DEMO_CONNECTOR_NAME,
  DEMO_CONNECTOR_ROLES,
  DEMO_CONNECTOR_SETUP_URL
} from "../identity/DemoConnector.js"

/** The demo's installations and billing configurations, by organization. */
export const DEMO_INTEGRATION_IDS = {
  installation: demoId("installation:nordhavn:demo-connector"),
  billingConfiguration: demoId("configuration:nordhavn:billing"),
  secondInstallation: demoId("installation:fjord:demo-connector"),
  secondBillingConfiguration: demoId("configuration:fjord:billing")
} as const

/** The integrations rows of the demo, per table, each in an order that satisfies its own foreign keys. */
export interface DemoIntegrationsPlan {
  readonly connectorApps: ReadonlyArray<Insertable<ConnectorAppTable>>
  readonly installations: ReadonlyArray<Insertable<InstallationTable>>
  readonly installationContexts: ReadonlyArray<Insertable<InstallationContextTable>>
  readonly integrationConfigurations: ReadonlyArray<Insertable<IntegrationConfigurationTable>>
  readonly integrationConfigurationContexts: ReadonlyArray<Insertable<IntegrationConfigurationContextTable>>
}

export const demoIntegrations = (timeline: DemoTimeline): DemoIntegrationsPlan => {
  const { ago, setupAt } = timeline
  const connectedAt = new Date(setupAt.getTime() + DAY)
  const readyAt = ago(24 * HOUR)
  const tenants = [
    {
      organizationId: DEMO_IDS.organization,
      rootId: DEMO_IDS.rootContext,
      installationId: DEMO_INTEGRATION_IDS.installation,
      configurationId: DEMO_INTEGRATION_IDS.billingConfiguration,
      account: { id: "fortnox:nordhavn-workspaces", name: "Nordhavn Workspaces AB (Fortnox)" },
      settings: { invoiceSeries: "NW", bookkeepingCurrency: "SEK" }
    },
    {
      organizationId: DEMO_IDS.secondOrganization,
      rootId: DEMO_IDS.secondRootContext,
      installationId: DEMO_INTEGRATION_IDS.secondInstallation,
      configurationId: DEMO_INTEGRATION_IDS.secondBillingConfiguration,
      account: { id: "tripletex:fjord-offices", name: "Fjord Offices AS (Tripletex)" },
      settings: { bookkeepingCurrency: "NOK" }
    }
  ]
  return {
    connectorApps: [
      { id: DEMO_CONNECTOR_APP_ID, name: DEMO_CONNECTOR_NAME, setupUrl: DEMO_CONNECTOR_SETUP_URL, createdAt: setupAt, updatedAt: setupAt }
    ],
    installations: tenants.map((tenant) => ({
      id: tenant.installationId,
      appId: DEMO_CONNECTOR_APP_ID,
      organizationId: tenant.organizationId,
      status: "active" as const,
      roles: [...DEMO_CONNECTOR_ROLES],
      createdAt: setupAt,
      updatedAt: setupAt,
      suspendedAt: null,
      removedAt: null
    })),
    installationContexts: tenants.map((tenant) => ({
      installationId: tenant.installationId,
      operationalContextId: tenant.rootId
    })),
    integrationConfigurations: tenants.map((tenant) => ({
      id: tenant.configurationId,
      organizationId: tenant.organizationId,
      installationId: tenant.installationId,
      appId: DEMO_CONNECTOR_APP_ID,
      kind: "billing" as const,
      status: "ready" as const,
      externalAccountId: tenant.account.id,
      externalAccountName: tenant.account.name,
      declaredGates: ["verification"],
      settings: JSON.stringify(tenant.settings),
      failureReason: null,
      createdAt: setupAt,
      connectedAt,
      readyAt,
      failedAt: null,
      disconnectedAt: null,
      updatedAt: readyAt
    })),
    integrationConfigurationContexts: tenants.map((tenant) => ({
      configurationId: tenant.configurationId,
      kind: "billing" as const,
      operationalContextId: tenant.rootId,
      filled: true
    }))
  }
}
