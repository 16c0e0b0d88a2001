/**
 * The served OpenAPI document as an outside integrator uses it (issue 24): openapi-typescript generates the types
 * from `GET {base_url}/openapi.json` into `generated-client/schema.d.ts`, `generated-client/flow.ts` (openapi-fetch)
 * type-checks against them under strict settings (`tsc -p generated-client`, no skipLibCheck), and the flow runs
 * against the started product: a client_credentials token from the identity host, the verification queue, pass, the
 * send queue, report-sent, a payment by the caller's own invoice id, and a repeated pass refused with the code the
 * operation's narrowed problem lists.
 */
import { execFile } from "node:child_process"
import { writeFileSync } from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import openapiTS, { astToString } from "openapi-typescript"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp } from "../support/TestApp.js"

/** `generated-client/flow.ts`'s `billingFlow`, as this suite reads its result. */
type BillingFlow = (options: {
  readonly apiUrl: string
  readonly authUrl: string
  readonly clientId: string
  readonly clientSecret: string
  readonly externalReference: string
}) => Promise<{
  readonly passedProposalId: string
  readonly invoice: Record<string, unknown>
  readonly repeatedPass: { readonly status: number; readonly code: string | undefined; readonly requestId: string | null }
}>

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, "..", "..")
const clientDir = path.join(root, "generated-client")

describe("a client generated from the OpenAPI document (openapi-typescript + openapi-fetch)", () => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture

  beforeAll(async () => {
    app = await start("pglite")
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
  }, 180_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it("generates, type-checks strictly and runs the billing flow", async () => {
    const served = await call(`${app.apiUrl}/openapi.json`)
    expect(served.status).toBe(200)
    writeFileSync(path.join(clientDir, "schema.d.ts"), astToString(await openapiTS(served.body)))
    const typecheck = await run(path.join(root, "node_modules", ".bin", "tsc"), ["-p", clientDir], { cwd: root }).catch(
      (error: { stdout?: string }) => ({ stdout: error.stdout ?? String(error) })
    )
    expect(typecheck.stdout).toBe("")

    const proposalId = await app.run(Fixtures.proposal(org))
    const application = await app.run(Fixtures.application(org))
    // flow.ts is loaded as a file, not imported: it needs schema.d.ts, which exists only once generated.
    const { billingFlow } = (await import(path.join(clientDir, "flow.ts"))) as { readonly billingFlow: BillingFlow }
    const result = await billingFlow({
      apiUrl: app.apiUrl,
      authUrl: app.authUrl,
      clientId: application.clientId,
      clientSecret: application.secret,
      externalReference: "ERP-GEN-1"
    })
    expect(result.passedProposalId).toBe(proposalId)
    expect(result.invoice).toMatchObject({ status: "paid", externalReference: "ERP-GEN-1", balanceMinorUnits: 0 })
    expect(result.repeatedPass).toEqual({ status: 400, code: "BILLING_PROPOSAL_STATUS_INVALID", requestId: "generated-client-repeat" })
  }, 180_000)
})
