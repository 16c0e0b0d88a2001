/**
 * The team and the pictures in headless Chromium (issue 25, items 5 and 6), against the real hosts on PGlite: an
 * owner invites an operator, who accepts the link and is signed in; that operator turns on a TOTP second factor
 * (codes made with `otpauth`) and signs in with it; the billing overview's charts and the booking week calendar
 * render (Chart.js canvases, under the console's strict CSP: no violation is reported). Every page is checked with
 * axe-core (0 violations) and written as a screenshot at 1280 and 390 px (`apps/api/.artifacts/screenshots`).
 */
import { createRequire } from "node:module"
import { readFile } from "node:fs/promises"
import * as path from "node:path"
import * as OTPAuth from "otpauth"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OperatorFixture, operator } from "../support/AdminClient.js"
import { chromiumPath, launch, screenshotDir } from "../support/Browser.js"
import * as Fixtures from "../support/Fixtures.js"
import { billingPictures, bookingPictures } from "../support/PictureFixtures.js"
import { start, type TestApp } from "../support/TestApp.js"

const executablePath = chromiumPath()

/** Polls `read` for up to 10 s: a sign-in verifies argon2id, slow on a busy machine. */
const poll = <T,>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 10_000 })
const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js")

describe.skipIf(executablePath === undefined)("the team and the pictures in Chromium", () => {
  let app: TestApp
  let browser: Browser
  let page: Page
  let owner: OperatorFixture
  let monday: string
  let axeSource: string
  const shots = screenshotDir()
  const cspViolations: Array<string> = []
  const invited = { email: "invited.teammate@example.com", password: "a long teammate password" }

  const h1 = (name: string | RegExp) => page.getByRole("heading", { level: 1, name })

  /** axe-core over the page as it is: no violation (evaluated through the DevTools protocol, which the CSP allows). */
  const accessible = async () => {
    await page.evaluate(axeSource)
    const violations = await page.evaluate<ReadonlyArray<string>>(
      "axe.run(document).then((result) => result.violations.map((v) => v.id + ': ' + v.nodes.map((n) => JSON.stringify(n.target)).join(' ')))"
    )
    expect(violations).toEqual([])
  }

  /** Screenshots at 1280 and 390 px wide, each checked for a horizontal scrollbar and with axe-core. */
  const pictured = async (name: string) => {
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 })
      await page.waitForTimeout(150)
      expect(await page.evaluate<boolean>("document.documentElement.scrollWidth <= window.innerWidth + 1")).toBe(true)
      await page.screenshot({ path: path.join(shots, `${name}-${width}.png`), fullPage: true })
      await accessible()
    }
    await page.setViewportSize({ width: 1280, height: 900 })
  }

  const signIn = async (email: string, password: string) => {
    await page.goto(app.adminUrl)
    await poll(() => page.getByRole("heading", { name: "Sign in" }).isVisible()).toBe(true)
    await page.getByLabel("E-mail address").fill(email)
    await page.getByLabel("Password").fill(password)
    await page.getByRole("button", { name: "Sign in" }).click()
  }

  const signOut = async () => {
    await page.getByRole("button", { name: "Sign out" }).first().click()
    await poll(() => page.getByText("You are signed out.").isVisible()).toBe(true)
  }

  beforeAll(async () => {
    app = await start("pglite")
    const org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    owner = await app.run(operator(org.organizationId))
    await app.run(billingPictures(org))
    ;({ monday } = await bookingPictures(app, org))
    axeSource = await readFile(axePath, "utf8")
    browser = await launch(executablePath!)
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: app.adminUrl })
    page = await context.newPage()
    page.setDefaultTimeout(8_000)
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text())
    })
  })
  afterAll(async () => {
    await browser?.close()
    await app?.dispose()
  })

  it("an owner invites an operator, who accepts the link and is signed in with the invited role", async () => {
    await signIn(owner.email, owner.password)
    await poll(() => page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true)
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Operators" }).click()
    await poll(() => h1("Team").isVisible()).toBe(true)
    await page.getByLabel("E-mail address").fill(invited.email)
    await page.getByLabel("Role", { exact: true }).selectOption("admin")
    await page.getByRole("button", { name: "Create invitation link" }).click()
    const link = await page.getByRole("textbox", { name: "Invitation link" }).inputValue()
    expect(link).toMatch(new RegExp(`^${app.adminUrl}/invitation#`))
    await poll(() => page.getByRole("table", { name: "Open invitations" }).getByText(invited.email).isVisible()).toBe(true)
    await pictured("team")
    await signOut()

    await page.goto(link)
    await poll(() => page.getByRole("heading", { name: "Join Nordhavn" }).isVisible()).toBe(true)
    await poll(() => page.getByText(invited.email).isVisible()).toBe(true)
    await pictured("invitation")
    await page.getByLabel("Your name").fill("Invited Teammate")
    await page.getByLabel("Choose a password").fill("short")
    await page.getByRole("button", { name: "Accept and sign in" }).click()
    await poll(() => page.getByText("must be at least 12 characters").isVisible()).toBe(true)
    await page.getByLabel("Choose a password").fill(invited.password)
    await page.getByRole("button", { name: "Accept and sign in" }).click()
    await poll(() => page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true)
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Operators" }).click()
    await poll(() => page.getByRole("row", { name: /Invited Teammate/ }).textContent()).toContain("you")

    // The link worked once.
    await signOut()
    await page.goto(link)
    await poll(() => page.getByRole("alert").textContent()).toContain("This invitation link doesn't work")
  })

  it("turns on a TOTP second factor with a QR code, then signs in with a code", async () => {
    await signIn(invited.email, invited.password)
    await poll(() => page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true)
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Your account" }).click()
    await poll(() => h1("Your account").isVisible()).toBe(true)
    await page.getByRole("button", { name: "Set up an authenticator" }).click()
    await poll(() => page.getByRole("img", { name: "QR code to scan with an authenticator app" }).isVisible()).toBe(true)
    const secret = OTPAuth.Secret.fromBase32((await page.locator(".totp-secret").textContent())!)
    const code = (timestamp: number) => OTPAuth.TOTP.generate({ secret, algorithm: "SHA1", digits: 6, period: 30, timestamp })
    await pictured("account-totp-enrol")
    const enrolledAt = Date.now()
    await page.getByLabel("Code from the app").fill(code(enrolledAt))
    await page.getByRole("button", { name: "Turn on" }).click()
    await poll(() => page.getByRole("heading", { name: "Recovery codes" }).isVisible()).toBe(true)
    expect(await page.locator(".recovery-codes li").count()).toBe(10)
    await poll(() => page.getByText("10 recovery codes left.").isVisible()).toBe(true)
    await pictured("account-second-factor")
    await signOut()

    await signIn(invited.email, invited.password)
    await poll(() => page.getByRole("heading", { name: "Second factor" }).isVisible()).toBe(true)
    await pictured("sign-in-second-factor")
    // The enrolment's code is spent; the next step's is accepted.
    await page.getByLabel("Code").fill(code(enrolledAt))
    await page.getByRole("button", { name: "Verify" }).click()
    await poll(() => page.getByRole("alert").textContent()).toContain("The code is wrong, was already used")
    await page.getByLabel("Code").fill(code(enrolledAt + 30_000))
    await page.getByRole("button", { name: "Verify" }).click()
    await poll(() => page.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true)
  })

  it("draws the billing overview's charts and the booking week calendar", async () => {
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Overview" }).click()
    await poll(() => h1("Billing overview").isVisible()).toBe(true)
    await poll(() => page.getByRole("img", { name: /Invoiced, paid and overdue per month in SEK/ }).isVisible()).toBe(true)
    await poll(() => page.getByRole("img", { name: /Overdue balance by days past due in SEK/ }).isVisible()).toBe(true)
    await poll(() => page.getByRole("table", { name: "Overdue by days past due" }).textContent()).toContain("31-60 days")
    await pictured("billing-charts")

    await page.goto(`${app.adminUrl}/booking/calendar?from=${monday}`)
    await poll(() => h1("Booking calendar").isVisible()).toBe(true)
    await poll(() => page.getByRole("img", { name: /Bookings and holds per resource/ }).isVisible()).toBe(true)
    const items = page.getByRole("table", { name: `Bookings and holds in the week from ${monday}` })
    await poll(() => items.getByText("Astrid Lindqvist").isVisible()).toBe(true)
    await poll(() => items.getByText("Olav Haugen").isVisible()).toBe(true)
    await poll(() => page.getByRole("table", { name: "Booked hours per day" }).textContent()).toContain("2 h")
    await pictured("booking-calendar-week")
    expect(cspViolations).toEqual([])
  })
})
