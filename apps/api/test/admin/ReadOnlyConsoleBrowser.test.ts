/**
 * A read-only operator in headless Chromium (issue 25, item 5), against the real hosts over the demo data on
 * PGlite: the server answers 403 to every change of a `read_only` operator (`OperatorTeam.test.ts`), so the
 * console offers none. On every page of the navigation, on the new-record pages and on a record's page from each
 * list, no change button is enabled (each is disabled with the reason as its title, or not shown), no link leads to
 * a new record's form, and the operator's own account can still be changed. Screenshots in
 * `apps/api/.artifacts/screenshots/read-only-*.png`; axe-core finds no violation in the disabled forms.
 */
import type { Browser, Page } from "playwright-core"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEMO_IDS } from "../../src/demo/DemoIds.js"
import { seedDemoData } from "../../src/demo/DemoData.js"
import { axeViolations } from "../support/Accessibility.js"
import { operator } from "../support/AdminClient.js"
import { chromiumPath, screenshotDir } from "../support/Browser.js"
import { signedInPage } from "../support/ConsolePage.js"
import { start, type TestApp } from "../support/TestApp.js"

const executablePath = chromiumPath()

/** The reason a disabled change control gives on hover (`apps/admin/src/web/ui/Change.tsx`). */
const READ_ONLY_REASON = "You are a read-only operator: an owner or an admin can make this change."

/** Buttons that read or copy, never change: filters, paging, copying, reading a view again. */
const READING = /^(Apply|Clear|Refresh|Copy (secret|link|reference))$/

/** The list pages whose first record's page is visited too (the record links under the list's path). */
const LISTS = [
  "/customers",
  "/contracts",
  "/billing/invoice-runs",
  "/billing/invoices",
  "/billing/proposals",
  "/booking/requests",
  "/booking/resources",
  "/booking/add-on-products",
  "/applications",
  "/connector-apps",
  "/integration-configurations",
  "/webhooks",
  "/webhooks/deliveries"
]

const NAVIGATION = [
  "/organization",
  "/billing",
  "/billing/send-queue",
  "/billing/withdrawal-queue",
  "/booking/calendar",
  "/audit-log",
  "/team",
  "/applications/new",
  "/connector-apps/new",
  "/integration-configurations/new",
  "/webhooks/new",
  "/booking/resources/new",
  "/booking/add-on-products/new",
  ...LISTS
]

interface Controls {
  /** Visible, enabled buttons in the page's main part, by their text. */
  readonly enabled: ReadonlyArray<string>
  /** Visible, disabled buttons whose title (theirs or an ancestor's) is the read-only reason. */
  readonly heldBack: number
  /** Links to a new record's form or a record's set-up. */
  readonly newLinks: ReadonlyArray<string>
}

describe.skipIf(executablePath === undefined)("a read-only operator in Chromium", () => {
  let app: TestApp
  let browser: Browser
  let page: Page
  const shots = screenshotDir()

  /** Opens `href` and waits until its heading is shown and nothing is loading any more. */
  const visit = async (href: string) => {
    await page.goto(`${app.adminUrl}${href}`)
    await expect.poll(() => page.getByRole("heading", { level: 1 }).count(), { message: href }).toBeGreaterThan(0)
    await expect.poll(() => page.getByRole("status").filter({ hasText: "Loading" }).count(), { message: href }).toBe(0)
    // Forms folded in <details> panels count too.
    await page.evaluate("document.querySelectorAll('main details').forEach((panel) => { panel.open = true })")
  }

  /** The page's change controls as {@link Controls} (evaluated in the page: this package has no DOM types). */
  const controls = (): Promise<Controls> =>
    page.evaluate<Controls>(`(() => {
      const visible = (element) => element.checkVisibility()
      const named = (element) => (element.textContent ?? "").replace(/\\s+/g, " ").trim() || (element.getAttribute("value") ?? "")
      const buttons = Array.from(document.querySelectorAll("main button, main input[type=submit]")).filter(visible)
      return {
        enabled: buttons.filter((button) => !button.matches(":disabled")).map(named),
        heldBack: buttons.filter((button) => button.matches(":disabled") && button.closest("[title]")?.getAttribute("title") === ${JSON.stringify(READ_ONLY_REASON)}).length,
        newLinks: Array.from(document.querySelectorAll("main a[href]")).filter(visible)
          .map((link) => link.getAttribute("href")).filter((href) => /\\/new(\\?|$)|\\/setup$/.test(href))
      }
    })()`)

  /** The first link in the page's main part to a record under `list` (not another list, not a new-record form), or null. */
  const firstRecord = (list: string): Promise<string | null> =>
    page.evaluate<string | null>(`Array.from(document.querySelectorAll("main a[href]"))
      .map((link) => link.getAttribute("href"))
      .find((href) => href.startsWith(${JSON.stringify(`${list}/`)}) && !${JSON.stringify(NAVIGATION)}.includes(href) && !/\\/(new|setup)$/.test(href)) ?? null`)

  beforeAll(async () => {
    app = await start("pglite")
    await app.run(seedDemoData(new Date()))
    const me = await app.run(operator(DEMO_IDS.organization, { role: "read_only" }))
    ;({ browser, page } = await signedInPage(executablePath!, app.adminUrl, me))
  }, 180_000)
  afterAll(async () => {
    await browser?.close()
    await app?.dispose()
  })

  it("finds no enabled change button and no link to a new record on any page", async () => {
    const records: Array<string> = []
    for (const list of LISTS) {
      await visit(list)
      const first = await firstRecord(list)
      if (first !== null) records.push(first)
    }
    // The demo data fills these lists; their records' pages hold most of the changes.
    expect(records.length).toBeGreaterThanOrEqual(6)

    let heldBack = 0
    for (const href of [...NAVIGATION, ...records]) {
      await visit(href)
      const found = await controls()
      expect(found.enabled.filter((name) => !READING.test(name)), href).toEqual([])
      expect(found.newLinks, href).toEqual([])
      heldBack += found.heldBack
    }
    // The change controls are there, disabled, saying why.
    expect(heldBack).toBeGreaterThan(10)
  })

  it("shows a disabled change with the reason, passes axe-core, and still lets the operator change their own account", async () => {
    await visit("/applications/new")
    const create = page.getByRole("button", { name: "Create Application" })
    expect(await create.isDisabled()).toBe(true)
    expect(await page.getByLabel("Name").isDisabled()).toBe(true)
    expect(await page.locator(`[title="${READ_ONLY_REASON}"]`).getByRole("button", { name: "Create Application" }).count()).toBe(1)
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 })
      await page.screenshot({ path: path.join(shots, `read-only-new-application-${width}.png`), fullPage: true })
      expect(await axeViolations(page), `at ${width} px`).toEqual([])
    }
    await page.setViewportSize({ width: 1280, height: 900 })

    await visit("/account")
    expect(await page.getByRole("button", { name: "Set up an authenticator" }).isEnabled()).toBe(true)
    expect(await page.getByRole("button", { name: "Change password" }).isEnabled()).toBe(true)
  })
})
