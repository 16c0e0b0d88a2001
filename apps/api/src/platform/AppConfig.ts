/**
 * Start-up configuration, read from the environment once. Public addresses come from here, never from a
 * request's Host header: the token issuer (`iss`) is the identity host's address and the token audience (`aud`)
 * the API host's.
 *
 * | variable      | default                           | meaning                                              |
 * | ------------- | --------------------------------- | ---------------------------------------------------- |
 * | API_PORT      | 3000                              | API host listener                                    |
 * | AUTH_PORT     | 4000                              | identity host listener                               |
 * | BASE_URL      | http://localhost:$API_PORT        | public address of the API host ({base_url})          |
 * | AUTH_URL      | http://localhost:$AUTH_PORT       | public address of the identity host ({auth_url})     |
 * | ADMIN_PORT    | 5000                              | admin console host listener                          |
 * | ADMIN_URL     | http://localhost:$ADMIN_PORT      | public address of the admin console (cookies, Origin)|
 * | HOSTS         | api,auth,admin,worker             | which hosts this process runs (worker: no listener)  |
 * | DATABASE_URL  | (unset: embedded PGlite)          | PostgreSQL connection string                         |
 * | DATABASE_DIRECT_URL | (unset: DATABASE_URL)       | PostgreSQL itself for the migrations, when DATABASE_URL is a pooler (PgBouncer) |
 * | DATABASE_POOL_SIZE | 10                         | PostgreSQL connections this process opens at most     |
 * | DATABASE_CONNECTION_TIMEOUT_SECONDS | 10        | longest wait for a connection; past it the request is 503 |
 * | DATA_DIR      | .data                             | PGlite files and demo-credentials.json               |
 * | DEMO_DATA     | true                              | seed the demo organization into an empty database    |
 * | HOST          | 127.0.0.1                         | the interface every listener binds (loopback only)   |
 * | TRUSTED_PROXIES | (none)                          | proxies whose X-Forwarded-For names the client       |
 */
import { Config, ConfigError, Context, Effect, Either, Layer, Option } from "effect"
import { DEFAULT_CONNECTION_TIMEOUT_MS } from "@propline/db/Db"
import { trustedProxies } from "./ClientAddress.js"

/**
 * The interface the listeners bind unless `HOST` says otherwise: the loopback interface, so a development machine's
 * demo (whose data directory holds its credentials) is not reachable from the network by default. A deployment
 * behind a proxy on another machine, or in a container, sets `HOST=0.0.0.0` (or `::`) on purpose.
 */
export const DEFAULT_HOST = "127.0.0.1"

/**
 * The hosts one process can run; all of them by default. `worker` listens on no port: it publishes the outbox
 * (`events/EventPublisher.ts`), purges old events and runs the webhook deliveries (`WorkerHost.ts`).
 */
export const HOST_NAMES = ["api", "auth", "admin", "worker"] as const
export type HostName = (typeof HOST_NAMES)[number]

export interface AppConfigShape {
  readonly apiPort: number
  readonly authPort: number
  /** {base_url}: public address of the API host, no trailing slash; the access-token audience. */
  readonly baseUrl: string
  /** {auth_url}: public address of the identity host, no trailing slash; the access-token issuer. */
  readonly authUrl: string
  readonly adminPort: number
  /** Public address of the admin console, no trailing slash: its cookies are `Secure` when it is https. */
  readonly adminUrl: string
  readonly runApi: boolean
  readonly runAuth: boolean
  readonly runAdmin: boolean
  /** Run the worker role (`WorkerHost.ts`): any number of processes may run it against one database. */
  readonly runWorker: boolean
  readonly databaseUrl: string | undefined
  /**
   * PostgreSQL itself when `databaseUrl` names a pooler in transaction mode (PgBouncer): the migrations at start-up
   * run through it. Unset: everything goes through `databaseUrl`.
   */
  readonly databaseDirectUrl: string | undefined
  /**
   * The most PostgreSQL connections the process's pool opens (1 to 1000, default 10): every instance's pool together
   * must stay below the server's `max_connections`, or behind a pooler (docs/operations.md, "Many instances").
   */
  readonly databasePoolSize: number
  /**
   * How long a statement waits for a PostgreSQL connection, in ms (a pooled one to come free, or a new one to be made;
   * 0.1 to 300 s, default 10 s): past it the request is answered 503 with `Retry-After` (`platform/Unavailable`).
   */
  readonly databaseConnectionTimeoutMs: number
  readonly dataDir: string
  readonly demoData: boolean
  /** The interface every listener binds. */
  readonly host: string
  /**
   * IP addresses and CIDR ranges of the reverse proxies in front of the admin host, whose `X-Forwarded-For` names the
   * client (`platform/ClientAddress`); none by default: the socket's remote address is the client.
   */
  readonly trustedProxies: ReadonlyArray<string>
}

export class AppConfig extends Context.Tag("@propline/api/AppConfig")<AppConfig, AppConfigShape>() {
  /** Reads the environment (see the table above). */
  static readonly fromEnv: Layer.Layer<AppConfig, never> = Layer.effect(
    AppConfig,
    Effect.gen(function* () {
      const apiPort = yield* Config.port("API_PORT").pipe(Config.withDefault(3000))
      const authPort = yield* Config.port("AUTH_PORT").pipe(Config.withDefault(4000))
      const baseUrl = yield* Config.url("BASE_URL").pipe(Config.option)
      const authUrl = yield* Config.url("AUTH_URL").pipe(Config.option)
      const adminPort = yield* Config.port("ADMIN_PORT").pipe(Config.withDefault(5000))
      const adminUrl = yield* Config.url("ADMIN_URL").pipe(Config.option)
      const hosts = yield* Config.array(Config.literal(...HOST_NAMES)(), "HOSTS").pipe(Config.withDefault(HOST_NAMES))
      const databaseUrl = yield* Config.string("DATABASE_URL").pipe(Config.option)
      const databaseDirectUrl = yield* Config.string("DATABASE_DIRECT_URL").pipe(Config.option)
      const databasePoolSize = yield* Config.integer("DATABASE_POOL_SIZE").pipe(
        Config.withDefault(10),
        Config.validate({ message: "Expected an integer from 1 to 1000", validation: (size) => size >= 1 && size <= 1000 })
      )
      const databaseConnectionTimeoutSeconds = yield* Config.number("DATABASE_CONNECTION_TIMEOUT_SECONDS").pipe(
        Config.withDefault(DEFAULT_CONNECTION_TIMEOUT_MS / 1000),
        Config.validate({ message: "Expected a number of seconds from 0.1 to 300", validation: (s) => s >= 0.1 && s <= 300 })
      )
      const dataDir = yield* Config.string("DATA_DIR").pipe(Config.withDefault(".data"))
      const demoData = yield* Config.boolean("DEMO_DATA").pipe(Config.withDefault(true))
      const host = yield* Config.string("HOST").pipe(Config.withDefault(DEFAULT_HOST))
      const proxies = yield* Config.array(Config.string(), "TRUSTED_PROXIES").pipe(
        Config.withDefault([]),
        Config.map((entries) => entries.map((entry) => entry.trim()).filter((entry) => entry !== "")),
        Config.mapOrFail((entries) =>
          Either.mapLeft(trustedProxies(entries), (reason) => ConfigError.InvalidData(["TRUSTED_PROXIES"], reason)).pipe(
            Either.map((trusted) => trusted.entries)
          )
        )
      )
      return make({
        apiPort,
        authPort,
        baseUrl: Option.getOrUndefined(baseUrl)?.toString(),
        authUrl: Option.getOrUndefined(authUrl)?.toString(),
        adminPort,
        adminUrl: Option.getOrUndefined(adminUrl)?.toString(),
        hosts,
        databaseUrl: Option.getOrUndefined(databaseUrl),
        databaseDirectUrl: Option.getOrUndefined(databaseDirectUrl),
        databasePoolSize,
        databaseConnectionTimeoutMs: Math.round(databaseConnectionTimeoutSeconds * 1000),
        dataDir,
        demoData,
        host,
        trustedProxies: proxies
      })
    }).pipe(Effect.orDie)
  )

  /** A fixed configuration (tests). */
  static readonly layer = (config: AppConfigShape): Layer.Layer<AppConfig> => Layer.succeed(AppConfig, config)
}

const trimSlash = (url: string): string => url.replace(/\/+$/, "")

/** Builds the configuration, deriving the public addresses from the ports when not given. */
export const make = (input: {
  readonly apiPort: number
  readonly authPort: number
  readonly baseUrl?: string | undefined
  readonly authUrl?: string | undefined
  readonly adminPort?: number
  readonly adminUrl?: string | undefined
  readonly hosts?: ReadonlyArray<HostName>
  readonly databaseUrl?: string | undefined
  readonly databaseDirectUrl?: string | undefined
  readonly databasePoolSize?: number
  readonly databaseConnectionTimeoutMs?: number
  readonly dataDir?: string
  readonly demoData?: boolean
  readonly host?: string
  readonly trustedProxies?: ReadonlyArray<string>
}): AppConfigShape => {
  const hosts = input.hosts ?? HOST_NAMES
  const adminPort = input.adminPort ?? 5000
  return {
    apiPort: input.apiPort,
    authPort: input.authPort,
    baseUrl: trimSlash(input.baseUrl ?? `http://localhost:${input.apiPort}`),
    authUrl: trimSlash(input.authUrl ?? `http://localhost:${input.authPort}`),
    adminPort,
    adminUrl: trimSlash(input.adminUrl ?? `http://localhost:${adminPort}`),
    runApi: hosts.includes("api"),
    runAuth: hosts.includes("auth"),
    runAdmin: hosts.includes("admin"),
    runWorker: hosts.includes("worker"),
    databaseUrl: input.databaseUrl === "" ? undefined : input.databaseUrl,
    databaseDirectUrl: input.databaseDirectUrl === "" ? undefined : input.databaseDirectUrl,
    databasePoolSize: input.databasePoolSize ?? 10,
    databaseConnectionTimeoutMs: input.databaseConnectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    dataDir: input.dataDir ?? ".data",
    demoData: input.demoData ?? true,
    host: input.host ?? DEFAULT_HOST,
    trustedProxies: input.trustedProxies ?? []
  }
}
