/**
 * Starts the product: opens the database (PostgreSQL when DATABASE_URL is set, PGlite in DATA_DIR otherwise) and
 * migrates it, seeds the demo organization into an empty database (DEMO_DATA, default true) and its signing demo
 * (once), writes DATA_DIR/demo-credentials.json (the demo Application), DATA_DIR/demo-connector.json (the demo
 * connector's installation and private key) and DATA_DIR/demo-operator.json (the demo operator's sign-in), and
 * serves the identity host (AUTH_PORT), the API host (API_PORT) and the admin console (ADMIN_PORT), as HOSTS says.
 * SIGTERM or SIGINT drains it (`platform/Shutdown`) and exits 0.
 *
 * The token-signing and URL-signing keys are sealed at rest under the key-encryption keys of KEY_ENCRYPTION_KEYS
 * (on PGlite without it, DATA_DIR/key-encryption-keys, made on first start): a missing key list with DATABASE_URL,
 * a malformed one, or one that does not open the stored keys stops the start with a sentence on stderr and exit
 * code 1 (`platform/KeyEncryption`).
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Clock, Context, Effect, Layer, Option } from "effect"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { exitOnKeyEncryptionError, KeyEncryption } from "./platform/KeyEncryption.js"
import * as Logging from "./platform/Logging.js"
import { isProbe } from "./platform/Health.js"
import { Shutdown } from "./platform/Shutdown.js"
import * as Telemetry from "./platform/Telemetry.js"
import { AppConfig, type AppConfigShape } from "./platform/AppConfig.js"
import { DEMO_CREDENTIALS_FILE, ensureDemoCredentials, printDemoBanner } from "./demo/DemoCredentials.js"
import { seedDemoData } from "./demo/DemoData.js"
import { DEMO_IDS } from "./demo/DemoIds.js"
import { DEMO_CONNECTOR_FILE, demoConnectorBanner, ensureDemoConnector } from "./demo/identity/DemoConnector.js"
import { ensureDemoSigning } from "./demo/signing/DemoSigning.js"
import { ensureDemoOperator, printOperatorBanner } from "./demo/DemoOperator.js"
import { DatabaseLive, HostsLive } from "./Hosts.js"
import { SigningAttemptRepository } from "./signing/SigningAttemptRepository.js"
import { SigningOperatorService } from "./signing/SigningOperatorService.js"
import { StorageLive } from "./storage/StorageConfig.js"
import { ContractRepository } from "./tenancy/ContractRepository.js"

const demoFilesIn = (dataDir: string): boolean =>
  [DEMO_CREDENTIALS_FILE, DEMO_CONNECTOR_FILE].every((file) => existsSync(join(dataDir, file)))

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
  // Another start seeded this database and wrote the demo files into its own DATA_DIR: writing them here too would
  // issue the demo Application a new secret and the connector a new key, and the other instance's files would stop
  // working (issue 23, item 7). Only the seeding start, or one whose DATA_DIR already holds them, writes them.
  if (!seed.seeded && !demoFilesIn(config.dataDir)) {
    yield* Effect.logInfo(
      "demo data already seeded by another start: its DATA_DIR holds the demo files; not writing new ones here"
    )
    return undefined
  }
  yield* ensureDemoSigning.pipe(
    Effect.provide(Layer.mergeAll(SigningOperatorService.Default, SigningAttemptRepository.Default, ContractRepository.Default))
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
  const operator = yield* ensureDemoOperator({
    dataDir: config.dataDir,
    adminUrl: config.adminUrl,
    organizationId: seed.organizationId,
    now
  })
  return { credentials, connector, operator }
})

/**
 * The line every start prints once the hosts listen: the Node.js version the process runs on (the README's
 * commands bring the version pinned in the root package.json) and each host's public address.
 */
const startLine = (config: AppConfigShape): string => {
  const hosts = [
    config.runAuth ? `auth ${config.authUrl}` : undefined,
    config.runApi ? `api ${config.baseUrl}` : undefined,
    config.runAdmin ? `admin ${config.adminUrl}` : undefined,
    config.runWorker ? "worker" : undefined
  ].filter((host) => host !== undefined)
  return `Propline listening on Node.js ${process.version}: ${hosts.join(", ")}`
}

const program = Effect.gen(function* () {
  const config = yield* AppConfig
  const seeded = yield* demo
  const telemetry = yield* Telemetry.settingsFromEnv
  // The HTTP platform's tracer middleware still parses each request's URL and redacts its headers into span
  // attributes with the tracer off; it is skipped for every request while spans are off (platform/Telemetry), and
  // for the probes when they are on.
  const hosts = yield* Layer.build(
    HttpMiddleware.withTracerDisabledWhen(HostsLive, Option.isSome(telemetry) ? isProbe : () => true)
  )
  if (Option.isSome(telemetry)) yield* Telemetry.samplePool(telemetry.value.metricExportMillis)
  // Added after the hosts' own finalizers, so it runs first on SIGTERM: /readyz fails, the listeners stop, the
  // requests in flight (and a worker's drain steps) finish within SHUTDOWN_GRACE_SECONDS; then the hosts and the
  // database pool close and the process exits 0 (platform/Shutdown).
  yield* Effect.addFinalizer(() => Context.get(hosts, Shutdown).drain)
  yield* Effect.logInfo(startLine(config))
  if (seeded !== undefined) {
    const banner = [
      printDemoBanner(seeded.credentials),
      demoConnectorBanner(seeded.connector),
      config.runAdmin ? printOperatorBanner(seeded.operator) : ""
    ].join("\n")
    // After the lines logged so far (the logger holds them until the end of the turn: platform/Logging).
    yield* Effect.sync(() => {
      Logging.stdout.flush()
      console.log(banner)
    })
  }
  return yield* Effect.never
}).pipe(Effect.scoped)

program.pipe(
  Effect.provide(StorageLive),
  Effect.provide(DatabaseLive),
  Effect.provide(KeyEncryption.fromEnv),
  Effect.provide(AppConfig.fromEnv),
  exitOnKeyEncryptionError("Not starting"),
  // Without OTEL_EXPORTER_OTLP_ENDPOINT no span is exported anywhere, so the process does not record them: the HTTP
  // platform's span per request and the services' spans cost ~0.7 ms CPU per token request (see
  // docs/performance.md). With it, spans and metrics go to the collector over OTLP/HTTP (platform/Telemetry).
  Effect.provide(Telemetry.fromEnv),
  // JSON lines or pretty ones, LOG_LEVEL (platform/Logging); outermost, so every fiber of the process uses it.
  Effect.provide(Logging.fromEnv),
  // Our logger replaces the pretty one runMain would install.
  NodeRuntime.runMain({ disablePrettyLogger: true })
)
