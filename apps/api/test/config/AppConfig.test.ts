/** Start-up configuration read from the environment (AppConfig's table): defaults, derived addresses, HOSTS, the bind address. */
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { AppConfig, make } from "../../src/platform/AppConfig.js"

const read = (env: Record<string, string>) =>
  Effect.provide(
    AppConfig,
    AppConfig.fromEnv.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(env))))))
  )

describe("AppConfig.fromEnv", () => {
  it.effect("defaults: all three hosts, ports 3000, 4000 and 5000, addresses derived from them, PGlite in .data", () =>
    Effect.gen(function* () {
      const config = yield* read({})
      expect(config).toMatchObject({
        apiPort: 3000,
        authPort: 4000,
        adminPort: 5000,
        baseUrl: "http://localhost:3000",
        authUrl: "http://localhost:4000",
        adminUrl: "http://localhost:5000",
        runApi: true,
        runAuth: true,
        runAdmin: true,
        runWorker: true,
        databaseUrl: undefined,
        databaseDirectUrl: undefined,
        databasePoolSize: 10,
        databaseConnectionTimeoutMs: 10_000,
        dataDir: ".data",
        demoData: true,
        host: "127.0.0.1",
        trustedProxies: []
      })
    })
  )

  it.effect("reads DATABASE_DIRECT_URL, the migrations' connection past a pooler", () =>
    Effect.gen(function* () {
      const env = { DATABASE_URL: "postgres://pgbouncer:6432/propline", DATABASE_DIRECT_URL: "postgres://db:5432/propline" }
      expect(yield* read(env)).toMatchObject({
        databaseUrl: "postgres://pgbouncer:6432/propline",
        databaseDirectUrl: "postgres://db:5432/propline"
      })
      expect((yield* read({ DATABASE_POOL_SIZE: "4" })).databasePoolSize).toBe(4)
      for (const size of ["0", "1001", "four"]) expect(yield* Effect.exit(read({ DATABASE_POOL_SIZE: size }))).toMatchObject({ _tag: "Failure" })
    })
  )

  it.effect("reads DATABASE_CONNECTION_TIMEOUT_SECONDS (0.1 to 300) as the wait for a connection in ms", () =>
    Effect.gen(function* () {
      expect((yield* read({ DATABASE_CONNECTION_TIMEOUT_SECONDS: "2.5" })).databaseConnectionTimeoutMs).toBe(2500)
      for (const seconds of ["0", "0.05", "301", "soon"]) {
        expect(yield* Effect.exit(read({ DATABASE_CONNECTION_TIMEOUT_SECONDS: seconds }))).toMatchObject({ _tag: "Failure" })
      }
    })
  )

  it.effect("binds the loopback interface unless HOST says otherwise", () =>
    Effect.gen(function* () {
      expect((yield* read({})).host).toBe("127.0.0.1")
      expect((yield* read({ HOST: "0.0.0.0" })).host).toBe("0.0.0.0")
      expect(make({ apiPort: 3000, authPort: 4000 }).host).toBe("127.0.0.1")
    })
  )

  it.effect("runs one host alone with HOSTS", () =>
    Effect.gen(function* () {
      expect(yield* read({ HOSTS: "auth" })).toMatchObject({ runApi: false, runAuth: true, runAdmin: false })
      expect(yield* read({ HOSTS: "api" })).toMatchObject({ runApi: true, runAuth: false, runAdmin: false })
      expect(yield* read({ HOSTS: "api,auth" })).toMatchObject({ runApi: true, runAuth: true, runAdmin: false })
      expect(yield* read({ HOSTS: "admin" })).toMatchObject({ runApi: false, runAuth: false, runAdmin: true, runWorker: false })
      expect(yield* read({ HOSTS: "worker" })).toMatchObject({ runApi: false, runAuth: false, runAdmin: false, runWorker: true })
    })
  )

  it.effect("takes public addresses from configuration, without a trailing slash", () =>
    Effect.gen(function* () {
      const config = yield* read({
        API_PORT: "8080",
        BASE_URL: "https://api.example.test/",
        AUTH_URL: "https://id.example.test",
        ADMIN_PORT: "8081",
        ADMIN_URL: "https://admin.example.test/"
      })
      expect(config).toMatchObject({
        apiPort: 8080,
        baseUrl: "https://api.example.test",
        authUrl: "https://id.example.test",
        adminPort: 8081,
        adminUrl: "https://admin.example.test"
      })
      expect((yield* read({ ADMIN_PORT: "5100" })).adminUrl).toBe("http://localhost:5100")
    })
  )

  it.effect("reads TRUSTED_PROXIES as a comma-separated list of addresses and CIDR ranges", () =>
    Effect.gen(function* () {
      expect((yield* read({ TRUSTED_PROXIES: "10.0.0.0/8, 192.0.2.7,fd00::/8" })).trustedProxies).toEqual(["10.0.0.0/8", "192.0.2.7", "fd00::/8"])
      expect((yield* read({ TRUSTED_PROXIES: "" })).trustedProxies).toEqual([])
    })
  )

  it.effect("refuses to start with a TRUSTED_PROXIES entry that is not an address or a range", () =>
    Effect.gen(function* () {
      const exit = yield* Effect.exit(read({ TRUSTED_PROXIES: "10.0.0.0/8,proxy.internal" }))
      expect(exit._tag).toBe("Failure")
    })
  )
})
