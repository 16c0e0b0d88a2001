/**
 * Integrations fixtures for black-box tests: connector apps registered with a fresh ES256 key and installed into a
 * fixture organization through the operator's services, installation tokens got over HTTP with a signed client
 * assertion (spec 5.3), and the operator's integration commands (create, Connect, disconnect).
 */
import type * as Db from "@propline/db/Db"
import type { IntegrationKind } from "@propline/integrations/IntegrationConfiguration"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { ConnectorAppService } from "../../src/identity/ConnectorAppService.js"
import { InstallationService } from "../../src/identity/InstallationService.js"
import { InstallationServiceLive } from "../../src/integrations/InstallationRemovalLive.js"
import { IntegrationOperatorService, type Operator } from "../../src/integrations/IntegrationOperatorService.js"
import {
  assertionClaims,
  installationTokenBody,
  type KeyPair,
  newKeyPair,
  signAssertion
} from "../identity/ConnectorFixtures.js"
import type { OrganizationFixture } from "./Fixtures.js"

/** A connector app installed in an organization. */
export interface InstalledConnector {
  readonly appId: string
  readonly key: KeyPair
  readonly installationId: string
  readonly organizationId: string
}

const system = { type: "system", id: "integrations-tests" } as const

/** The operator of a fixture organization. */
export const operatorOf = (org: { readonly organizationId: string }): Operator => ({
  organizationId: org.organizationId,
  actor: { type: "operator", id: "operator-1" }
})

/** Registers a new connector app (or reuses `appId`'s) and installs it in `org` with roles over contexts. */
export const installConnector = (
  org: OrganizationFixture,
  options: {
    readonly roles?: ReadonlyArray<string>
    readonly contextIds?: ReadonlyArray<string>
    readonly app?: { readonly appId: string; readonly key: KeyPair }
  } = {}
): Effect.Effect<InstalledConnector, never, Db.Db> =>
  Effect.gen(function* () {
    const app = options.app ?? { appId: `conn-${randomUUID().slice(0, 8)}`, key: yield* newKeyPair() }
    if (options.app === undefined) {
      yield* Effect.flatMap(ConnectorAppService, (apps) =>
        apps.register(
          { appId: app.appId, name: "Test connector", setupUrl: "https://connector.example/setup?via=test", keys: [app.key.publicJwk] },
          system
        )
      ).pipe(Effect.provide(ConnectorAppService.Default))
    }
    const installation = yield* Effect.flatMap(InstallationService, (installations) =>
      installations.install(
        {
          appId: app.appId,
          organizationId: org.organizationId,
          roles: options.roles ?? ["billing", "signing", "booking"],
          contextIds: options.contextIds ?? [org.rootId]
        },
        system
      )
    ).pipe(Effect.provide(InstallationServiceLive))
    return { ...app, installationId: installation.id, organizationId: org.organizationId }
  }).pipe(Effect.orDie)

/** An installation token for `connector`, over HTTP, with a fresh assertion at the real time. */
export const installationToken = async (authUrl: string, connector: InstalledConnector): Promise<string> => {
  const endpoint = `${authUrl}/oauth/token`
  const assertion = await Effect.runPromise(
    signAssertion(connector.key, assertionClaims(connector.appId, endpoint, Math.floor(Date.now() / 1000)))
  )
  const response = await fetch(endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: installationTokenBody(assertion, connector.installationId)
  })
  const body = (await response.json()) as { access_token?: string }
  if (response.status !== 200 || body.access_token === undefined) {
    throw new Error(`installation token request failed: ${response.status} ${JSON.stringify(body)}`)
  }
  return body.access_token
}

/** Runs `f` with the operator's integration commands. */
export const withOperator = <A, E, R>(f: (service: IntegrationOperatorService) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(IntegrationOperatorService, f).pipe(Effect.provide(IntegrationOperatorService.Default))

/** A `pending` configuration of `kind` for the connector's installation; dies on a refusal. */
export const configuration = (
  connector: InstalledConnector,
  kind: IntegrationKind,
  contextIds: ReadonlyArray<string>
) =>
  withOperator((service) =>
    service.create(operatorOf(connector), { installationId: connector.installationId, kind, operationalContextIds: contextIds })
  ).pipe(Effect.orDie)

/** Presses Connect on a configuration of the connector's organization; dies on a refusal. */
export const connect = (connector: InstalledConnector, configurationId: string) =>
  withOperator((service) => service.connect(operatorOf(connector), configurationId)).pipe(Effect.orDie)

/** Disconnects a configuration of the connector's organization; dies on a refusal. */
export const disconnect = (connector: InstalledConnector, configurationId: string) =>
  withOperator((service) => service.disconnect(operatorOf(connector), configurationId)).pipe(Effect.orDie)
