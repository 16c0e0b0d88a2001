/**
 * The product started for a black-box console suite (issue 11): two organizations, "Nordhavn" (the operator's, with
 * an approved invoice and a proposal awaiting verification) and "Fjord" (another tenant, for the 404s across
 * organizations, with an approved invoice and an Application), an operator of each signed in, and the requests the
 * suites share.
 */
import type * as Db from "@propline/db/Db"
import { adminCall, type OperatorFixture, operator, type Session, signIn } from "./AdminClient.js"
import * as Fixtures from "./Fixtures.js"
import { start, type TestApp } from "./TestApp.js"

export interface AdminConsole {
  readonly app: TestApp
  readonly org: Fixtures.OrganizationFixture
  readonly other: Fixtures.OrganizationFixture
  /** The signed-in operator of `org`. */
  readonly me: OperatorFixture
  readonly session: Session
  readonly otherApplicationId: string
  /** The first secret of `other`'s Application. */
  readonly otherSecretId: string
  readonly otherInvoiceId: string
  /** The admin host's address of `path`. */
  readonly url: (path: string) => string
  /** POST /api/applications as `as` (by default `session`); `csrf` as in {@link adminCall}. */
  readonly createApplication: (body: unknown, as?: Session, csrf?: boolean) => ReturnType<typeof adminCall>
}

/** Starts the product over a fresh database of `kind` with {@link AdminConsole}; disposes it if the set-up fails. */
export const startAdminConsole = async (kind: Db.DbConfig["_tag"]): Promise<AdminConsole> => {
  const app = await start(kind)
  try {
    const url = (path: string) => `${app.adminUrl}${path}`
    const org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    const other = await app.run(Fixtures.organization({ name: "Fjord" }))
    await app.run(Fixtures.approvedInvoice(org))
    await app.run(Fixtures.proposal(org))
    const otherInvoiceId = await app.run(Fixtures.approvedInvoice(other))
    const otherApp = await app.run(Fixtures.application(other))
    const otherApplicationId = otherApp.id
    const me = await app.run(operator(org.organizationId))
    const session = await signIn(app.adminUrl, me)
    const otherOperator = await app.run(operator(other.organizationId))
    const otherSession = await signIn(app.adminUrl, otherOperator)
    const otherDetail = await adminCall(url(`/api/applications/${otherApplicationId}`), otherSession)
    const otherSecretId: string = otherDetail.body.secrets[0].id
    const createApplication = (body: unknown, as: Session = session, csrf?: boolean) =>
      adminCall(url("/api/applications"), as, { body, ...(csrf === undefined ? {} : { csrf }) })
    return { app, org, other, me, session, otherApplicationId, otherSecretId, otherInvoiceId, url, createApplication }
  } catch (error) {
    await app.dispose()
    throw error
  }
}
