/**
 * The demo connector as a user meets it, black box: the built product on a fresh database writes
 * demo-connector.json; the example installed connector gets an installation token with it (spec 5.3), sees its
 * assertion refused when replayed, and calls the API; with the file's connection reference it sets its signing
 * configuration up (decisions 8). Also the assertion minter the benchmark uses, on its own.
 * Runs on PGlite and, when a server is configured, on PostgreSQL.
 */
import * as TestDatabase from "@propline/db/TestDatabase"
import { type StartedProduct, startProduct } from "@propline/harness/StartedProduct"
import { createPublicKey, generateKeyPairSync, verify } from "node:crypto"
import { readFileSync, statSync } from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ConnectorCredentials, createAssertionMinter } from "../src/InstallationAssertion.js"
import { runInstallationFlow } from "../src/InstallationFlow.js"
import { runSetupFlow } from "../src/SetupFlow.js"

describe("createAssertionMinter (spec 5.3)", () => {
  const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const connector: ConnectorCredentials = {
    app_id: "acme-erp",
    installation_id: "9632f495-41d5-4e47-b107-2a8be236d0b3",
    private_jwk: { ...privateKey.export({ format: "jwk" }), kid: "k1", alg: "ES256" },
    auth_url: "https://auth.propline.test",
    base_url: "https://api.propline.test"
  }
  const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString()) as Record<string, unknown>

  it("mints ES256 assertions with the app as iss and sub, the token endpoint as aud, 300 s of life and a fresh jti", () => {
    const minter = createAssertionMinter(connector, { now: () => 1_900_000_000_500 })
    const [first, second] = [minter.assertion(), minter.assertion()]
    const [header, payload, signature] = first.split(".") as [string, string, string]
    expect(decode(header)).toEqual({ alg: "ES256", typ: "JWT", kid: "k1" })
    expect(decode(payload)).toMatchObject({
      iss: "acme-erp",
      sub: "acme-erp",
      aud: "https://auth.propline.test/oauth/token",
      iat: 1_900_000_000,
      exp: 1_900_000_300
    })
    expect(decode(payload)["jti"]).not.toBe(decode(second.split(".")[1]!)["jti"])
    const publicKey = createPublicKey(privateKey)
    const valid = verify(
      "sha256",
      Buffer.from(`${header}.${payload}`),
      { key: publicKey, dsaEncoding: "ieee-p1363" },
      Buffer.from(signature, "base64url")
    )
    expect(valid).toBe(true)
    expect(minter.tokenEndpoint).toBe("https://auth.propline.test/oauth/token")
  })

  it("writes the whole request body", () => {
    const body = new URLSearchParams(createAssertionMinter(connector).requestBody())
    expect(Object.fromEntries([...body].map(([name, value]) => [name, name === "client_assertion" ? "…" : value]))).toEqual({
      grant_type: "urn:service:params:oauth:grant-type:installation-token",
      client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
      client_assertion: "…",
      installation_id: connector.installation_id
    })
  })
})

describe.each(TestDatabase.kinds())("the example installed connector against the started product on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let product: StartedProduct

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    product = await startProduct(
      database.config._tag === "postgres" ? { databaseUrl: database.config.connectionString } : {}
    )
  }, 300_000)

  afterAll(async () => {
    await product?.stop()
    await database?.drop()
  }, 60_000)

  const connectorFile = () => path.join(product.dataDir, "demo-connector.json")

  it("writes demo-connector.json with exactly the documented keys, mode 0600, an ES256 private JWK with kid and alg", () => {
    const file = JSON.parse(readFileSync(connectorFile(), "utf8")) as Record<string, unknown>
    expect(Object.keys(file)).toEqual(["app_id", "installation_id", "private_jwk", "auth_url", "base_url", "connection_reference"])
    expect(file["connection_reference"]).toMatch(/^icr_[A-Za-z0-9_-]{43}$/)
    expect(file["private_jwk"]).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256" })
    expect(Object.keys(file["private_jwk"] as object).sort()).toEqual(["alg", "crv", "d", "kid", "kty", "x", "y"])
    expect(statSync(connectorFile()).mode & 0o777).toBe(0o600)
    expect(file["auth_url"]).toBe(product.credentials.auth_url)
    expect(file["base_url"]).toBe(product.credentials.base_url)
  })

  it("gets an installation token, is refused a replay, and calls the API with every role over the organization", async () => {
    const connector = JSON.parse(readFileSync(connectorFile(), "utf8")) as ConnectorCredentials
    const steps = await runInstallationFlow(connector)
    expect(steps.map((step) => step.outcome)).toEqual([
      `Bearer token for installation ${connector.installation_id}, expires in 600 s`,
      "refused: 401 invalid_client",
      expect.stringMatching(/^7 contexts: /),
      expect.stringMatching(/^3 invoices, first #\d+$/)
    ])
  })

  it("sets up the signing configuration with the file's connection reference: redeem, read, ready; a second redeem is refused", async () => {
    const connector = JSON.parse(readFileSync(connectorFile(), "utf8")) as ConnectorCredentials
    const steps = await runSetupFlow(connector)
    expect(steps.map((step) => step.outcome)).toEqual([
      expect.stringMatching(/^signing configuration [0-9a-f-]{36} is connecting$/),
      "2 configurations of the installation (billing ready, signing connecting)",
      'ready: account Example account at the connector\'s system, gates [], settings {"signatureMethods":["bankid-se","email-link"],"documentExpiryDays":30}',
      "refused: 400 INTEGRATIONS_CONNECTION_REFERENCE_INVALID"
    ])
    const again = await runSetupFlow(connector)
    expect(again[0]?.outcome).toMatch(/^refused: 400 INTEGRATIONS_CONNECTION_REFERENCE_INVALID \(a reference works once/)
  })
})
