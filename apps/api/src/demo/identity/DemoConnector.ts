/**
 * The demo connector (issue 7; spec 5.3; decisions 1, 2): a connector app registered with an ES256 key pair and
 * installed into the demo organization with every role (`billing`, `signing`, `booking`, `integrations`) over its
 * root context, so the development environment can show the installation-token grant end to end.
 *
 * The demo seed registers the app (without a key) and installs it (`integrations/DemoIntegrations.ts`), so the
 * billing configuration billing runs under exists before the demo's billing life is played; the first start gives
 * the app its key. Its private key exists only in `DATA_DIR/demo-connector.json` (mode 0600):
 * `{"app_id","installation_id","private_jwk","auth_url","base_url","connection_reference"}`, `private_jwk` an
 * ES256 JWK with `kid` and `alg`. A key that still matches the database (the app's active key with that kid and
 * those coordinates) is kept; otherwise a fresh key pair is made and added to the app. The installation is made or
 * resumed.
 *
 * The installation has a signing configuration waiting for Connect (decisions 8; made when it has none that is not
 * disconnected): every start presses Connect for it, as an operator would, and writes the fresh connection reference
 * (10 minutes, once) as `connection_reference`, for the example connector's set-up (`pnpm connector:setup`). So the
 * file is written on every start. The app keeps the new key and the newest one before it, and retires older
 * ones: two instances with their own DATA_DIR on one database each keep a working file, as with the demo
 * Application's two secrets. The work runs in one transaction under an advisory lock, so instances that start
 * together take turns.
 */
import type * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose"
import { sql } from "kysely"
import { join } from "node:path"
import { ConnectorAppService } from "../../identity/ConnectorAppService.js"
import { InstallationService } from "../../identity/InstallationService.js"
import { InstallationServiceLive } from "../../integrations/InstallationRemovalLive.js"
import { IntegrationOperatorService } from "../../integrations/IntegrationOperatorService.js"
import * as Sql from "../../platform/Sql.js"
import { readJsonFile, writePrivateFile } from "../PrivateFile.js"

/** The file's name inside DATA_DIR. */
export const DEMO_CONNECTOR_FILE = "demo-connector.json"

/** The demo connector app's id, name and setup URL (a placeholder address: the demo has no connector server). */
export const DEMO_CONNECTOR_APP_ID = "propline-demo-connector"
export const DEMO_CONNECTOR_NAME = "Propline demo connector"
export const DEMO_CONNECTOR_SETUP_URL = "https://demo-connector.propline.example/setup"

/** Every role an installation can hold (decisions 2). */
export const DEMO_CONNECTOR_ROLES = ["billing", "signing", "booking", "integrations"] as const

/** Key of the advisory lock that serializes the demo connector's set-up across instances ("dcon" in ASCII). */
export const DEMO_CONNECTOR_LOCK_KEY = 0x64636f6e

/** An ES256 private JWK as the file holds it. */
export interface DemoPrivateJwk {
  readonly kty: "EC"
  readonly crv: "P-256"
  readonly x: string
  readonly y: string
  readonly d: string
  readonly kid: string
  readonly alg: "ES256"
}

/** The file's content, in this key order. */
export interface DemoConnectorFile {
  readonly app_id: string
  readonly installation_id: string
  readonly private_jwk: DemoPrivateJwk
  /** {auth_url}: the identity host; the token endpoint is `{auth_url}/oauth/token`. */
  readonly auth_url: string
  /** {base_url}: the API host. */
  readonly base_url: string
  /**
   * A connection reference for the installation's signing configuration, issued at this start: redeem it within
   * 10 minutes, once (`POST /v1/integrations/connection-references/redeem`).
   */
  readonly connection_reference: string
}

/** The file's content and where it was written (`filePath` is not part of the file). */
export interface DemoConnector extends DemoConnectorFile {
  readonly filePath: string
}

const SYSTEM_ACTOR = { type: "system", id: "demo-connector" } as const

const isString = (value: unknown): value is string => typeof value === "string" && value !== ""

/** The file's content when it has exactly the documented shape, else undefined. */
const readConnectorFile = (path: string) =>
  Effect.map(readJsonFile(path), (parsed): Omit<DemoConnectorFile, "connection_reference"> | undefined => {
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
    const file = parsed as Record<string, unknown>
    const jwk = file["private_jwk"] as Record<string, unknown> | undefined
    // `connection_reference` is new on every start; a file written before it existed is read all the same.
    const keys = ["app_id", "installation_id", "private_jwk", "auth_url", "base_url"]
    const extra = Object.keys(file).filter((key) => !keys.includes(key))
    if (!keys.every((key) => key in file) || !extra.every((key) => key === "connection_reference")) return undefined
    if (![file["app_id"], file["installation_id"], file["auth_url"], file["base_url"]].every(isString)) return undefined
    if (typeof jwk !== "object" || jwk === null || jwk["kty"] !== "EC" || jwk["crv"] !== "P-256" || jwk["alg"] !== "ES256") {
      return undefined
    }
    if (![jwk["x"], jwk["y"], jwk["d"], jwk["kid"]].every(isString)) return undefined
    return parsed as Omit<DemoConnectorFile, "connection_reference">
  })

/** A fresh ES256 key pair; the kid is the public key's RFC 7638 thumbprint. */
const newKeyPair = Effect.promise(async () => {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true })
  const { crv, d, kty, x, y } = await exportJWK(privateKey)
  const publicJwk = { kty, crv, x, y } as JWK
  const kid = await calculateJwkThumbprint(publicJwk, "sha256")
  const privateJwk = { kty, crv, x, y, d, kid, alg: "ES256" } as DemoPrivateJwk
  return { privateJwk, publicJwk: { ...publicJwk, kid } }
})

/**
 * Makes sure the demo connector app is registered, installed and active in `organizationId` (granted
 * `rootContextId`), and that `dataDir/demo-connector.json` holds a private key of one of its active keys; returns
 * the file's content and path. Database and file-system failures are defects: start-up can't go on without what
 * it announces.
 */
export const ensureDemoConnector = (input: {
  readonly dataDir: string
  readonly authUrl: string
  readonly baseUrl: string
  readonly organizationId: string
  readonly rootContextId: string
}): Effect.Effect<DemoConnector, never, Db.Db> =>
  Sql.transaction(
    Effect.gen(function* () {
      const apps = yield* ConnectorAppService
      const installations = yield* InstallationService
      const configurations = yield* IntegrationOperatorService
      yield* Sql.query((db) => sql`select pg_advisory_xact_lock(${sql.lit(DEMO_CONNECTOR_LOCK_KEY)})`.execute(db))
      const filePath = join(input.dataDir, DEMO_CONNECTOR_FILE)
      const existing = yield* readConnectorFile(filePath)

      const activeKeys = yield* Sql.query((db) =>
        db
          .selectFrom("connectorAppKeys")
          .select(["kid", "publicJwk"])
          .where("appId", "=", DEMO_CONNECTOR_APP_ID)
          .where("status", "=", "active")
          .orderBy("addedAt")
          .orderBy("kid")
          .execute()
      )
      const fileKeyActive =
        existing !== undefined &&
        existing.app_id === DEMO_CONNECTOR_APP_ID &&
        activeKeys.some(
          (key) =>
            key.kid === existing.private_jwk.kid &&
            key.publicJwk["x"] === existing.private_jwk.x &&
            key.publicJwk["y"] === existing.private_jwk.y
        )

      let privateJwk: DemoPrivateJwk
      if (fileKeyActive) {
        privateJwk = existing.private_jwk
      } else {
        const pair = yield* newKeyPair
        privateJwk = pair.privateJwk
        const registered = yield* Sql.query((db) =>
          db.selectFrom("connectorApps").select("id").where("id", "=", DEMO_CONNECTOR_APP_ID).executeTakeFirst()
        )
        if (registered === undefined) {
          yield* apps.register(
            { appId: DEMO_CONNECTOR_APP_ID, name: DEMO_CONNECTOR_NAME, setupUrl: DEMO_CONNECTOR_SETUP_URL, keys: [pair.publicJwk] },
            SYSTEM_ACTOR
          )
        } else {
          yield* apps.addKey(DEMO_CONNECTOR_APP_ID, pair.publicJwk, SYSTEM_ACTOR)
          for (const key of activeKeys.slice(0, -1)) yield* apps.retireKey(DEMO_CONNECTOR_APP_ID, key.kid, SYSTEM_ACTOR)
        }
      }

      const live = yield* Sql.query((db) =>
        db
          .selectFrom("installations")
          .select(["id", "status"])
          .where("appId", "=", DEMO_CONNECTOR_APP_ID)
          .where("organizationId", "=", input.organizationId)
          .where("status", "<>", "removed")
          .executeTakeFirst()
      )
      let installationId: string
      if (live === undefined) {
        const installed = yield* installations.install(
          {
            appId: DEMO_CONNECTOR_APP_ID,
            organizationId: input.organizationId,
            roles: DEMO_CONNECTOR_ROLES,
            contextIds: [input.rootContextId]
          },
          SYSTEM_ACTOR
        )
        installationId = installed.id
      } else {
        if (live.status === "suspended") yield* installations.resume(live.id, SYSTEM_ACTOR)
        installationId = live.id
      }

      const operator = { organizationId: input.organizationId, actor: SYSTEM_ACTOR }
      const existingConfigurations = yield* configurations.ofInstallation(operator, installationId)
      const waiting =
        existingConfigurations.find((configuration) => configuration.kind === "signing" && configuration.status !== "disconnected") ??
        (yield* configurations.create(operator, {
          installationId,
          kind: "signing",
          operationalContextIds: [input.rootContextId]
        }))
      const connection = yield* configurations.connect(operator, waiting.id)

      const content: DemoConnectorFile = {
        app_id: DEMO_CONNECTOR_APP_ID,
        installation_id: installationId,
        private_jwk: privateJwk,
        auth_url: input.authUrl,
        base_url: input.baseUrl,
        connection_reference: connection.connectionReference
      }
      yield* writePrivateFile(input.dataDir, filePath, content)
      return { ...content, filePath }
    })
  ).pipe(
    Effect.orDie,
    Effect.provide([ConnectorAppService.Default, InstallationServiceLive, IntegrationOperatorService.Default]),
    Effect.withSpan("DemoConnector.ensureDemoConnector")
  )

/**
 * The lines the start command prints about the demo connector: its ids and the file that holds its private key and
 * this start's connection reference (never the reference itself: start-up output ends up in logs).
 */
export const demoConnectorBanner = (connector: DemoConnector): string =>
  [
    "  Demo connector (installation-token grant, spec 5.3)",
    `    app_id           ${connector.app_id}`,
    `    installation_id  ${connector.installation_id}`,
    `    private key and connection_reference (10 minutes, once) in ${connector.filePath} (mode 0600)`,
    "    Get an installation token and call the API:  pnpm connector:installation-example",
    "    Set its signing configuration up (redeem the reference, read it, report ready):  pnpm connector:setup",
    ""
  ].join("\n")
