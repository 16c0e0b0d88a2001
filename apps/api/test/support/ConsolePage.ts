/**
 * A Chromium page signed in to the console as `me` (the browser suites' common start): one browser, one context at
 * 1280 × 900, actions that can't happen failing within 8 s, and the organization page shown.
 */
import type { Browser, Page } from "playwright-core"
import type { OperatorFixture } from "./AdminClient.js"
import { launch } from "./Browser.js"

export const signedInPage = async (executablePath: string, adminUrl: string, me: OperatorFixture): Promise<{ browser: Browser; page: Page }> => {
  const browser = await launch(executablePath)
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
  page.setDefaultTimeout(8_000)
  await page.goto(adminUrl)
  await page.getByLabel("E-mail address").fill(me.email)
  await page.getByLabel("Password").fill(me.password)
  await page.getByRole("button", { name: "Sign in" }).click()
  await page.getByRole("heading", { level: 1, name: "Organization" }).waitFor()
  return { browser, page }
}
