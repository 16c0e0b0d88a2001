/**
 * The operator's tasks of issue 25 (items 1–4) in headless Chromium, against the real hosts on PGlite: errors on
 * their fields with the refusal's sentence; the in-page dialog (role=dialog, focus kept inside, Escape cancels) for
 * approving a run, cancelling a proposal and declining a booking with a reason; messages with the run's real
 * counts and warnings for an empty and a duplicate run; no "Prepare for signing" on a terminated contract; the
 * detail pages of invoice runs, proposals, booking requests and signing attempts, reached from lists and from the
 * audit log; the pending booking list paged; money, dates and times in the organization's locale (sv-SE, then
 * nb-NO) with the ISO value on hover ("11250.00 SEK", an ISO instant); the navigation folded below 768 px; an
 * integration configuration's status read again by itself. Every page is checked at 1280 and 390 px — no
 * horizontal scrollbar, a screenshot in `apps/api/.artifacts/screenshots/tasks-*.png`, and axe-core with no violation.
 */
import * as Db from "@propline/db/Db"
import type { Browser, Page } from "playwright-core"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BookingOperatorService } from "../../src/booking/BookingOperatorService.js"
import { axeViolations } from "../support/Accessibility.js"
import { type OperatorFixture, operator } from "../support/AdminClient.js"
import { at, bookingSetup, localDate } from "../support/BookingFixtures.js"
import { chromiumPath, screenshotDir } from "../support/Browser.js"
import { signedInPage } from "../support/ConsolePage.js"
import * as Fixtures from "../support/Fixtures.js"
import { type InstalledConnector, installationToken, installConnector } from "../support/IntegrationFixtures.js"
import * as SigningFixtures from "../support/SigningFixtures.js"
import { call, start, type TestApp, token } from "../support/TestApp.js"

const executablePath = chromiumPath()
const STOCKHOLM = "Europe/Stockholm"
const MARCH = { periodStart: "2027-03-01", periodEnd: "2027-03-31" }

describe.skipIf(executablePath === undefined)("the operator's tasks of issue 25 in Chromium", () => {
  let app: TestApp
  let browser: Browser
  let page: Page
  let org: Fixtures.OrganizationFixture
  let me: OperatorFixture
  let terminatedContractId: string
  let activeContractId: string
  let attemptId: string
  let proposalId: string
  let connector: InstalledConnector
  const shots = screenshotDir()

  const h1 = (name: string | RegExp) => page.getByRole("heading", { level: 1, name })

  /** At 1280 and 390 px: no horizontal scrollbar, a screenshot, and no axe-core violation. */
  const check = async (name: string) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 })
      await expect.poll(() => page.getByRole("status").filter({ hasText: "Loading" }).count(), { message: name }).toBe(0)
      const overflow = await page.evaluate<number>("document.documentElement.scrollWidth - window.innerWidth")
      expect(overflow, `${name} at ${width} px`).toBeLessThanOrEqual(0)
      await page.screenshot({ path: path.join(shots, `tasks-${name}-${width}.png`), fullPage: true })
      expect(await axeViolations(page), `${name} at ${width} px`).toEqual([])
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  beforeAll(async () => {
    app = await start("pglite")
    org = await app.run(Fixtures.organization({ name: "Kvarnholmen Drift AB", integration: { gates: [] } }))
    await app.run(
      Db.query((db) =>
        db
          .insertInto("contractLines")
          .values({ id: randomUUID(), contractId: org.contractId, description: "Office", monthlyNetMinorUnits: 900_000, vatRateBasisPoints: 2500, createdAt: Fixtures.NOW })
          .execute()
      ).pipe(Effect.orDie)
    )
    terminatedContractId = await app.run(SigningFixtures.contract(org, { status: "terminated" }))
    activeContractId = await app.run(SigningFixtures.contract(org))
    await app.run(Fixtures.application(org, { roles: ["signing"] }))
    attemptId = (await app.run(SigningFixtures.prepared(org, await app.run(SigningFixtures.contract(org))))).id
    proposalId = await app.run(Fixtures.proposal(org))
    connector = await app.run(installConnector(org, { roles: ["signing"] }))

    // 21 booking requests waiting for approval: one more than the pending list's page.
    const seller = await app.run(Fixtures.application(org, { roles: ["booking"] }))
    const fixture = await app.run(bookingSetup(org, [seller.id]).pipe(Effect.provide(BookingOperatorService.Default)))
    const sellerToken = await token(app.authUrl, seller.clientId, seller.secret)
    for (let i = 0; i < 21; i++) {
      const date = localDate(STOCKHOLM, 7 * (1 + (i % 7)), (2 + Math.floor(i / 7)) as 2 | 3 | 4)
      const answer = await call(`${app.apiUrl}/v1/booking/booking-requests`, {
        token: sellerToken,
        body: {
          requestId: `tasks-${i}-${randomUUID()}`,
          guest: { name: `Guest ${String(i + 1).padStart(2, "0")}`, email: `guest${i}@example.se` },
          resourceId: fixture.room.id,
          period: { start: at(STOCKHOLM, date, "10:00"), end: at(STOCKHOLM, date, "11:00") }
        }
      })
      if (answer.status !== 201) throw new Error(`booking request ${i}: ${answer.status} ${JSON.stringify(answer.body)}`)
    }

    me = await app.run(operator(org.organizationId))
    const signedIn = await signedInPage(executablePath!, app.adminUrl, me)
    browser = signedIn.browser
    page = signedIn.page
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await app?.dispose()
  })

  it("1. shows a bad period's refusal on its field with the server's sentence, and a signer's issue under the signer's field", async () => {
    await page.goto(`${app.adminUrl}/billing/invoice-runs`)
    await page.getByText("New invoice run").click()
    await page.getByLabel("Operational context").selectOption({ label: "Kvarnholmen Drift AB (organization)" })
    await page.getByLabel("Period starts").fill("2027-03-05")
    await page.getByLabel("Period ends").fill(MARCH.periodEnd)
    await page.getByRole("button", { name: "Create invoice run" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("The invoice run's period or date is not valid.")
    expect(await page.getByLabel("Period starts").getAttribute("aria-invalid")).toBe("true")
    await check("invoice-run-period-refused")

    await page.goto(`${app.adminUrl}/contracts/${activeContractId}`)
    await page.getByText("Prepare for signing", { exact: true }).first().click()
    const customer = page.getByRole("group", { name: "The customer's signatory" })
    await customer.getByLabel("E-mail").fill("karin@example.se")
    await page.getByRole("button", { name: "Prepare for signing" }).click()
    await expect.poll(() => customer.locator(".field-error").count()).toBeGreaterThan(0)
    expect(await customer.getByLabel("Name").getAttribute("aria-invalid")).toBe("true")
    expect(await page.getByLabel("Document title (optional)").getAttribute("aria-invalid")).toBeNull()
    await check("signing-signer-refused")
  })

  it("1. offers the time zone as a searchable list of IANA names, and says a number field's issue in a plain sentence", async () => {
    await page.goto(`${app.adminUrl}/booking/resources/new`)
    await expect.poll(() => h1("New resource").isVisible()).toBe(true)
    const zone = page.getByLabel("Time zone")
    const listId = await zone.getAttribute("list")
    expect(listId).not.toBeNull()
    const names = await page.evaluate<ReadonlyArray<string>>(`[...document.getElementById(${JSON.stringify(listId)}).querySelectorAll("option")].map((option) => option.value)`)
    expect(names).toContain("Europe/Stockholm")
    expect(names).toContain("Europe/Oslo")
    await page.getByLabel("Seats").fill("")
    await page.getByRole("button", { name: "Create resource" }).click()
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("Some fields need attention.")
    const messages = await page.locator(".field-error").allTextContents()
    expect(messages.join(" ")).not.toMatch(/Expected|actual|NaN/)
    await check("resource-plain-sentences")
  })

  it("2. creates a run with its real counts, warns about an empty duplicate, and approves it in a dialog that keeps focus and cancels on Escape", async () => {
    await page.goto(`${app.adminUrl}/billing/invoice-runs`)
    const create = async () => {
      await page.getByText("New invoice run").click()
      await page.getByLabel("Operational context").selectOption({ label: "Kvarnholmen Drift AB (organization)" })
      await page.getByLabel("Period starts").fill(MARCH.periodStart)
      await page.getByLabel("Period ends").fill(MARCH.periodEnd)
      await page.getByLabel("Invoice date").fill(MARCH.periodStart)
      await page.getByRole("button", { name: "Create invoice run" }).click()
    }
    await create()
    const created = page.getByRole("status").filter({ hasText: "created" })
    // One invoice per active contract with lines: as many as it drafted.
    await expect.poll(() => created.textContent()).toMatch(/\d+ documents? drafted\. The run has \d+ invoices? and 0 proposals\./)
    const drafted = Number(/(\d+) documents? drafted\. The run has (\d+) /.exec((await created.textContent())!)![1])
    expect(drafted).toBeGreaterThan(0)
    expect(await created.textContent()).toContain(`The run has ${drafted} invoice`)
    const runHref = (await created.getByRole("link", { name: "Open the run" }).getAttribute("href"))!

    await page.reload()
    await create()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "The run is empty" }).textContent()).toContain("Another run of the same operational context covers this period.")
    await expect.poll(() => page.getByText("Warning: empty").first().isVisible()).toBe(true)
    await check("invoice-runs-duplicate")

    await page.goto(`${app.adminUrl}${runHref}`)
    await expect.poll(() => h1(`Invoice run ${MARCH.periodStart} – ${MARCH.periodEnd}`).isVisible()).toBe(true)
    await expect.poll(() => page.getByRole("note", { name: "Warnings" }).textContent()).toContain("Other runs of Kvarnholmen Drift AB cover this period")
    await check("invoice-run-detail")

    const opener = page.getByRole("button", { name: "Approve the run" })
    await opener.click()
    const dialog = page.getByRole("dialog", { name: /Approve the invoice run/ })
    await expect.poll(() => dialog.isVisible()).toBe(true)
    expect(await dialog.getAttribute("aria-modal")).toBe("true")
    const focused = () => page.evaluate<string>("document.activeElement?.textContent ?? ''")
    expect(await focused()).toBe("Cancel")
    await page.keyboard.press("Tab")
    expect(await focused()).toBe("Approve the run")
    await page.keyboard.press("Tab")
    expect(await focused()).toBe("Cancel")
    await page.keyboard.press("Shift+Tab")
    expect(await focused()).toBe("Approve the run")
    await check("invoice-run-approve-dialog")
    await page.keyboard.press("Escape")
    await expect.poll(() => dialog.count()).toBe(0)
    expect(await focused()).toBe("Approve the run")
    expect(await page.locator(".facts .status").first().textContent()).toBe("draft")

    await opener.click()
    await dialog.getByRole("button", { name: "Approve the run" }).click()
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "approved" }).first().textContent())
      .toMatch(new RegExp(`${drafted} invoices? approved now and put on the send queue\\. The run has ${drafted} invoices? and 0 proposals\\.`))
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("approved")
    await expect.poll(() => page.getByRole("button", { name: "Approve the run" }).count()).toBe(0)
  })

  it("2. cancels a proposal from its page after the dialog, and says so", async () => {
    await page.goto(`${app.adminUrl}/billing/proposals`)
    await page.getByRole("link", { name: /proposal for/ }).first().click()
    await expect.poll(() => h1(/^Invoice proposal/).isVisible()).toBe(true)
    expect(page.url()).toContain(proposalId)
    await check("proposal-detail")
    await page.getByRole("button", { name: "Cancel the proposal" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Cancel", exact: true }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("proposed")
    await page.getByRole("button", { name: "Cancel the proposal" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Cancel the proposal" }).click()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "cancelled: it won't become an invoice" }).isVisible()).toBe(true)
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("cancelled")
  })

  it("2. offers no signing on a terminated contract", async () => {
    await page.goto(`${app.adminUrl}/contracts/${terminatedContractId}`)
    await expect.poll(() => page.getByText("The contract is terminated, so it can't be sent for signing.").isVisible()).toBe(true)
    expect(await page.getByText("Prepare for signing", { exact: true }).count()).toBe(0)
    await check("contract-terminated")
  })

  it("3. pages the requests waiting for approval, declines one with a reason in the dialog, and opens a request's page", async () => {
    await page.goto(`${app.adminUrl}/booking/requests`)
    await expect.poll(() => page.locator(".booking-list article").count()).toBe(20)
    await page.getByRole("navigation", { name: "Pages of requests waiting for approval" }).getByRole("link", { name: "Next page" }).click()
    await expect.poll(() => page.locator(".booking-list article").count()).toBe(1)
    expect(page.url()).toContain("pendingCursor=")
    await check("booking-requests-page-2")

    const card = page.locator(".booking-list article").first()
    await card.getByRole("button", { name: /^Decline/ }).click()
    const dialog = page.getByRole("dialog", { name: /^Decline/ })
    await dialog.getByRole("button", { name: "Decline the booking" }).click()
    await expect.poll(() => dialog.getByText("Write the reason: the guest is told why.").isVisible()).toBe(true)
    await check("booking-decline-dialog")
    await dialog.getByLabel("Reason (the guest reads it)").fill("The room is being renovated that week.")
    await dialog.getByRole("button", { name: "Decline the booking" }).click()
    await expect.poll(() => page.getByRole("status").filter({ hasText: "declined: the guest is told." }).isVisible()).toBe(true)

    await page.getByRole("status").filter({ hasText: "declined" }).getByRole("link").click()
    await expect.poll(() => h1(/^Booking request of Guest/).isVisible()).toBe(true)
    await expect.poll(() => page.getByText("The room is being renovated that week.").isVisible()).toBe(true)
    await check("booking-request-detail")
  })

  it("3. shows a signing attempt's page, and the audit log's targets link to their pages", async () => {
    await page.goto(`${app.adminUrl}/signing-attempts/${attemptId}`)
    await expect.poll(() => h1(/^Signing of /).isVisible()).toBe(true)
    await expect.poll(() => page.getByRole("region", { name: "Parties and signers" }).isVisible()).toBe(true)
    await check("signing-attempt-detail")

    await page.goto(`${app.adminUrl}/audit-log?targetType=invoice_run`)
    await expect.poll(() => page.getByRole("link", { name: /^invoice run / }).count()).toBeGreaterThan(0)
    await check("audit-log")
    const region = await page.evaluate<{ scroll: number; client: number }>(
      "({ scroll: document.querySelector('.table-scroll').scrollWidth, client: document.querySelector('.table-scroll').clientWidth })"
    )
    expect(region.scroll, "the audit log's table at 1280 px").toBeLessThanOrEqual(region.client)
    await page.getByRole("link", { name: /^invoice run / }).first().click()
    await expect.poll(() => h1(/^Invoice run /).isVisible()).toBe(true)
  })

  it("4. writes money, dates and times as the organization's country does, with the ISO value on hover", async () => {
    await page.goto(`${app.adminUrl}/billing/invoices`)
    await expect.poll(() => page.locator("tbody td.number").count()).toBeGreaterThan(0)
    const expected = (locale: string) =>
      page.evaluate((tag) => new Intl.NumberFormat(tag, { style: "currency", currency: "SEK" }).format(11250), locale)
    const totals = async () => (await page.locator("tbody td.number").allTextContents()).join(" | ")
    expect(await totals()).toContain(await expected("sv-SE"))
    // Each amount carries its ISO value (decimal in major units, then the code) as title and machine value.
    const amounts = page.locator("tbody td.number data")
    expect(await page.locator('tbody td.number data[title="11250.00 SEK"]').count()).toBeGreaterThan(0)
    const amount = amounts.first()
    const iso = (await amount.getAttribute("title"))!
    expect(iso).toMatch(/^-?\d+\.\d{2} SEK$/)
    expect(await amount.getAttribute("value")).toBe(iso)
    expect(await amount.textContent()).toBe(
      await page.evaluate((major) => new Intl.NumberFormat("sv-SE", { style: "currency", currency: "SEK" }).format(major), Number(iso.split(" ")[0]))
    )
    const time = page.locator("tbody time").first()
    expect(await time.getAttribute("title")).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    expect(await time.textContent()).not.toMatch(/AM|PM/)
    await check("invoices-sv-SE")

    await app.run(Db.query((db) => db.updateTable("organizations").set({ country: "NO" }).where("id", "=", org.organizationId).execute()).pipe(Effect.orDie))
    await page.reload()
    await expect.poll(() => page.locator("tbody td.number").count()).toBeGreaterThan(0)
    expect(await totals()).toContain(await expected("nb-NO"))
    await check("invoices-nb-NO")
    await app.run(Db.query((db) => db.updateTable("organizations").set({ country: "SE" }).where("id", "=", org.organizationId).execute()).pipe(Effect.orDie))
  })

  it("4. folds the navigation behind a Menu button below 768 px", async () => {
    await page.setViewportSize({ width: 390, height: 900 })
    await page.goto(`${app.adminUrl}/organization`)
    const navigation = page.getByRole("navigation", { name: "Main" })
    const menu = page.getByRole("button", { name: "Menu" })
    await expect.poll(() => navigation.isVisible()).toBe(false)
    expect(await menu.getAttribute("aria-expanded")).toBe("false")
    await page.screenshot({ path: path.join(shots, "tasks-navigation-folded-390.png"), fullPage: true })
    await menu.click()
    await expect.poll(() => navigation.isVisible()).toBe(true)
    expect(await menu.getAttribute("aria-expanded")).toBe("true")
    await page.screenshot({ path: path.join(shots, "tasks-navigation-open-390.png"), fullPage: true })
    expect(await axeViolations(page)).toEqual([])
    await navigation.getByRole("link", { name: "Invoice runs" }).click()
    await expect.poll(() => h1("Invoice runs").isVisible()).toBe(true)
    await expect.poll(() => navigation.isVisible()).toBe(false)
    await page.setViewportSize({ width: 1280, height: 900 })
    await expect.poll(() => navigation.isVisible()).toBe(true)
    expect(await menu.isVisible()).toBe(false)
  })

  it("4. reads an integration configuration's status again by itself when the connector moves it on", async () => {
    await page.goto(`${app.adminUrl}/integration-configurations/new`)
    await expect.poll(() => h1("New integration configuration").isVisible()).toBe(true)
    await page.getByLabel("Installation").selectOption(connector.installationId)
    await page.getByLabel("Kind").selectOption("signing")
    await page.getByLabel(/Kvarnholmen Drift AB/).check()
    await page.getByRole("button", { name: "Create configuration" }).click()
    await expect.poll(() => page.locator(".facts .status").first().textContent()).toBe("pending")
    await page.getByRole("button", { name: "Connect", exact: true }).click()
    const reference = await page.getByRole("region", { name: "Finish the set-up at the connector" }).getByLabel("Connection reference").inputValue()
    await expect.poll(() => page.getByText(/Refreshes itself every 10 seconds/).isVisible()).toBe(true)
    const redeemed = await call(`${app.apiUrl}/v1/integrations/connection-references/redeem`, {
      token: await installationToken(app.authUrl, connector),
      body: { connectionReference: reference }
    })
    expect(redeemed.status).toBe(201)
    // No reload: the page reads itself again.
    await expect.poll(() => page.locator(".facts .status").first().textContent(), { timeout: 25_000 }).toBe("connecting")
    await check("integration-configuration-refreshed")
  })
})
