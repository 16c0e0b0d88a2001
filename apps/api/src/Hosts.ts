/**
 * The three listeners: the identity host on AUTH_PORT, the API host on API_PORT and the admin console on
 * ADMIN_PORT, and the worker (no listener: the events publisher, retention and webhook deliveries, `WorkerHost.ts`).
 * All run in one process by default; `HOSTS` names the ones to run (`HOSTS=api`, `HOSTS=auth,admin`, `HOSTS=worker`).
 * Each server gets its own Node listener, so no two share a router. The database is chosen here: PostgreSQL when DATABASE_URL is set, PGlite in DATA_DIR otherwise.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Etag from "@effect/platform/Etag"
import * as FileSystem from "@effect/platform/FileSystem"
import * as HttpPlatform from "@effect/platform/HttpPlatform"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Path from "@effect/platform/Path"
import * as Db from "@propline/db/Db"
import { Effect, Layer } from "effect"
import * as path from "node:path"
import { AppConfig, type AppConfigShape } from "./platform/AppConfig.js"
import { ApiLive, apiHostMiddleware, DocsLive, FileRoutesLive } from "./ApiHost.js"
import { IdentityHttpApp, IdentityLive } from "./identity/IdentityRouter.js"
import { SigningKeys } from "./identity/SigningKeys.js"
import { ClientCredentialsGrant } from "./identity/ClientCredentialsGrant.js"
import { InstallationGrant } from "./identity/InstallationGrant.js"
import { serveOnly } from "./platform/ServeOnly.js"
import { databaseCheck, healthRoutes, migrationsCheck, Readiness } from "./platform/Health.js"
import { Shutdown } from "./platform/Shutdown.js"

/** The database layer for a configuration. */
export const databaseConfig = (config: AppConfigShape): Db.DbConfig =>
  config.databaseUrl !== undefined
    ? {
        _tag: "postgres",
        connectionString: config.databaseUrl,
        maxConnections: config.databasePoolSize,
        connectionTimeoutMillis: config.databaseConnectionTimeoutMs,
        ...(config.databaseDirectUrl === undefined ? {} : { directConnectionString: config.databaseDirectUrl })
      }
    : { _tag: "pglite", dataDir: path.resolve(config.dataDir, "pglite") }

export const DatabaseLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => Db.layer(databaseConfig(config))))

const listen = (config: AppConfigShape, port: number) => Shutdown.listener(port, config.host)

/**
 * The API host on `config.apiPort`: `HttpApiBuilder.serve`'s server, its requests run with only the services the
 * served app reads at request time (`platform/ServeOnly`; the contract's handler groups carry their own services,
 * merged into each request's Context by the platform), not every service of the process.
 */
export const ApiHostLive = (config: AppConfigShape) =>
  Layer.unwrapEffect(
    Effect.map(HttpApiBuilder.httpApp, (app) => serveOnly(
      app,
      // The platform's services an HttpApi app may use (a file answer, a multipart body) and the readiness probe's.
      [HttpPlatform.HttpPlatform, Etag.Generator, FileSystem.FileSystem, Path.Path, Readiness],
      (app) => healthRoutes(apiHostMiddleware(app))
    )
  )
  ).pipe(
    Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]),
    Layer.provide(DocsLive),
    Layer.provide(FileRoutesLive),
    Layer.provide(ApiLive),
    HttpServer.withLogAddress,
    Layer.provide(listen(config, config.apiPort))
  )

/**
 * The identity host on `config.authPort`; its requests run with only the services its routes and probes read
 * (`platform/ServeOnly`), not every service of the process.
 */
export const IdentityHostLive = (config: AppConfigShape) =>
  serveOnly(healthRoutes(IdentityHttpApp), [
    AppConfig,
    SigningKeys,
    ClientCredentialsGrant,
    InstallationGrant,
    Db.Db,
    Readiness
  ]).pipe(HttpServer.withLogAddress, Layer.provide(listen(config, config.authPort)))

/**
 * `/readyz`'s checks: the database answers, its schema is current, and the active signing key loads (the identity
 * host signs with it, the API host verifies with the keys read beside it).
 */
export const ReadinessLive = Readiness.layer(
  Effect.gen(function* () {
    const keys = yield* SigningKeys
    const signingKey = {
      name: "signingKey",
      check: keys.current.pipe(Effect.asVoid, Effect.catchAllCause(() => Effect.fail("not loaded")))
    }
    return [yield* databaseCheck, yield* migrationsCheck, signingKey]
  })
)

/**
 * The hosts the configuration asks for, with the services they share (signing keys, token verification), the
 * process's {@link Readiness} and its {@link Shutdown} (whose `drain` `main.ts` runs first on SIGTERM; a worker host
 * registers its in-flight deliveries with `Shutdown.onDrain`).
 */
export const HostsLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.mergeAll(
      config.runApi ? ApiHostLive(config) : Layer.empty,
      config.runAuth ? IdentityHostLive(config) : Layer.empty,
      config.runWorker
        ? // The worker's modules (pg-boss and its cron and date libraries, undici, the webhook deliveries: ~3.5 MiB of
          // source and ~2 MiB of heap) load only in a process that runs it.
          Layer.unwrapEffect(Effect.promise(() => import("./WorkerHost.js")).pipe(Effect.map((worker) => worker.WorkerHostLive)))
        : Layer.empty,
      config.runAdmin
        ? // The console's modules (its contract, argon2, the static assets) load only in a process that serves it.
          Layer.unwrapEffect(
            Effect.promise(() => import("./admin/AdminHost.js")).pipe(Effect.map((admin) => admin.AdminHostLive(config)))
          )
        : Layer.empty
    )
  )
).pipe(Layer.provideMerge(Shutdown.fromEnv), Layer.provideMerge(ReadinessLive), Layer.provide(IdentityLive))
