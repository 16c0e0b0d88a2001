/**
 * The identity host for black-box tests: the real router and services over a fresh database of one kind, served by
 * Node on an ephemeral loopback port, with a clock the tests set (frozen, never slept on). Plus fixtures written
 * straight into the database (an organization, its root context, an Application with a secret) and small HTTP
 * helpers.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Clock, Context, Duration, Effect, type Exit, Layer, type Scope, Tracer } from "effect"
import { randomUUID } from "node:crypto"
import { createServer } from "node:http"
import { AppConfig, make as makeConfig } from "../../src/platform/AppConfig.js"
import { ApplicationService } from "../../src/identity/ApplicationService.js"
import { IdentityHttpApp, IdentityLive } from "../../src/identity/IdentityRouter.js"
import { TestKeyEncryption } from "../support/KeyEncryptionFixtures.js"

/** The frozen time of every test, mid-second and mid-minute, so boundaries are crossed only on purpose. */
export const FROZEN_AT = new Date("2030-01-01T12:00:30.000Z")

/** The API host's address: the token audience. */
export const API_URL = "https://api.propline.test"

/** A clock that stands still until a test moves it; sleeping is real (nothing in these tests sleeps). */
export class ControlledClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  private readonly real = Clock.make()
  private nowMs: number

  constructor(at: Date) {
    this.nowMs = at.getTime()
  }

  /** The current time as a Date. */
  get now(): Date {
    return new Date(this.nowMs)
  }
  set(at: Date): void {
    this.nowMs = at.getTime()
  }
  advance(duration: Duration.DurationInput): void {
    this.nowMs += Duration.toMillis(duration)
  }
  unsafeCurrentTimeMillis(): number {
    return this.nowMs
  }
  readonly currentTimeMillis = Effect.sync(() => this.nowMs)
  unsafeCurrentTimeNanos(): bigint {
    return BigInt(this.nowMs) * 1_000_000n
  }
  readonly currentTimeNanos = Effect.sync(() => this.unsafeCurrentTimeNanos())
  sleep(duration: Duration.Duration): Effect.Effect<void> {
    return this.real.sleep(duration)
  }
}

/** Where the test host listens and the clock its requests read. */
export class TestHost extends Context.Tag("test/identity/TestHost")<
  TestHost,
  { readonly url: string; readonly clock: ControlledClock }
>() {}

/** Where the test database lives, so a test can open a second connection pool to it (a second instance). */
export class TestDatabaseConfig extends Context.Tag("test/identity/TestDatabaseConfig")<
  TestDatabaseConfig,
  Db.DbConfig
>() {}

/** A fresh database of `kind`, dropped when the layer's scope closes. */
export const testDatabase = (kind: Db.DbConfig["_tag"]): Layer.Layer<Db.Db | TestDatabaseConfig> =>
  Layer.unwrapScoped(
    Effect.acquireRelease(
      Effect.promise(() => TestDatabase.create(kind)),
      (database) => Effect.promise(() => database.drop())
    ).pipe(
      Effect.map((database) =>
        Layer.merge(Db.layer(database.config), Layer.succeed(TestDatabaseConfig, database.config))
      )
    )
  )

/**
 * The database as another instance of the service sees it: a second pool on PostgreSQL; on in-memory PGlite,
 * which one process owns, the same connection.
 */
export const anotherInstanceDb: Effect.Effect<Db.DbService, never, Db.Db | TestDatabaseConfig | Scope.Scope> =
  Effect.gen(function* () {
    const config = yield* TestDatabaseConfig
    if (config._tag === "pglite") return yield* Db.Db
    const context = yield* Layer.build(Db.layer(config))
    return Context.get(context, Db.Db)
  })

/** The application/x-www-form-urlencoded client_credentials body of client_secret_post. */
export const clientSecretPostBody = (clientId: string, secret: string): string =>
  `grant_type=client_credentials&client_id=${encodeURIComponent(clientId)}&client_secret=${encodeURIComponent(secret)}`

/**
 * The identity host on 127.0.0.1 and an ephemeral port. `AppConfig.authUrl` is the server's own address (so the
 * discovery `issuer` matches the URL a client discovers from); `baseUrl` is {@link API_URL}.
 */
export const identityHost = (kind: Db.DbConfig["_tag"]) => {
  const clock = new ControlledClock(FROZEN_AT)
  const config = Layer.effect(
    AppConfig,
    Effect.map(HttpServer.HttpServer, (server) => {
      const port = server.address._tag === "TcpAddress" ? server.address.port : 0
      return makeConfig({ apiPort: 0, authPort: port, authUrl: `http://127.0.0.1:${port}`, baseUrl: API_URL })
    })
  )
  const services = IdentityLive.pipe(
    Layer.provideMerge(config),
    Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
    Layer.provideMerge(testDatabase(kind)),
    Layer.provideMerge(TestKeyEncryption)
  )
  const host = Layer.effect(
    TestHost,
    Effect.map(AppConfig, (c) => ({ url: c.authUrl, clock }))
  )
  return Layer.mergeAll(HttpServer.serve(IdentityHttpApp.pipe(Effect.withClock(clock))), host).pipe(
    Layer.provideMerge(services)
  )
}

/**
 * Runs `effect` with spans recorded and answers its exit with the text of every SQL statement it ran, in order
 * (`@propline/db/Db` names each statement's span `sql.query`, its text in `db.query.text`): how many round trips an
 * operation makes.
 */
export const statementsOf = <A, E, R>(
  effect: Effect.Effect<A, E, R>
): Effect.Effect<{ readonly exit: Exit.Exit<A, E>; readonly statements: ReadonlyArray<string> }, never, R> =>
  Effect.flatMap(Effect.tracer, (native) => {
    const statements: Array<string> = []
    const recorder = Tracer.make({
      span: (name, parent, context, links, startTime, kind, options) => {
        if (name === "sql.query") statements.push(String(options?.attributes?.["db.query.text"] ?? ""))
        return native.span(name, parent, context, links, startTime, kind, options)
      },
      context: native.context
    })
    return Effect.map(Effect.exit(effect.pipe(Effect.withTracer(recorder), Effect.withTracerEnabled(true))), (exit) => ({
      exit,
      statements
    }))
  })

/** An Application and its first secret, in a new organization with one (root) operational context. */
export interface ApplicationFixture {
  readonly organizationId: string
  readonly contextId: string
  readonly applicationId: string
  readonly clientId: string
  readonly secretId: string
  readonly secret: string
}

/** The actor of every fixture change. */
export const system = { type: "system", id: "identity-tests" } as const

/** Runs `f` with the operator's Application commands, provided here. */
export const withApplications = <A, E, R>(f: (applications: ApplicationService) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(ApplicationService, f).pipe(Effect.provide(ApplicationService.Default))

/** A new organization with its root operational context, written straight into the database. */
export const newOrganization = (now: Date = FROZEN_AT) =>
  Effect.gen(function* () {
    const organizationId = randomUUID()
    const contextId = randomUUID()
    yield* Db.query((db) =>
      db
        .insertInto("organizations")
        .values({ id: organizationId, name: "Ljusgården AB", country: "SE", createdAt: now, updatedAt: now })
        .execute()
    )
    yield* Db.query((db) =>
      db
        .insertInto("operationalContexts")
        .values({
          id: contextId,
          organizationId,
          parentId: null,
          kind: "organization",
          name: "Ljusgården AB",
          createdAt: now,
          updatedAt: now
        })
        .execute()
    )
    return { organizationId, contextId }
  }).pipe(Effect.orDie)

export const newApplication = (
  options: { readonly roles?: ReadonlyArray<"billing" | "signing" | "booking"> } = {}
): Effect.Effect<ApplicationFixture, never, Db.Db> =>
  Effect.gen(function* () {
    const { contextId, organizationId } = yield* newOrganization()
    const application = yield* withApplications((applications) =>
      applications.create(
        { organizationId, name: "ERP connector", roles: options.roles ?? ["billing", "signing"], contextIds: [contextId] },
        system
      )
    )
    const { secret, secretId } = yield* withApplications((applications) => applications.issueSecret(application.id, system))
    return {
      organizationId,
      contextId,
      applicationId: application.id,
      clientId: application.clientId,
      secretId,
      secret
    }
  }).pipe(Effect.orDie)

export const issueSecret = (applicationId: string) =>
  withApplications((applications) => applications.issueSecret(applicationId, system))

export const revokeSecret = (applicationId: string, secretId: string) =>
  withApplications((applications) => applications.revokeSecret(applicationId, secretId, system)).pipe(
    Effect.orDie,
    Effect.asVoid
  )

export const disableApplication = (applicationId: string) =>
  withApplications((applications) => applications.disable(applicationId, system)).pipe(Effect.orDie, Effect.asVoid)

/** application/x-www-form-urlencoded as RFC 6749 Appendix B and oauth4webapi write it (`_` is `%5F`). */
export const formUrlEncode = (text: string): string =>
  encodeURIComponent(text)
    .replace(/[-_.!~*'()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+")

/** `Authorization: Basic …` with both parts form-urlencoded first (RFC 6749 2.3.1). */
export const basic = (clientId: string, secret: string): string =>
  `Basic ${Buffer.from(`${formUrlEncode(clientId)}:${formUrlEncode(secret)}`, "utf8").toString("base64")}`

/** A response read in full: status, headers and the body as text. */
export interface Reply {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

export const json = (reply: Reply): Record<string, unknown> => JSON.parse(reply.text) as Record<string, unknown>

/** One request to the test host. */
export const request = (
  path: string,
  init: RequestInit = {}
): Effect.Effect<Reply, never, TestHost> =>
  Effect.flatMap(TestHost, (host) =>
    Effect.promise(async () => {
      const response = await fetch(`${host.url}${path}`, init)
      return { status: response.status, headers: response.headers, text: await response.text() }
    })
  )

/** `POST /oauth/token` with a form body (a string, sent as it is) and optional headers. */
export const postToken = (body: string, headers: Record<string, string> = {}) =>
  request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body
  })

/** The access token of a successful client_credentials request with HTTP Basic. */
export const tokenFor = (app: ApplicationFixture) =>
  Effect.map(postToken("grant_type=client_credentials", { authorization: basic(app.clientId, app.secret) }), (reply) => {
    if (reply.status !== 200) throw new Error(`token request failed: ${reply.status} ${reply.text}`)
    return json(reply)["access_token"] as string
  })
