/**
 * The three listeners: the identity host on AUTH_PORT, the API host on API_PORT and the admin console on
 * ADMIN_PORT, and the worker (no listener: the events publisher, retention and webhook deliveries, `WorkerHost.ts`).
 * All run in one process by default; `HOSTS` names the ones to run (`HOSTS=api`, `HOSTS=auth,admin`, `HOSTS=worker`).
 * Each server gets its own Node listener, so no two share a router. The database is chosen here: PostgreSQL when DATABASE_URL is set, PGlite in DATA_DIR otherwise.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Db from "@propline/db/Db"
import { Effect, Layer } from "effect"
import { createServer } from "node:http"
import * as path from "node:path"
import { AppConfig, type AppConfigShape } from "./AppConfig.js"
import { ApiLive, apiHostMiddleware, DocsLive, FileRoutesLive } from "./ApiHost.js"
import { IdentityHttpApp, IdentityLive } from "./identity/IdentityRouter.js"
import { WorkerHostLive } from "./WorkerHost.js"

/** The database layer for a configuration. */
export const databaseConfig = (config: AppConfigShape): Db.DbConfig =>
  config.databaseUrl !== undefined
    ? { _tag: "postgres", connectionString: config.databaseUrl }
    : { _tag: "pglite", dataDir: path.resolve(config.dataDir, "pglite") }

export const DatabaseLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) => Db.layer(databaseConfig(config))))

const listen = (config: AppConfigShape, port: number) => NodeHttpServer.layer(createServer, { port, host: config.host })

/** The API host on `config.apiPort`. */
export const ApiHostLive = (config: AppConfigShape) =>
  HttpApiBuilder.serve(apiHostMiddleware).pipe(
    Layer.provide(DocsLive),
    Layer.provide(FileRoutesLive),
    Layer.provide(ApiLive),
    HttpServer.withLogAddress,
    Layer.provide(listen(config, config.apiPort))
  )

/** The identity host on `config.authPort`. */
export const IdentityHostLive = (config: AppConfigShape) =>
  HttpServer.serve(IdentityHttpApp).pipe(HttpServer.withLogAddress, Layer.provide(listen(config, config.authPort)))

/** The hosts the configuration asks for, with the services they share (signing keys, token verification). */
export const HostsLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    Layer.mergeAll(
      config.runApi ? ApiHostLive(config) : Layer.empty,
      config.runAuth ? IdentityHostLive(config) : Layer.empty,
      config.runWorker ? WorkerHostLive : Layer.empty,
      config.runAdmin
        ? // The console's modules (its contract, argon2, the static assets) load only in a process that serves it.
          Layer.unwrapEffect(
            Effect.promise(() => import("./admin/AdminHost.js")).pipe(Effect.map((admin) => admin.AdminHostLive(config)))
          )
        : Layer.empty
    )
  )
).pipe(Layer.provide(IdentityLive))
