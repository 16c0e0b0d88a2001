/**
 * The console's webhooks pages in headless Chromium (issue 22, item 7), against the real hosts with their worker
 * and a local receiver (a node:http server in this test): an operator creates an endpoint pointing at the receiver
 * (event types from the catalog, a context; the empty form's message first), copies nothing but reads the `whsec_`
 * secret once; sends a test event that the receiver refuses once and then takes, and sees it delivered in the
 * endpoint's log with both attempts (status, latency, the response's first 1 KB); redelivers it (same `webhook-id`)
 * and everything since a time; rotates the secret (both secrets verify the next delivery); disables and enables the
 * endpoint and deletes it, each confirmed in the page; the auto-disabled notice names a failing endpoint; a connector
 * app's publisher declares the app's webhook on its page. Every page renders at 1280 and 390 px without a horizontal
 * scrollbar (screenshots in `apps/api/.artifacts/screenshots`).
 *
 * On PGlite only (it drives a browser); local receivers are allowed and the retry schedule runs in milliseconds
 * through the environment the hosts read (WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS, WEBHOOK_RETRY_SCALE).
 */
import type { InvoiceApproved } from "@propline/billing/BillingEvent"
import * as Db from "@propline/db/Db"
import type { Browser, Page } from "playwright-core"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { Webhook } from "standardwebhooks"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ConnectorAppService } from "../../src/identity/ConnectorAppService.js"
import * as Outbox from "../../src/platform/Outbox.js"
import * as Sql from "../../src/platform/Sql.js"
import { newKeyPair } from "../identity/ConnectorFixtures.js"
import { type OperatorFixture, operator } from "../support/AdminClient.js"
import { chromiumPath, screenshotDir } from "../support/Browser.js"
import { signedInPage } from "../support/ConsolePage.js"
import * as Fixtures from "../support/Fixtures.js"
import { installConnector } from "../support/IntegrationFixtures.js"
import { start, type TestApp } from "../support/TestApp.js"
import { type Receiver, receiver } from "./WebhookFixtures.js"

const executablePath = chromiumPath()

describe.skipIf(executablePath === undefined)("webhooks in the console, in Chromium", () => {
  let app: TestApp
  let browser: Browser
  let page: Page
  let me: OperatorFixture
  let org: Fixtures.OrganizationFixture
  let hook: Receiver
  let secret = ""
  let endpointPath = ""
  const shots = screenshotDir()

  const h1 = (name: string | RegExp) => page.getByRole("heading", { level: 1, name })
  const settled = () => expect.poll(() => page.getByRole("status").filter({ hasText: "Loading" }).count()).toBe(0)
  /** Presses Refresh until the delivery log's first row (or the delivery's facts) shows `status`. */
  const refreshUntil = async (status: string, scope = page.locator("tbody .status").first()) => {
    await expect
      .poll(
        async () => {
          await page.getByRole("button", { name: "Refresh" }).click()
          await settled()
          return scope.textContent()
        },
        { timeout: 20_000 }
      )
      .toBe(status)
  }
  const verifies = (key: string, received: Receiver["received"][number]) => {
    try {
      new Webhook(key).verify(received.body, received.headers as Record<string, string>)
      return true
    } catch {
      return false
    }
  }
  const noOverflow = async (name: string) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 })
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth")
      expect(overflow, `${name} at ${width} px`).toBeLessThanOrEqual(0)
      await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  beforeAll(async () => {
    process.env["WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS"] = "true"
    process.env["WEBHOOK_RETRY_SCALE"] = "0.0002"
    app = await start("pglite")
    org = await app.run(Fixtures.organization({ name: "Webbkrok Konsol AB" }))
    me = await app.run(operator(org.organizationId))
    hook = await receiver()
    const signedIn = await signedInPage(executablePath!, app.adminUrl, me)
    browser = signedIn.browser
    page = signedIn.page
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await hook?.close()
    await app?.dispose()
    delete process.env["WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS"]
    delete process.env["WEBHOOK_RETRY_SCALE"]
  })

  it("creates an endpoint at the local receiver with event types from the catalog and a context; the secret is shown once", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks", exact: true }).click()
    await expect.poll(() => h1("Webhooks").isVisible()).toBe(true)
    await expect.poll(() => page.getByText("No webhook endpoint matches.").isVisible()).toBe(true)
    await page.getByRole("link", { name: "New endpoint" }).click()
    await expect.poll(() => h1("New webhook endpoint").isVisible()).toBe(true)

    await page.getByRole("button", { name: "Create endpoint" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("Some fields need attention.")
    expect(await page.getByLabel("URL").getAttribute("aria-invalid")).toBe("true")
    await page.getByLabel("URL").fill("ftp://127.0.0.1/hook")
    await page.getByRole("button", { name: "Create endpoint" }).click()
    await expect.poll(() => page.locator(".field-invalid .field-error").first().textContent()).toMatch(/http/)
    await page.screenshot({ path: path.join(shots, "new-webhook-endpoint-invalid.png"), fullPage: true })

    await page.getByLabel("URL").fill(hook.url("/console"))
    await page.getByLabel("Description").fill("Browser receiver")
    await page.getByLabel("billing.invoice.approved").check()
    await page.getByLabel(/Kungsholmen/).check()
    await noOverflow("new-webhook-endpoint")
    await page.getByRole("button", { name: "Create endpoint" }).click()
    await expect.poll(() => h1("Webhook endpoint created").isVisible()).toBe(true)
    secret = await page.locator(".secret-once input").inputValue()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    await page.screenshot({ path: path.join(shots, "webhook-secret-once.png"), fullPage: true })

    await page.getByRole("link", { name: "Go to the endpoint" }).click()
    await expect.poll(() => h1("Browser receiver").isVisible()).toBe(true)
    endpointPath = new URL(page.url()).pathname
    expect(await page.content()).not.toContain(secret)
    await expect.poll(() => page.getByText(`…${secret.slice(-4)}`).isVisible()).toBe(true)
    await expect.poll(() => page.locator(".facts").getByText("billing.invoice.approved").isVisible()).toBe(true)
    await expect.poll(() => page.locator(".facts").getByText("Kungsholmen").isVisible()).toBe(true)
  })

  it("sends a test event the receiver refuses once, then sees it delivered with both attempts, latency and response", async () => {
    let refusals = 1
    hook.received.length = 0
    hook.answer = (request) =>
      refusals-- > 0 ? { status: 500, body: "receiver down" } : { status: 200, body: `received ${String(request.headers["webhook-id"])}` }
    await page.getByRole("button", { name: "Send a test event" }).click()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "A test event was queued" }).isVisible()).toBe(true)
    await refreshUntil("delivered")
    expect(hook.received).toHaveLength(2)
    const [failed, delivered] = hook.received
    const webhookId = String(delivered!.headers["webhook-id"])
    expect(failed!.headers["webhook-id"]).toBe(webhookId)
    expect(verifies(secret, delivered!)).toBe(true)
    expect(JSON.parse(delivered!.body)).toMatchObject({ id: webhookId, type: "webhook.test", organizationId: org.organizationId })
    await noOverflow("webhook-endpoint")

    await page.getByRole("region", { name: "Delivery log" }).getByRole("link", { name: "webhook.test" }).first().click()
    await expect.poll(() => h1("Delivery of webhook.test").isVisible()).toBe(true)
    const attempts = page.getByRole("region", { name: "Attempts" }).locator("tbody tr")
    await expect.poll(() => attempts.count()).toBe(2)
    await expect.poll(() => attempts.nth(0).textContent()).toMatch(/HTTP 500.*\d+ ms.*receiver down/)
    await expect.poll(() => attempts.nth(1).textContent()).toMatch(new RegExp(`HTTP 200.*\\d+ ms.*received ${webhookId}`))
    await expect.poll(() => page.locator("pre.payload").textContent()).toContain(`"type": "webhook.test"`)
    await noOverflow("webhook-delivery")
  })

  it("redelivers the event with the same webhook-id, lists every delivery of it; a change's event is delivered, filtered in the log, and redelivered with everything since a time", async () => {
    hook.received.length = 0
    hook.answer = () => ({ status: 204 })
    const eventId = (await page.locator(".facts code").first().textContent()) ?? ""
    await page.getByRole("button", { name: "Redeliver" }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toMatch(/pending|delivered/)
    await refreshUntil("delivered", page.locator(".facts .status").first())
    expect(hook.received.map((request) => request.headers["webhook-id"])).toEqual([eventId])
    expect(verifies(secret, hook.received[0]!)).toBe(true)

    await page.getByRole("link", { name: "Every delivery of this event" }).click()
    await expect.poll(() => h1("Webhook deliveries").isVisible()).toBe(true)
    await expect.poll(() => page.locator("tbody tr").count()).toBe(2)
    expect(page.url()).toContain(`eventId=${eventId}`)
    await noOverflow("webhook-deliveries")

    // A change's event, as the billing service writes it: the invoice and its outbox row in one transaction.
    hook.received.length = 0
    const invoiceId = await app.run(Fixtures.approvedInvoice(org, { contextId: org.propertyId }))
    const event: InvoiceApproved = {
      _tag: "billing.invoice.approved",
      invoiceId,
      organizationId: org.organizationId,
      operationalContextId: org.propertyId,
      at: new Date()
    }
    await app.run(Sql.transaction(Outbox.append([event])))
    await expect.poll(() => hook.received.length, { timeout: 20_000 }).toBe(1)
    const approved = JSON.parse(hook.received[0]!.body) as { id: string; type: string; data: { object: { id: string } } }
    expect(approved).toMatchObject({ type: "billing.invoice.approved", data: { object: { id: invoiceId } } })

    await page.goto(`${app.adminUrl}${endpointPath}?status=delivered&eventType=billing.invoice.approved`)
    await expect.poll(() => h1("Browser receiver").isVisible()).toBe(true)
    await settled()
    expect(await page.getByLabel("Status").inputValue()).toBe("delivered")
    expect(await page.getByLabel("Event type").inputValue()).toBe("billing.invoice.approved")
    const log = page.getByRole("region", { name: "Delivery log" }).locator("tbody tr")
    await expect.poll(() => log.count()).toBe(1)
    await expect.poll(() => log.first().textContent()).toContain("billing.invoice.approved")
    await page.getByText("Redeliver since a time").click()
    await page.getByLabel("Delivered ones too").check()
    await page.getByRole("button", { name: "Redeliver", exact: true }).click()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "queued again" }).textContent()).toBe("1 delivery queued again.")
    await expect.poll(() => hook.received.length, { timeout: 20_000 }).toBe(2)
    expect(hook.received.map((request) => request.headers["webhook-id"])).toEqual([approved.id, approved.id])
    expect(verifies(secret, hook.received[1]!)).toBe(true)
  })

  it("rotates the secret, confirmed in the page: the next delivery verifies with the new and the old secret", async () => {
    hook.received.length = 0
    await page.getByRole("button", { name: "Rotate secret" }).click()
    const confirm = page.getByRole("dialog", { name: /Rotate the signing secret/ })
    await expect.poll(() => confirm.isVisible()).toBe(true)
    await expect.poll(() => page.evaluate<string>("document.activeElement?.textContent ?? \"\"")).toBe("Cancel")
    await page.screenshot({ path: path.join(shots, "webhook-rotate-confirm.png"), fullPage: true })
    await confirm.getByRole("button", { name: "Rotate the secret" }).click()
    const rotated = await page.locator(".secret-once input").inputValue()
    expect(rotated).toMatch(/^whsec_/)
    expect(rotated).not.toBe(secret)
    await expect.poll(() => page.locator(".secret-once").textContent()).toContain("The previous secret keeps signing")
    await page.getByRole("button", { name: "Send a test event" }).click()
    await expect.poll(() => hook.received.length, { timeout: 20_000 }).toBe(1)
    expect(verifies(rotated, hook.received[0]!)).toBe(true)
    expect(verifies(secret, hook.received[0]!)).toBe(true)
  })

  it("disables, enables and deletes the endpoint, each confirmed in the page; cancelling changes nothing", async () => {
    await page.getByRole("button", { name: "Disable" }).click()
    await page.getByRole("button", { name: "Cancel" }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("enabled")
    await page.getByRole("button", { name: "Disable" }).click()
    await page.getByRole("button", { name: "Disable the endpoint" }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("disabled")
    await page.getByRole("button", { name: "Enable" }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("enabled")

    await page.getByRole("button", { name: "Delete" }).click()
    await page.getByRole("button", { name: "Delete the endpoint" }).click()
    await expect.poll(() => h1("Webhooks").isVisible()).toBe(true)
    await expect.poll(() => page.getByText("No webhook endpoint matches.").isVisible()).toBe(true)
  })

  it("names an endpoint disabled after days of failing above the list and on its page", async () => {
    await page.getByRole("link", { name: "New endpoint" }).click()
    await page.getByLabel("URL").fill(hook.url("/gone"))
    await page.getByLabel("Description").fill("Failing receiver")
    await page.getByRole("button", { name: "Create endpoint" }).click()
    await page.getByRole("link", { name: "Go to the endpoint" }).click()
    await expect.poll(() => h1("Failing receiver").isVisible()).toBe(true)
    const endpointId = new URL(page.url()).pathname.split("/").pop()!
    // Days of failure, as the worker leaves them (the schedule itself is the delivery suite's).
    const failingSince = new Date(Date.now() - 5 * 24 * 3600 * 1000)
    await app.run(
      Db.query((db) =>
        db
          .updateTable("webhookEndpoints")
          .set({ status: "disabled", disabledReason: "failing", disabledAt: new Date(), failingSince })
          .where("id", "=", endpointId)
          .execute()
      ).pipe(Effect.orDie)
    )
    await page.getByRole("link", { name: "All endpoints" }).click()
    const notice = page.getByRole("status").filter({ hasText: "disabled after 3 days" })
    await expect.poll(() => notice.textContent()).toContain("An endpoint was disabled after 3 days without a successful delivery: Failing receiver.")
    await noOverflow("webhooks")
    await notice.getByRole("link", { name: "Failing receiver" }).click()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Fix the receiver" }).isVisible()).toBe(true)
  })

  it("lets the publisher of a connector app declare the app's webhook on the app's page, its secret shown once", async () => {
    const key = await Effect.runPromise(newKeyPair())
    const appId = `hooked-${randomUUID().slice(0, 8)}`
    await app.run(
      Effect.flatMap(ConnectorAppService, (apps) =>
        apps.registerPublished(
          { appId, name: "Hooked connector", setupUrl: "https://connector.example/setup", keys: [key.publicJwk] },
          org.organizationId,
          { type: "system", id: "test" }
        )
      ).pipe(Effect.provide(ConnectorAppService.Default), Effect.orDie)
    )
    await app.run(installConnector(org, { roles: ["billing"], app: { appId, key } }))
    await page.goto(`${app.adminUrl}/connector-apps/${appId}`)
    const section = page.getByRole("region", { name: "Webhook" })
    await expect.poll(() => section.getByRole("button", { name: "Declare the webhook" }).isVisible()).toBe(true)
    await section.getByLabel("URL").fill(hook.url("/app"))
    await section.getByRole("button", { name: "Declare the webhook" }).click()
    await expect.poll(() => section.locator(".secret-once input").inputValue()).toMatch(/^whsec_/)
    await expect.poll(() => section.getByRole("link", { name: /The webhook's page/ }).isVisible()).toBe(true)
    await noOverflow("connector-app-webhook")
  })
})
