/**
 * The admin console in headless Chromium (issue 11), against the real hosts over the demo data: an operator signs
 * in with the keyboard, creates an Application, copies its secret with the copy button, and that secret obtains a
 * token from the identity host; a wrong password, a change without the CSRF token and another organization's
 * record are refused; an integration configuration is created and connected, and the connector's redeem and ready
 * show on its page; every main page renders at 1280 and 390 px wide without a horizontal scrollbar, and is
 * written as a screenshot (`apps/api/.artifacts/screenshots`).
 *
 * The HTTP suite runs on both databases; this one drives a browser, so it runs on PGlite only.
 */
import * as Db from "@propline/db/Db"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FREE_FAILURES } from "../../src/admin/SignInThrottle.js"
import { DEMO_IDS } from "../../src/demo/DemoIds.js"
import { seedDemoData } from "../../src/demo/DemoData.js"
import { type OperatorFixture, operator } from "../support/AdminClient.js"
import { BookingOperatorService } from "../../src/booking/BookingOperatorService.js"
import { at, bookingSetup, localDate } from "../support/BookingFixtures.js"
import { chromiumPath, launch, screenshotDir } from "../support/Browser.js"
import * as Fixtures from "../support/Fixtures.js"
import { installationToken, installConnector } from "../support/IntegrationFixtures.js"
import * as SigningFixtures from "../support/SigningFixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"
import { assertionClaims, installationTokenBody, type KeyPair, newKeyPair, signAssertion } from "../identity/ConnectorFixtures.js"

const executablePath = chromiumPath()

describe.skipIf(executablePath === undefined)("admin console in Chromium", () => {
  let app: TestApp
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let me: OperatorFixture
  let otherCustomerId: string
  let otherApplicationId: string
  const shots = screenshotDir()

  const h1 = (name: string | RegExp) => page.getByRole("heading", { level: 1, name })

  const signIn = async (password: string) => {
    await page.getByLabel("E-mail address").fill(me.email)
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Sign in" }).click()
  }

  /** Signs out (when signed in) and signs in as a new operator of `organizationId`. */
  const switchOperator = async (organizationId: string) => {
    me = await app.run(operator(organizationId))
    await page.goto(app.adminUrl)
    const signOut = page.getByRole("button", { name: "Sign out" })
    await expect.poll(async () => (await signOut.isVisible()) || (await page.getByRole("heading", { name: "Sign in" }).isVisible())).toBe(true)
    if (await signOut.isVisible()) {
      await signOut.click()
      await expect.poll(() => page.getByText("You are signed out.").isVisible()).toBe(true)
    }
    await signIn(me.password)
    await expect.poll(() => h1("Organization").isVisible()).toBe(true)
  }

  beforeAll(async () => {
    app = await start("pglite")
    const seed = await app.run(seedDemoData(new Date()))
    otherApplicationId = seed.second.applicationId
    me = await app.run(operator(DEMO_IDS.organization))
    otherCustomerId = await app.run(
      Db.query((db) =>
        db.selectFrom("customers").select("id").where("organizationId", "=", DEMO_IDS.secondOrganization).executeTakeFirstOrThrow()
      ).pipe(
        Effect.orDie,
        Effect.map((row) => row.id)
      )
    )
    browser = await launch(executablePath!)
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.adminUrl })
    page = await context.newPage()
    // An action that can't happen fails within the test's time with Playwright's own message.
    page.setDefaultTimeout(8_000)
  })
  afterAll(async () => {
    await browser?.close()
    await app?.dispose()
  })

  it("says how long to wait when sign-in is throttled for the address at this client", async () => {
    const victim = await app.run(operator(DEMO_IDS.organization))
    for (let failure = 0; failure <= FREE_FAILURES; failure++) {
      expect((await call(`${app.adminUrl}/api/session`, { body: { email: victim.email, password: "guess" } })).status).toBe(401)
    }
    await page.goto(app.adminUrl)
    await expect.poll(() => page.getByRole("heading", { name: "Sign in" }).isVisible()).toBe(true)
    await page.getByLabel("E-mail address").fill(victim.email)
    await page.getByLabel("Password").fill(victim.password)
    await page.getByRole("button", { name: "Sign in" }).click()
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toMatch(/Too many failed sign-ins for this e-mail address from your network address\. Try again in \d+ seconds\./)
    await page.screenshot({ path: path.join(shots, "sign-in-throttled.png") })
    await page.getByLabel("E-mail address").fill("")
    await page.getByLabel("Password").fill("")
  })

  it("refuses a wrong password with a message, then signs in with the keyboard alone", async () => {
    await page.goto(app.adminUrl)
    await expect.poll(() => page.getByRole("heading", { name: "Sign in" }).isVisible()).toBe(true)
    await signIn("not the password")
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("The e-mail address or the password is wrong.")
    await page.screenshot({ path: path.join(shots, "sign-in-refused.png") })

    await page.getByLabel("E-mail address").fill("")
    await page.getByLabel("Password").fill("")
    await page.getByLabel("E-mail address").focus()
    await page.keyboard.type(me.email)
    await page.keyboard.press("Tab")
    await page.keyboard.type(me.password)
    await page.keyboard.press("Enter")
    await expect.poll(() => h1("Organization").isVisible()).toBe(true)
    await expect.poll(() => page.getByText("Nordhavn Workspaces AB").first().isVisible()).toBe(true)
  })

  it("creates an Application, copies its secret, and the secret obtains a token from the identity host", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Applications" }).click()
    await expect.poll(() => h1("Applications").isVisible()).toBe(true)
    await page.getByRole("link", { name: "New Application" }).click()
    await expect.poll(() => h1("New Application").isVisible()).toBe(true)

    // Submitting the empty form shows each field's message beside it.
    await page.getByRole("button", { name: "Create Application" }).click()
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("Some fields need attention.")
    await expect.poll(() => page.getByText("choose at least one role").isVisible()).toBe(true)
    await expect.poll(() => page.getByText("choose at least one operational context").isVisible()).toBe(true)
    expect(await page.getByLabel("Name").getAttribute("aria-invalid")).toBe("true")
    await page.screenshot({ path: path.join(shots, "new-application-invalid.png"), fullPage: true })

    await page.getByLabel("Name").fill("Browser ERP")
    await page.getByLabel(/Billing —/).check()
    await page.getByLabel(/Nordhavn Workspaces AB/).check()
    await page.getByRole("button", { name: "Create Application" }).click()
    await expect.poll(() => h1("Application Browser ERP created").isVisible()).toBe(true)

    await page.getByRole("button", { name: "Copy secret" }).click()
    await expect.poll(() => page.getByText("Copied to the clipboard.").isVisible()).toBe(true)
    const secret = await page.evaluate<string>("navigator.clipboard.readText()")
    expect(secret).toMatch(/^service_sk_[0-9A-Za-z]{43}$/)
    const clientId = await page.locator(".secret-once code").first().textContent()
    expect(clientId).toMatch(/^app_[0-9a-f]{24}$/)
    await page.screenshot({ path: path.join(shots, "application-secret-once.png"), fullPage: true })

    const response = await fetch(`${app.authUrl}/oauth/token`, {
      method: "POST",
      headers: {
        authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString("base64")}`,
        "content-type": "application/x-www-form-urlencoded"
      },
      body: "grant_type=client_credentials"
    })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { token_type: string }).token_type).toBe("Bearer")

    // The Application's page shows only the secret's last four characters.
    await page.getByRole("link", { name: "Go to the Application" }).click()
    await expect.poll(() => h1("Browser ERP").isVisible()).toBe(true)
    expect(await page.content()).not.toContain(secret)
    await expect.poll(() => page.getByText(`…${secret.slice(-4)}`).isVisible()).toBe(true)
  })

  it("disables and enables the Application, and changes its roles", async () => {
    // Disabling is asked in the page's dialog, which names what will happen.
    await page.getByRole("button", { name: "Disable" }).click()
    await page.getByRole("dialog", { name: "Disable Browser ERP?" }).getByRole("button", { name: "Disable Browser ERP" }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("disabled")
    await page.getByRole("button", { name: "Enable" }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("active")
    await page.getByText("Change roles and contexts").click()
    await page.getByLabel(/Signing —/).check()
    await page.getByRole("button", { name: "Save roles and contexts" }).click()
    await expect.poll(() => page.getByText("billing, signing").isVisible()).toBe(true)
    await page.screenshot({ path: path.join(shots, "application-detail.png"), fullPage: true })
  })

  it("refuses a change that lacks the CSRF token, though the session cookie goes with it", async () => {
    const status = await page.evaluate(async (rootContextId) => {
      const response = await fetch("/api/applications", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "Forged", roles: ["billing"], contextIds: [rootContextId] })
      })
      return response.status
    }, DEMO_IDS.rootContext)
    expect(status).toBe(403)
    await page.goto(`${app.adminUrl}/applications?q=Forged`)
    await expect.poll(() => page.getByText("No Application matches.").isVisible()).toBe(true)
  })

  it("refuses another organization's records", async () => {
    for (const target of [`/customers/${otherCustomerId}`, `/applications/${otherApplicationId}`]) {
      await page.goto(`${app.adminUrl}${target}`)
      await expect
        .poll(() => page.getByRole("alert").textContent())
        .toContain("The record does not exist, or it belongs to another organization.")
    }
    await page.screenshot({ path: path.join(shots, "other-organization-refused.png") })
  })

  const mainPages: ReadonlyArray<readonly [string, string]> = [
    ["/organization", "Organization"],
    ["/customers", "Customers"],
    ["/contracts", "Contracts"],
    ["/applications", "Applications"],
    ["/applications/new", "New Application"],
    ["/connector-apps", "Connector apps"],
    ["/connector-apps/new", "Register a connector app"],
    ["/integration-configurations", "Integration configurations"],
    ["/integration-configurations/new", "New integration configuration"],
    ["/billing", "Billing overview"],
    ["/billing/invoice-runs", "Invoice runs"],
    ["/billing/invoices", "Invoices"],
    ["/billing/proposals", "Invoice proposals"],
    ["/billing/send-queue", "Send queue"],
    ["/billing/withdrawal-queue", "Withdrawal queue"],
    ["/booking/requests", "Booking requests"],
    ["/booking/resources", "Resources"],
    ["/booking/add-on-products", "Add-on products"],
    ["/booking/resources/new", "New resource"],
    ["/booking/add-on-products/new", "New add-on product"],
    ["/audit-log", "Audit log"]
  ]

  // 18 pages, each loaded, checked and screenshot in full: 20–30 s on a quiet CI machine, so its own bound.
  it.each([1280, 390])("renders every main page at %i px without a horizontal scrollbar", { timeout: 120_000 }, async (width) => {
    await page.setViewportSize({ width, height: 900 })
    for (const [target, title] of mainPages) {
      await page.goto(`${app.adminUrl}${target}`)
      await expect.poll(() => h1(title).isVisible(), { message: target }).toBe(true)
      await expect.poll(() => page.getByRole("status").filter({ hasText: "Loading" }).count(), { message: target }).toBe(0)
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth")
      expect(overflow, `${target} at ${width} px`).toBeLessThanOrEqual(0)
      await page.screenshot({ path: path.join(shots, `${target.slice(1).replaceAll("/", "-")}-${width}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("opens a record from a list, follows paging, and filters through the URL", async () => {
    await page.goto(`${app.adminUrl}/billing/invoices`)
    await expect.poll(() => h1("Invoices").isVisible()).toBe(true)
    await page.getByLabel("Status").selectOption("approved")
    await page.getByRole("button", { name: "Apply" }).click()
    await expect.poll(() => page.url()).toContain("status=approved")
    await page.locator("tbody a").first().click()
    await expect.poll(() => h1(/^(Invoice|Credit note) \d+$/).isVisible()).toBe(true)
    await expect.poll(() => page.getByRole("heading", { name: "Lines" }).isVisible()).toBe(true)
    await page.screenshot({ path: path.join(shots, "invoice-detail-1280.png"), fullPage: true })

    await page.goto(`${app.adminUrl}/customers?limit=5`)
    await expect.poll(() => h1("Customers").isVisible()).toBe(true)
  })

  it("cancels a proposal", async () => {
    await page.goto(`${app.adminUrl}/billing/proposals?status=proposed`)
    await expect.poll(() => h1("Invoice proposals").isVisible()).toBe(true)
    const row = page.locator("tbody tr").filter({ has: page.getByRole("button", { name: /^Cancel/ }) }).first()
    const customer = (await row.locator("td").nth(2).textContent()) ?? ""
    await row.getByRole("button", { name: /^Cancel/ }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Cancel the proposal" }).click()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "cancelled: it won't become an invoice" }).isVisible()).toBe(true)
    await page.goto(`${app.adminUrl}/billing/proposals?status=cancelled`)
    await expect.poll(() => page.locator("tbody tr").filter({ hasText: customer }).first().isVisible()).toBe(true)
    await page.screenshot({ path: path.join(shots, "proposal-cancelled.png"), fullPage: true })
  })

  it("signs out", async () => {
    await page.goto(`${app.adminUrl}/organization`)
    await page.getByRole("button", { name: "Sign out" }).click()
    await expect.poll(() => page.getByText("You are signed out.").isVisible()).toBe(true)
    await page.goto(`${app.adminUrl}/organization`)
    await expect.poll(() => page.getByRole("heading", { name: "Sign in" }).isVisible()).toBe(true)
  })

  it("approves a booking request waiting for approval, as an operator of the resource's organization", async () => {
    const org = await app.run(Fixtures.organization({ name: "Slussen Möten AB" }))
    const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const fixture = await app.run(bookingSetup(org, [seller.id]).pipe(Effect.provide(BookingOperatorService.Default)))
    const date = localDate("Europe/Stockholm", 21, 2)
    const sellerToken = await token(app.authUrl, seller.clientId, seller.secret)
    const requested = await call(`${app.apiUrl}/v1/booking/booking-requests`, {
      token: sellerToken,
      body: {
        requestId: `browser-${randomUUID()}`,
        guest: { name: "Astrid Lindqvist", email: "astrid@example.se" },
        resourceId: fixture.room.id,
        period: { start: at("Europe/Stockholm", date, "10:00"), end: at("Europe/Stockholm", date, "11:00") }
      }
    })
    expect(requested.status).toBe(201)
    me = await app.run(operator(org.organizationId))
    await page.goto(app.adminUrl)
    await signIn(me.password)
    await expect.poll(() => h1("Organization").isVisible()).toBe(true)

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Booking requests" }).click()
    await expect.poll(() => h1("Booking requests").isVisible()).toBe(true)
    const card = page.getByRole("article", { name: "Boardroom, Astrid Lindqvist" }).first()
    await card.getByRole("button", { name: /^Approve/ }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Approve the booking" }).click()
    await expect.poll(() => page.getByText("No request waits for approval.").isVisible()).toBe(true)
    await expect.poll(() => page.getByRole("status").filter({ hasText: "approved: the slot is booked" }).isVisible()).toBe(true)
    await page.goto(`${app.adminUrl}/booking/requests?week=${date}`)
    await expect
      .poll(() => page.getByRole("article", { name: "Boardroom, Astrid Lindqvist" }).locator(".status").textContent())
      .toBe("approved")
    await page.screenshot({ path: path.join(shots, "booking-calendar-1280.png"), fullPage: true })
    const seen = await call(`${app.apiUrl}/v1/booking/booking-requests/${requested.body.id}`, { token: sellerToken })
    expect(seen.body.status).toBe("approved")
  })

  it("prepares a contract for signing, and it is on the API's signing queue", async () => {
    const org = await app.run(Fixtures.organization({ name: "Lindholmen Avtal AB" }))
    const contractId = await app.run(SigningFixtures.contract(org))
    const esign = await app.run(Fixtures.application(org, { roles: ["signing"] }))
    me = await app.run(operator(org.organizationId))
    await page.getByRole("button", { name: "Sign out" }).click()
    await expect.poll(() => page.getByText("You are signed out.").isVisible()).toBe(true)
    await page.goto(app.adminUrl)
    await signIn(me.password)
    await expect.poll(() => h1("Organization").isVisible()).toBe(true)

    await page.goto(`${app.adminUrl}/contracts/${contractId}`)
    await expect.poll(() => page.getByRole("heading", { name: "Signing" }).isVisible()).toBe(true)
    await expect.poll(() => page.getByText("Never sent for signing.").isVisible()).toBe(true)
    await page.getByText("Prepare for signing", { exact: true }).first().click()
    const customerSignatory = page.getByRole("group", { name: "The customer's signatory" })
    await customerSignatory.getByLabel("Name").fill("Karin Berg")
    await customerSignatory.getByLabel("E-mail").fill("karin@example.se")
    await page.getByRole("button", { name: "Prepare for signing" }).click()
    await expect.poll(() => page.getByRole("region", { name: "Signing attempts" }).locator(".status").first().textContent()).toBe("queued")
    await page.screenshot({ path: path.join(shots, "contract-signing-1280.png"), fullPage: true })

    const queue = await call(`${app.apiUrl}/v1/crm/signing-queue?limit=100`, { token: await token(app.authUrl, esign.clientId, esign.secret) })
    expect(queue.status).toBe(200)
    expect(JSON.stringify(queue.body.items)).toContain(contractId)
  })

  it("creates an invoice run for next month, approves it, and its invoices reach the API's send queue", async () => {
    // An organization whose ERP declared no verification gate: a run makes invoices, not proposals.
    const plain = await app.run(Fixtures.organization({ name: "Kvarnholmen Kontor AB", integration: { gates: [] } }))
    await app.run(
      Db.query((db) =>
        db
          .insertInto("contractLines")
          .values({ id: randomUUID(), contractId: plain.contractId, description: "Office", monthlyNetMinorUnits: 900_000, vatRateBasisPoints: 2500, createdAt: Fixtures.NOW })
          .execute()
      ).pipe(Effect.orDie)
    )
    const erp = await app.run(Fixtures.application(plain))
    me = await app.run(operator(plain.organizationId))
    await page.getByRole("button", { name: "Sign out" }).click()
    await expect.poll(() => page.getByText("You are signed out.").isVisible()).toBe(true)
    await page.goto(app.adminUrl)
    await signIn(me.password)
    await expect.poll(() => h1("Organization").isVisible()).toBe(true)

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Invoice runs" }).click()
    await expect.poll(() => h1("Invoice runs").isVisible()).toBe(true)
    await page.getByText("New invoice run").click()
    await page.getByLabel("Operational context").selectOption({ label: "Kvarnholmen Kontor AB (organization)" })
    await page.getByRole("button", { name: "Create invoice run" }).click()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "created" }).textContent()).toContain("1 document drafted. The run has 1 invoice and 0 proposals.")
    await page.screenshot({ path: path.join(shots, "invoice-run-created.png"), fullPage: true })

    await page.getByRole("button", { name: /^Approve the run/ }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Approve the run" }).click()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "approved" }).textContent()).toContain("1 invoice approved now")

    const queue = await call(`${app.apiUrl}/v1/billing/send-queue?limit=100`, { token: await token(app.authUrl, erp.clientId, erp.secret) })
    const approved = await app.run(
      Db.query((db) =>
        db
          .selectFrom("invoices")
          .select("id")
          .where("organizationId", "=", plain.organizationId)
          .where("status", "=", "approved")
          .where("invoiceRunId", "!=", plain.invoiceRunId)
          .execute()
      ).pipe(Effect.orDie)
    )
    expect(approved).toHaveLength(1)
    expect(queue.body.items.map((item: { id: string }) => item.id)).toContain(approved[0]!.id)
  })

  it("downloads the signed PDF of a signed attempt from the contract's page", async () => {
    const org = await app.run(Fixtures.organization({ name: "Hammarby Signerat AB" }))
    const contractId = await app.run(SigningFixtures.contract(org))
    const attempt = await app.run(SigningFixtures.prepared(org, contractId))
    const esign = await app.run(Fixtures.application(org, { roles: ["signing"] }))
    const signedBytes = SigningFixtures.pdfBytes(`browser ${attempt.id}`)
    await SigningFixtures.signedOverHttp(app.apiUrl, await token(app.authUrl, esign.clientId, esign.secret), attempt.id, signedBytes)
    await switchOperator(org.organizationId)

    await page.goto(`${app.adminUrl}/contracts/${contractId}`)
    await expect.poll(() => page.getByRole("region", { name: "Signing attempts" }).locator(".status").first().textContent()).toBe("signed")
    await page.screenshot({ path: path.join(shots, "contract-signed-1280.png"), fullPage: true })
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("link", { name: /^Signed PDF/ }).click()])
    const saved = path.join(shots, "..", `signed-${attempt.id}.pdf`)
    await download.saveAs(saved)
    const bytes = await readFile(saved)
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-")
    expect(bytes.equals(Buffer.from(signedBytes))).toBe(true)
    expect(download.suggestedFilename()).toMatch(/\.pdf$/)
  })

  it("sets up a resource with a price rule (the service's issue shown beside its field), lets an Application sell it, and the public API lists it", async () => {
    const org = await app.run(Fixtures.organization({ name: "Söder Skrivbord AB" }))
    const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    await switchOperator(org.organizationId)

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Resources" }).click()
    await page.getByRole("link", { name: "New resource" }).click()
    await expect.poll(() => h1("New resource").isVisible()).toBe(true)
    await page.getByLabel("Name", { exact: true }).first().fill("Fönsterplats 4")
    await page.getByLabel("Kind").selectOption("desk")
    await page.getByLabel("Operational context").selectOption({ label: "Kungsholmen (property)" })
    const rule = page.getByRole("group", { name: "Price rule 1" })
    await rule.getByLabel(/^Net price/).fill("-5")
    await page.getByRole("button", { name: "Create resource" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("Some fields need attention.")
    await expect.poll(() => rule.locator(".field-error").first().textContent()).toMatch(/(integer|whole number) from 0/i)
    expect(await rule.getByLabel(/^Net price/).getAttribute("aria-invalid")).toBe("true")
    await page.screenshot({ path: path.join(shots, "new-resource-invalid.png"), fullPage: true })

    await rule.getByLabel(/^Net price/).fill("125")
    await page.getByRole("button", { name: "Create resource" }).click()
    await expect.poll(() => h1("Fönsterplats 4").isVisible()).toBe(true)
    await expect.poll(() => page.getByRole("region", { name: "Price rules" }).getByText("Hourly").isVisible()).toBe(true)
    await page.getByLabel("Let an Application sell it").selectOption(seller.id)
    await page.getByRole("button", { name: "Allow" }).click()
    await expect.poll(() => page.getByText(`(${seller.clientId})`).isVisible()).toBe(true)
    await page.screenshot({ path: path.join(shots, "resource-set-up-1280.png"), fullPage: true })

    const resourceId = page.url().split("/").pop()!
    const sellerToken = await token(app.authUrl, seller.clientId, seller.secret)
    const sold = await call(`${app.apiUrl}/v1/booking/resources?limit=100`, { token: sellerToken })
    expect(sold.status).toBe(200)
    const listed = sold.body.items.find((item: { id: string }) => item.id === resourceId)
    expect(listed).toMatchObject({ name: "Fönsterplats 4", kind: "desk" })

    // Editing the setup round-trips the form: a new name reaches the public API too.
    await page.getByRole("link", { name: "Edit the setup" }).click()
    await expect.poll(() => h1("Set up Fönsterplats 4").isVisible()).toBe(true)
    await page.getByLabel("Name", { exact: true }).first().fill("Fönsterplats 4A")
    await page.getByRole("button", { name: "Save the setup" }).click()
    await expect.poll(() => h1("Fönsterplats 4A").isVisible()).toBe(true)
    const renamed = await call(`${app.apiUrl}/v1/booking/resources/${resourceId}`, { token: sellerToken })
    expect(renamed.body.name).toBe("Fönsterplats 4A")
    expect(renamed.body).not.toHaveProperty("cancellationNoticeMinutes")
    expect(renamed.body).not.toHaveProperty("lateCancellationChargeBasisPoints")

    // Cancellation terms: the service's issue beside its field, then stored and sold with the resource.
    await page.getByRole("link", { name: "Edit the setup" }).click()
    const terms = page.getByRole("group", { name: "Cancellation terms" })
    await terms.getByLabel(/^Free cancellation until/).fill("2880")
    await terms.getByLabel(/^Late cancellation charge/).fill("150")
    await page.getByRole("button", { name: "Save the setup" }).click()
    await expect.poll(() => terms.locator(".field-error").first().textContent()).toMatch(/whole number from 0 to 10000/i)
    expect(await terms.getByLabel(/^Late cancellation charge/).getAttribute("aria-invalid")).toBe("true")
    expect(await terms.getByLabel(/^Free cancellation until/).getAttribute("aria-invalid")).not.toBe("true")
    await terms.getByLabel(/^Late cancellation charge/).fill("50")
    await page.getByRole("button", { name: "Save the setup" }).click()
    await expect.poll(() => h1("Fönsterplats 4A").isVisible()).toBe(true)
    const termed = await call(`${app.apiUrl}/v1/booking/resources/${resourceId}`, { token: sellerToken })
    expect(termed.body).toMatchObject({ cancellationNoticeMinutes: 2880, lateCancellationChargeBasisPoints: 5000 })
    await page.getByRole("link", { name: "Edit the setup" }).click()
    await expect.poll(() => terms.getByLabel(/^Free cancellation until/).inputValue()).toBe("2880")
    expect(await terms.getByLabel(/^Late cancellation charge/).inputValue()).toBe("50")
  })

  it("registers a connector app, installs it, and its installation obtains a token; adds a key, suspends the installation", async () => {
    const org = await app.run(Fixtures.organization({ name: "Årsta Integration AB" }))
    await switchOperator(org.organizationId)
    const appId = `browser-${randomUUID().slice(0, 8)}`
    const key = await Effect.runPromise(newKeyPair())

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Connector apps" }).click()
    await expect.poll(() => h1("Connector apps").isVisible()).toBe(true)
    await page.getByRole("link", { name: "Register a connector app" }).click()
    await page.getByLabel("App id").fill(appId)
    await page.getByLabel("Name").fill("Browser ERP connector")
    await page.getByLabel("Setup URL").fill("http://erp.example.com/setup")
    await page.getByLabel("Public key (JWK)").fill(JSON.stringify(key.publicJwk))
    await page.getByRole("button", { name: "Register the app" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("The connector app's details break a rule")
    await expect.poll(() => page.locator(".field-invalid").getByText(/https/).first().isVisible()).toBe(true)
    expect(await page.getByLabel("Setup URL").getAttribute("aria-invalid")).toBe("true")
    await page.screenshot({ path: path.join(shots, "connector-app-invalid.png"), fullPage: true })

    await page.getByLabel("Setup URL").fill("https://erp.example.com/setup")
    await page.getByRole("button", { name: "Register the app" }).click()
    await expect.poll(() => h1("Browser ERP connector").isVisible()).toBe(true)
    await page.getByLabel(/Billing —/).check()
    await page.getByLabel(/Årsta Integration AB/).check()
    await page.getByRole("button", { name: "Install" }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("active")
    const installationId = (await page.locator(".facts code").nth(1).textContent()) ?? ""

    const endpoint = `${app.authUrl}/oauth/token`
    const tokenWith = async (signer: KeyPair) => {
      const assertion = await Effect.runPromise(signAssertion(signer, assertionClaims(appId, endpoint, Math.floor(Date.now() / 1000))))
      const response = await fetch(endpoint, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: installationTokenBody(assertion, installationId)
      })
      return response.status
    }
    expect(await tokenWith(key)).toBe(200)

    const second = await Effect.runPromise(newKeyPair())
    await page.getByText("Add a key").click()
    await page.getByLabel("Public key (JWK)").fill(JSON.stringify(second.publicJwk))
    await page.getByRole("button", { name: "Add the key" }).click()
    await expect.poll(() => page.getByRole("region", { name: "Public keys" }).getByText(second.kid, { exact: true }).isVisible()).toBe(true)
    expect(await tokenWith(second)).toBe(200)
    await page.screenshot({ path: path.join(shots, "connector-app-1280.png"), fullPage: true })

    await page.getByRole("button", { name: "Suspend" }).click()
    await page.getByRole("dialog").getByRole("button", { name: /^Suspend/ }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("suspended")
    expect(await tokenWith(second)).toBe(400)
  })

  it("creates an integration configuration, presses Connect and sees the setup address with the reference; the connector redeems it and the page shows connecting, then ready", async () => {
    const org = await app.run(Fixtures.organization({ name: "Liljeholmen Koppling AB", integration: "none" }))
    const connector = await app.run(installConnector(org, { roles: ["signing"] }))
    await switchOperator(org.organizationId)

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integration configurations" }).click()
    await expect.poll(() => h1("Integration configurations").isVisible()).toBe(true)
    await expect.poll(() => page.getByText("No integration configuration matches.").isVisible()).toBe(true)
    await page.getByRole("link", { name: "New configuration" }).click()
    await expect.poll(() => h1("New integration configuration").isVisible()).toBe(true)

    // The empty form: each field's message beside it; then a kind the installation holds no role for: the service's code.
    await page.getByRole("button", { name: "Create configuration" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("Some fields need attention.")
    await expect.poll(() => page.getByText("Choose an installation.", { exact: true }).isVisible()).toBe(true)
    expect(await page.getByLabel("Installation").getAttribute("aria-invalid")).toBe("true")
    await page.getByLabel("Installation").selectOption(connector.installationId)
    await page.getByLabel("Kind").selectOption("booking")
    await page.getByLabel(/Liljeholmen Koppling AB/).check()
    await page.getByRole("button", { name: "Create configuration" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("The installation does not hold the booking role")
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("INTEGRATIONS_CONNECTION_NOT_SUPPORTED")
    await page.screenshot({ path: path.join(shots, "new-integration-configuration-refused.png"), fullPage: true })

    await page.getByLabel("Kind").selectOption("signing")
    await page.getByRole("button", { name: "Create configuration" }).click()
    await expect.poll(() => h1("Signing configuration of Test connector").isVisible()).toBe(true)
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("pending")

    await page.getByRole("button", { name: "Connect", exact: true }).click()
    const once = page.getByRole("region", { name: "Finish the set-up at the connector" })
    await expect.poll(() => once.isVisible()).toBe(true)
    const reference = await once.getByLabel("Connection reference").inputValue()
    const setupAddress = new URL(await once.getByLabel("Setup address").inputValue())
    expect(setupAddress.searchParams.get("connection_reference")).toBe(reference)
    expect(setupAddress.searchParams.get("installation_id")).toBe(connector.installationId)
    expect(`${setupAddress.origin}${setupAddress.pathname}`).toBe("https://connector.example/setup")
    expect(await once.getByRole("link", { name: "Open the connector's set-up" }).getAttribute("href")).toBe(setupAddress.toString())
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 })
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth")
      expect(overflow, `the connected configuration at ${width} px`).toBeLessThanOrEqual(0)
      await page.screenshot({ path: path.join(shots, `integration-configuration-connect-${width}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 1280, height: 900 })

    // The connector's side, through the public API: the reference redeemed, then ready.
    const connectorToken = await installationToken(app.authUrl, connector)
    const redeemed = await call(`${app.apiUrl}/v1/integrations/connection-references/redeem`, {
      token: connectorToken,
      body: { connectionReference: reference }
    })
    expect(redeemed.status).toBe(201)
    await page.reload()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("connecting")
    expect(await page.content()).not.toContain(reference)
    const ready = await call(`${app.apiUrl}/v1/integrations/configurations/${redeemed.body.id}/ready`, {
      token: connectorToken,
      body: { externalAccount: { id: "scrive-77", name: "Liljeholmen e-signing" }, settings: { signatureMethods: ["bankid-se"] } }
    })
    expect(ready.status).toBe(201)
    await page.reload()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("ready")
    await expect.poll(() => page.getByText("Liljeholmen e-signing (scrive-77)").isVisible()).toBe(true)
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 })
      await page.screenshot({ path: path.join(shots, `integration-configuration-ready-${width}.png`), fullPage: true })
    }
    await page.setViewportSize({ width: 1280, height: 900 })

    // The list shows it ready, filtered by status in the URL.
    await page.goto(`${app.adminUrl}/integration-configurations?status=ready`)
    await expect.poll(() => page.locator("tbody .status").first().textContent()).toBe("ready")
    await page.screenshot({ path: path.join(shots, "integration-configurations-ready-1280.png"), fullPage: true })
  })
})
