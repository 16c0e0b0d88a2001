/**
 * The console's pages and its navigation, one entry per page: a capability's operator pages plug in by adding
 * their routes and a navigation section here.
 */
import type { ReactNode } from "react"
import { ApplicationPage, ApplicationsPage, NewApplicationPage } from "./pages/Applications.js"
import { AuditLogPage } from "./pages/AuditLog.js"
import { BillingOverviewPage } from "./pages/BillingOverview.js"
import { AddOnProductsPage, BookingRequestsPage, ResourcePage, ResourcesPage } from "./pages/Booking.js"
import { EditAddOnProductPage, EditResourcePage, NewAddOnProductPage, NewResourcePage } from "./pages/BookingSetup.js"
import { InvoicePage, InvoiceRunsPage, InvoicesPage, ProposalsPage, SendQueuePage, WithdrawalQueuePage } from "./pages/Billing.js"
import { ConnectorAppPage, ConnectorAppsPage, NewConnectorAppPage } from "./pages/ConnectorApps.js"
import { ContractPage, ContractsPage, CustomerPage, CustomersPage } from "./pages/Customers.js"
import { IntegrationConfigurationPage, IntegrationConfigurationsPage, NewIntegrationConfigurationPage } from "./pages/IntegrationConfigurations.js"
import { OrganizationPage } from "./pages/Organization.js"
import { BookingRequestPage } from "./pages/BookingRequestDetail.js"
import { InvoiceRunPage } from "./pages/InvoiceRunDetail.js"
import { ProposalPage } from "./pages/ProposalDetail.js"
import { SigningAttemptPage } from "./pages/SigningAttemptDetail.js"
import { AccountPage } from "./pages/Security.js"
import { BookingCalendarPage } from "./pages/BookingCalendar.js"
import { TeamPage } from "./pages/Team.js"
import { NewWebhookEndpointPage, WebhookDeliveriesPage, WebhookDeliveryPage, WebhookEndpointPage, WebhookEndpointsPage } from "./pages/Webhooks.js"

export interface Route {
  readonly pattern: string
  readonly render: (params: Readonly<Record<string, string>>) => ReactNode
}

export const routes: ReadonlyArray<Route> = [
  { pattern: "/", render: () => <OrganizationPage /> },
  { pattern: "/organization", render: () => <OrganizationPage /> },
  { pattern: "/customers", render: () => <CustomersPage /> },
  { pattern: "/customers/:id", render: (p) => <CustomerPage id={p["id"]!} /> },
  { pattern: "/contracts", render: () => <ContractsPage /> },
  { pattern: "/contracts/:id", render: (p) => <ContractPage id={p["id"]!} /> },
  { pattern: "/applications", render: () => <ApplicationsPage /> },
  { pattern: "/applications/new", render: () => <NewApplicationPage /> },
  { pattern: "/applications/:id", render: (p) => <ApplicationPage id={p["id"]!} /> },
  { pattern: "/connector-apps", render: () => <ConnectorAppsPage /> },
  { pattern: "/connector-apps/new", render: () => <NewConnectorAppPage /> },
  { pattern: "/connector-apps/:id", render: (p) => <ConnectorAppPage id={p["id"]!} /> },
  { pattern: "/integration-configurations", render: () => <IntegrationConfigurationsPage /> },
  { pattern: "/integration-configurations/new", render: () => <NewIntegrationConfigurationPage /> },
  { pattern: "/integration-configurations/:id", render: (p) => <IntegrationConfigurationPage id={p["id"]!} /> },
  { pattern: "/webhooks", render: () => <WebhookEndpointsPage /> },
  { pattern: "/webhooks/new", render: () => <NewWebhookEndpointPage /> },
  { pattern: "/webhooks/deliveries", render: () => <WebhookDeliveriesPage /> },
  { pattern: "/webhooks/deliveries/:id", render: (p) => <WebhookDeliveryPage id={p["id"]!} /> },
  { pattern: "/webhooks/:id", render: (p) => <WebhookEndpointPage id={p["id"]!} /> },
  { pattern: "/billing", render: () => <BillingOverviewPage /> },
  { pattern: "/billing/invoice-runs", render: () => <InvoiceRunsPage /> },
  { pattern: "/billing/invoice-runs/:id", render: (p) => <InvoiceRunPage id={p["id"]!} /> },
  { pattern: "/billing/proposals/:id", render: (p) => <ProposalPage id={p["id"]!} /> },
  { pattern: "/booking/requests/:id", render: (p) => <BookingRequestPage id={p["id"]!} /> },
  { pattern: "/signing-attempts/:id", render: (p) => <SigningAttemptPage id={p["id"]!} /> },
  { pattern: "/billing/invoices", render: () => <InvoicesPage /> },
  { pattern: "/billing/invoices/:id", render: (p) => <InvoicePage id={p["id"]!} /> },
  { pattern: "/billing/proposals", render: () => <ProposalsPage /> },
  { pattern: "/billing/send-queue", render: () => <SendQueuePage /> },
  { pattern: "/billing/withdrawal-queue", render: () => <WithdrawalQueuePage /> },
  { pattern: "/booking/requests", render: () => <BookingRequestsPage /> },
  { pattern: "/booking/resources", render: () => <ResourcesPage /> },
  { pattern: "/booking/resources/new", render: () => <NewResourcePage /> },
  { pattern: "/booking/resources/:id", render: (p) => <ResourcePage id={p["id"]!} /> },
  { pattern: "/booking/resources/:id/setup", render: (p) => <EditResourcePage id={p["id"]!} /> },
  { pattern: "/booking/add-on-products", render: () => <AddOnProductsPage /> },
  { pattern: "/booking/add-on-products/new", render: () => <NewAddOnProductPage /> },
  { pattern: "/booking/add-on-products/:id", render: (p) => <EditAddOnProductPage id={p["id"]!} /> },
  { pattern: "/audit-log", render: () => <AuditLogPage /> },
  { pattern: "/team", render: () => <TeamPage /> },
  { pattern: "/booking/calendar", render: () => <BookingCalendarPage /> },
  { pattern: "/account", render: () => <AccountPage /> }
]

export interface NavigationSection {
  readonly title: string
  readonly links: ReadonlyArray<readonly [href: string, label: string]>
}

export const navigation: ReadonlyArray<NavigationSection> = [
  {
    title: "Organization",
    links: [
      ["/organization", "Organization"],
      ["/customers", "Customers"],
      ["/contracts", "Contracts"]
    ]
  },
  {
    title: "Billing",
    links: [
      ["/billing", "Overview"],
      ["/billing/invoice-runs", "Invoice runs"],
      ["/billing/invoices", "Invoices"],
      ["/billing/proposals", "Proposals"],
      ["/billing/send-queue", "Send queue"],
      ["/billing/withdrawal-queue", "Withdrawal queue"]
    ]
  },
  {
    title: "Booking",
    links: [
      ["/booking/requests", "Booking requests"],
      ["/booking/calendar", "Calendar"],
      ["/booking/resources", "Resources"],
      ["/booking/add-on-products", "Add-on products"]
    ]
  },
  {
    title: "Integrations",
    links: [
      ["/applications", "Applications"],
      ["/connector-apps", "Connector apps"],
      ["/integration-configurations", "Integration configurations"],
      ["/webhooks", "Webhooks"],
      ["/webhooks/deliveries", "Webhook deliveries"]
    ]
  },
  { title: "Oversight", links: [["/audit-log", "Audit log"]] },
  {
    title: "Team",
    links: [
      ["/team", "Operators"],
      ["/account", "Your account"]
    ]
  }
]
