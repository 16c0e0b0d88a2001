/**
 * Starts the product: opens the database (PostgreSQL when DATABASE_URL is set, PGlite in DATA_DIR otherwise) and
 * migrates it, seeds the demo organization into an empty database (DEMO_DATA, default true) and its signing demo
 * (once), writes DATA_DIR/demo-credentials.json (the demo Application) and DATA_DIR/demo-connector.json (the demo
 * connector's installation and private key), and serves the identity host (AUTH_PORT) and the API host (API_PORT).
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Clock, Effect, Layer } from "effect"
import { AppConfig } from "./AppConfig.js"
import { ensureDemoCredentials, printDemoBanner } from "./demo/DemoCredentials.js"
import { seedDemoData } from "./demo/DemoData.js"
import { DEMO_IDS } from "./demo/DemoIds.js"
import { demoConnectorBanner, ensureDemoConnector } from "./demo/identity/DemoConnector.js"
import { ensureDemoSigning } from "./demo/signing/DemoSigning.js"
import { DatabaseLive, HostsLive } from "./Hosts.js"
import { SigningAttemptRepository } from "./signing/SigningAttemptRepository.js"
import { SigningOperatorService } from "./signing/SigningOperatorService.js"
import { StorageLive } from "./storage/StorageConfig.js"

const demo = Effect.gen(function* () {
  const config = yield* AppConfig
  if (!config.demoData) return undefined
  const now = new Date(yield* Clock.currentTimeMillis)
  const seed = yield* seedDemoData(now).pipe(
    Effect.catchTag("DemoOrganizationMissing", (missing) =>
      Effect.as(
        Effect.logWarning(
          "DEMO_DATA is on but the database holds other organizations and no demo one; not seeding. Set DEMO_DATA=false.",
          missing
        ),
        undefined
      )
    )
  )
  if (seed === undefined) return undefined
  yield* ensureDemoSigning.pipe(
    Effect.provide(Layer.merge(SigningOperatorService.Default, SigningAttemptRepository.Default))
  )
  const credentials = yield* ensureDemoCredentials({
    dataDir: config.dataDir,
    authUrl: config.authUrl,
    baseUrl: config.baseUrl,
    seed
  })
  const connector = yield* ensureDemoConnector({
    dataDir: config.dataDir,
    authUrl: config.authUrl,
    baseUrl: config.baseUrl,
    organizationId: seed.organizationId,
    rootContextId: DEMO_IDS.rootContext
  })
  return { credentials, connector }
})

const program = Effect.gen(function* () {
  const seeded = yield* demo
  yield* Layer.build(HostsLive)
  if (seeded !== undefined) {
    yield* Effect.sync(() => console.log(`${printDemoBanner(seeded.credentials)}\n${demoConnectorBanner(seeded.connector)}`))
  }
  return yield* Effect.never
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(StorageLive),
  Effect.provide(DatabaseLive),
  Effect.provide(AppConfig.fromEnv),
  NodeRuntime.runMain
)
