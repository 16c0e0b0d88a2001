/**
 * Revocation and key rotation (spec 5.5; decisions 3), black box over HTTP against both hosts on PGlite and
 * PostgreSQL, with the hosts' clock injected (moved on purpose, never slept on): revoking a secret, disabling an
 * Application, suspending or removing an installation stops new tokens at once, while a token already issued keeps
 * working on the API until it expires; after a signing-key rotation, tokens signed by the old key keep verifying
 * until they expire, and the identity host signs with the new key without a restart.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { decodeProtectedHeader } from "jose"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { CLOCK_LEEWAY_SECONDS } from "../../src/identity/AccessTokenVerifier.js"
import { ApplicationService } from "../../src/identity/ApplicationService.js"
import { rotateSigningKey } from "../../src/identity/SigningKeyRotation.js"
import { PREPUBLICATION_SECONDS, REFRESH_INTERVAL_MS, RETIRED_KEY_RETENTION_SECONDS } from "../../src/identity/SigningKeys.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp } from "../support/TestApp.js"
import { assertionClaims, installationTokenBody, newConnector, signAssertion, withInstallations } from "./ConnectorFixtures.js"
import { ControlledClock, FROZEN_AT, system } from "./IdentityTestHost.js"

const actor = system

describe.each(TestDatabase.kinds())("revocation and key rotation on %s", (kind) => {
  const clock = new ControlledClock(FROZEN_AT)
  let app: TestApp
  let org: Fixtures.OrganizationFixture

  beforeAll(async () => {
    app = await start(kind, { clock })
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
  })
  afterAll(async () => {
    await app?.dispose()
  })
  beforeEach(() => clock.set(FROZEN_AT))

  const postToken = async (body: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${app.authUrl}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body
    })
    return { status: response.status, body: (await response.json()) as Record<string, unknown> }
  }
  const clientCredentials = (clientId: string, secret: string) =>
    postToken(new URLSearchParams({ grant_type: "client_credentials", client_id: clientId, client_secret: secret }).toString())
  const contexts = (token: string) => call(`${app.apiUrl}/v1/operational-contexts`, { token }).then((answer) => answer.status)
  const applications = <A, E>(f: (service: ApplicationService) => Effect.Effect<A, E, Db.Db>) =>
    app.run(Effect.flatMap(ApplicationService, f).pipe(Effect.provide(ApplicationService.Default), Effect.orDie))

  /** The token still works 1 s before it expires (plus the verifier's leeway), and not at that instant. */
  const expectWorksUntilExpiry = async (token: string, issuedAt: Date) => {
    const expiry = issuedAt.getTime() + (600 + CLOCK_LEEWAY_SECONDS) * 1000
    clock.set(new Date(expiry - 1000))
    expect(await contexts(token)).toBe(200)
    clock.set(new Date(expiry))
    expect(await contexts(token)).toBe(401)
  }

  const installationToken = async (connector: { readonly appId: string; readonly installationId: string; readonly key: Parameters<typeof signAssertion>[0] }) => {
    const claims = assertionClaims(connector.appId, `${app.authUrl}/oauth/token`, Math.floor(clock.now.getTime() / 1000))
    const assertion = await app.run(signAssertion(connector.key, claims))
    return postToken(installationTokenBody(assertion, connector.installationId))
  }

  it("a revoked secret gets no new token at once; a token it got keeps working until it expires", async () => {
    const created = await app.run(Fixtures.application(org))
    const first = await clientCredentials(created.clientId, created.secret)
    expect(first.status).toBe(200)
    const token = first.body["access_token"] as string
    const secrets = await app.run(
      Db.query((db) => db.selectFrom("applicationSecrets").select("id").where("applicationId", "=", created.id).execute())
    )
    await applications((service) => service.revokeSecret(created.id, secrets[0]!.id, actor))
    expect(await clientCredentials(created.clientId, created.secret)).toMatchObject({ status: 401, body: { error: "invalid_client" } })
    expect(await contexts(token)).toBe(200)
    await expectWorksUntilExpiry(token, FROZEN_AT)
  })

  it("a disabled Application gets no new token at once; issued tokens keep working until they expire; enabled again, it does", async () => {
    const created = await app.run(Fixtures.application(org))
    const token = (await clientCredentials(created.clientId, created.secret)).body["access_token"] as string
    await applications((service) => service.disable(created.id, actor))
    expect(await clientCredentials(created.clientId, created.secret)).toMatchObject({ status: 401, body: { error: "invalid_client" } })
    expect(await contexts(token)).toBe(200)
    await applications((service) => service.enable(created.id, actor))
    expect((await clientCredentials(created.clientId, created.secret)).status).toBe(200)
    await expectWorksUntilExpiry(token, FROZEN_AT)
  })

  for (const change of ["remove", "suspend"] as const) {
    it(`a ${change === "remove" ? "removed" : "suspended"} installation gets no new token at once; its issued token keeps working until it expires`, async () => {
      const connector = await app.run(newConnector())
      const first = await installationToken(connector)
      expect(first.status).toBe(200)
      const token = first.body["access_token"] as string
      await app.run(withInstallations((installations) => installations[change](connector.installationId, actor)).pipe(Effect.orDie))
      expect(await installationToken(connector)).toMatchObject({ status: 400, body: { error: "invalid_grant" } })
      expect(await contexts(token)).toBe(200)
      await expectWorksUntilExpiry(token, FROZEN_AT)
    })
  }

  it("after a key rotation: old tokens verify until they expire, new ones carry the new kid, the JWKS drops the old key after the retention", async () => {
    const created = await app.run(Fixtures.application(org))
    const oldToken = (await clientCredentials(created.clientId, created.secret)).body["access_token"] as string
    const oldKid = decodeProtectedHeader(oldToken).kid
    const rotation = await app.run(rotateSigningKey)
    expect(rotation.previousKid).toBe(oldKid)
    expect(rotation.kid).not.toBe(oldKid)

    // The running hosts were not restarted: they list the new key within the refresh interval, and sign with it
    // once the pre-publication is over.
    clock.advance(`${REFRESH_INTERVAL_MS} millis`)
    const early = (await clientCredentials(created.clientId, created.secret)).body["access_token"] as string
    expect(decodeProtectedHeader(early).kid).toBe(oldKid)
    expect(rotation.activatesAt).toEqual(new Date(FROZEN_AT.getTime() + PREPUBLICATION_SECONDS * 1000))
    clock.set(rotation.activatesAt)
    const newToken = (await clientCredentials(created.clientId, created.secret)).body["access_token"] as string
    expect(decodeProtectedHeader(newToken).kid).toBe(rotation.kid)
    const jwks = async () =>
      ((await (await fetch(`${app.authUrl}/.well-known/jwks.json`)).json()) as { keys: Array<{ kid: string }> }).keys.map(
        (key) => key.kid
      )
    expect(await jwks()).toEqual([rotation.kid, oldKid])
    expect(await contexts(oldToken)).toBe(200)
    expect(await contexts(newToken)).toBe(200)

    await expectWorksUntilExpiry(oldToken, FROZEN_AT)
    clock.set(new Date(rotation.activatesAt.getTime() + (RETIRED_KEY_RETENTION_SECONDS - 1) * 1000))
    expect(await jwks()).toEqual([rotation.kid, oldKid])
    expect(rotation.previousPublishedUntil).toEqual(new Date(rotation.activatesAt.getTime() + RETIRED_KEY_RETENTION_SECONDS * 1000))
    clock.set(new Date(rotation.activatesAt.getTime() + (RETIRED_KEY_RETENTION_SECONDS + 1) * 1000 + REFRESH_INTERVAL_MS))
    expect(await jwks()).toEqual([rotation.kid])
  })
})
