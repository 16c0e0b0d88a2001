/**
 * Connector fixtures for black-box tests of the installation-token grant (spec 5.3): a connector app registered with
 * a fresh ES256 key pair and installed into a new organization through the operator's services, and client
 * assertions signed the way a connector signs them (or deliberately not).
 */
import type * as Db from "@propline/db/Db"
import { CLIENT_ASSERTION_TYPE_JWT_BEARER, GRANT_TYPE_INSTALLATION_TOKEN } from "@propline/identity/TokenRequest"
import { Effect } from "effect"
import { type CryptoKey, exportJWK, generateKeyPair, type JWK } from "jose"
import { randomUUID } from "node:crypto"
import { ConnectorAppService } from "../../src/identity/ConnectorAppService.js"
import { InstallationService } from "../../src/identity/InstallationService.js"
import { InstallationServiceLive } from "../../src/integrations/InstallationRemovalLive.js"
import { newOrganization, system } from "./IdentityTestHost.js"

/** An ES256 key pair with its kid; `publicJwk` carries `kid`. */
export interface KeyPair {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicJwk: JWK & { readonly kid: string }
}

export const newKeyPair = (kid: string = `key-${randomUUID().slice(0, 8)}`) =>
  Effect.promise(async (): Promise<KeyPair> => {
    const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true })
    return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid } }
  })

/** A registered app with one key, installed into a new organization with every role over its root. */
export interface ConnectorFixture {
  readonly appId: string
  readonly key: KeyPair
  readonly organizationId: string
  readonly contextId: string
  readonly installationId: string
}

export const withConnectorApps = <A, E, R>(f: (apps: ConnectorAppService) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(ConnectorAppService, f).pipe(Effect.provide(ConnectorAppService.Default))

export const withInstallations = <A, E, R>(f: (installations: InstallationService) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(InstallationService, f).pipe(Effect.provide(InstallationServiceLive))

export const newConnector = (
  options: { readonly roles?: ReadonlyArray<string> } = {}
): Effect.Effect<ConnectorFixture, never, Db.Db> =>
  Effect.gen(function* () {
    const appId = `conn-${randomUUID().slice(0, 8)}`
    const key = yield* newKeyPair()
    yield* withConnectorApps((apps) =>
      apps.register(
        { appId, name: "Test connector", setupUrl: "https://connector.example/setup", keys: [key.publicJwk] },
        system
      )
    )
    const { contextId, organizationId } = yield* newOrganization()
    const installation = yield* withInstallations((installations) =>
      installations.install(
        { appId, organizationId, roles: options.roles ?? ["billing", "signing", "booking"], contextIds: [contextId] },
        system
      )
    )
    return { appId, key, organizationId, contextId, installationId: installation.id }
  }).pipe(Effect.orDie)

/** The standard claims of an assertion at `now` (seconds since the epoch): 300 s of life, a fresh jti. */
export const assertionClaims = (appId: string, audience: string, nowSeconds: number): Record<string, unknown> => ({
  iss: appId,
  sub: appId,
  aud: audience,
  iat: nowSeconds,
  exp: nowSeconds + 300,
  jti: randomUUID()
})

/** Signs the JWS signing input: what a key (or an attacker holding only a public key) produces. */
export type Signer = (signingInput: Uint8Array) => Promise<Uint8Array>

/** ES256 with a private key: the IEEE P1363 signature (r ‖ s) JWS uses (RFC 7518 3.4). */
export const es256 = (privateKey: CryptoKey): Signer => async (data) =>
  new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, privateKey, data))

const base64url = (value: Uint8Array | string) =>
  Buffer.from(typeof value === "string" ? Buffer.from(value, "utf8") : value).toString("base64url")

/**
 * A compact JWS of exactly this header and payload (any JSON, including claims of the wrong type), signed by
 * `signer`; `none` leaves the signature empty.
 */
export const compactJws = (header: unknown, payload: unknown, signer: Signer | "none") =>
  Effect.promise(async () => {
    const signingInput = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(payload))}`
    const signature = signer === "none" ? "" : base64url(await signer(Buffer.from(signingInput, "ascii")))
    return `${signingInput}.${signature}`
  })

/**
 * An assertion signed ES256 with `key`: `base` claims with `claims` merged over them (a member set to `undefined`
 * is left out), and the header `{ alg: ES256, kid }` with `header` merged over it.
 */
export const signAssertion = (
  key: KeyPair,
  base: Record<string, unknown>,
  overrides: { readonly claims?: Record<string, unknown>; readonly header?: Record<string, unknown> } = {}
) => {
  const withoutUndefined = (record: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined))
  return compactJws(
    withoutUndefined({ alg: "ES256", kid: key.kid, ...overrides.header }),
    withoutUndefined({ ...base, ...overrides.claims }),
    es256(key.privateKey)
  )
}

/** The installation-token request body (spec 5.3), with `extra` fields appended as given. */
export const installationTokenBody = (assertion: string, installationId: string, extra: Record<string, string> = {}) =>
  new URLSearchParams({
    grant_type: GRANT_TYPE_INSTALLATION_TOKEN,
    client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
    client_assertion: assertion,
    installation_id: installationId,
    ...extra
  }).toString()
