/**
 * The product started for a black-box billing suite: two organizations, "Nordhavn" (the caller's) and "Fjord"
 * (another tenant, for the 404s across organizations), an Application of each with its default roles, and a token
 * of each from the identity host.
 */
import type * as Db from "@propline/db/Db"
import * as Fixtures from "./Fixtures.js"
import { start, type TestApp, token } from "./TestApp.js"

export interface TwoOrganizations {
  readonly app: TestApp
  readonly org: Fixtures.OrganizationFixture
  readonly other: Fixtures.OrganizationFixture
  /** A token of `org`'s Application. */
  readonly billingToken: string
  /** A token of `other`'s Application. */
  readonly otherToken: string
}

/** Starts the product over a fresh database of `kind` with {@link TwoOrganizations}; disposes it if the set-up fails. */
export const startTwoOrganizations = async (kind: Db.DbConfig["_tag"]): Promise<TwoOrganizations> => {
  const app = await start(kind)
  try {
    const org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const other = await app.run(Fixtures.organization({ name: "Fjord" }))
    const billingApp = await app.run(Fixtures.application(org))
    const otherApp = await app.run(Fixtures.application(other))
    const billingToken = await token(app.authUrl, billingApp.clientId, billingApp.secret)
    const otherToken = await token(app.authUrl, otherApp.clientId, otherApp.secret)
    return { app, org, other, billingToken, otherToken }
  } catch (error) {
    await app.dispose()
    throw error
  }
}
