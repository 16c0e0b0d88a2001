/**
 * The probes every host answers before its own routes (`@propline/contract/Health`): `GET /healthz` (alive) and
 * `GET /readyz` (the {@link Readiness} checks, or `draining` once a shutdown began). Outside `/v1`, outside
 * authentication and outside the access log (a load balancer asks every few seconds per instance). HEAD is answered
 * as GET; any other method on these paths falls through to the host (its 404 or 405).
 *
 * The checks are a port: the kernel runs the database and migration checks itself, and the hosts add the ones only
 * a capability can answer (identity's signing key), see `Hosts.ts`.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Readiness as ReadinessBody } from "@propline/contract/Health"
import * as Db from "@propline/db/Db"
import { pendingMigrations } from "@propline/db/Migrations"
import { Context, Duration, Effect, Layer, Ref } from "effect"
import { type Kysely, sql } from "kysely"

/** How long one check may take before it counts as failed. */
export const CHECK_TIMEOUT = Duration.seconds(2)

/** One readiness check: succeeds when ready, fails with a short reason (no secret, no connection string). */
export interface ReadinessCheck {
  readonly name: string
  readonly check: Effect.Effect<void, string>
}

export interface ReadinessShape {
  /** True from the moment a shutdown began: `/readyz` answers 503 `draining` from then on. */
  readonly draining: Ref.Ref<boolean>
  /** Runs every check (concurrently, each within {@link CHECK_TIMEOUT}) unless draining. */
  readonly report: Effect.Effect<ReadinessBody>
}

/** This process's readiness: its checks and its draining flag (one per process, shared by its hosts). */
export class Readiness extends Context.Tag("@propline/api/platform/Readiness")<Readiness, ReadinessShape>() {
  /** A readiness made of `checks`, not draining. */
  static readonly make = (checks: ReadonlyArray<ReadinessCheck>): Effect.Effect<ReadinessShape> =>
    Effect.map(Ref.make(false), (draining) => ({
      draining,
      report: Effect.flatMap(Ref.get(draining), (isDraining) =>
        isDraining
          ? Effect.succeed<ReadinessBody>({ status: "draining" })
          : Effect.map(
              Effect.forEach(
                checks,
                ({ check, name }) =>
                  check.pipe(
                    Effect.timeoutFail({ duration: CHECK_TIMEOUT, onTimeout: () => "timed out" }),
                    Effect.match({ onFailure: (reason) => [name, reason] as const, onSuccess: () => [name, "ok"] as const })
                  ),
                { concurrency: "unbounded" }
              ),
              (outcomes): ReadinessBody => ({
                status: outcomes.every(([, outcome]) => outcome === "ok") ? "ready" : "not_ready",
                checks: Object.fromEntries(outcomes)
              })
            )
      )
    }))

  /** A layer of {@link make}; `checks` may need what the hosts already have (Db, capabilities' services). */
  static readonly layer = <R>(checks: Effect.Effect<ReadonlyArray<ReadinessCheck>, never, R>) =>
    Layer.effect(Readiness, Effect.flatMap(checks, Readiness.make))
}

/** The database answers one statement. */
export const databaseCheck: Effect.Effect<ReadinessCheck, never, Db.Db> = Effect.map(Db.Db, (db) => ({
  name: "database",
  check: Effect.tryPromise({ try: () => sql`select 1`.execute(db.kysely), catch: () => "unreachable" }).pipe(
    Effect.asVoid
  )
}))

/** Every migration this build knows has run (an older build's database, or a failed migration, is not ready). */
export const migrationsCheck: Effect.Effect<ReadinessCheck, never, Db.Db> = Effect.map(Db.Db, (db) => ({
  name: "migrations",
  check: Effect.tryPromise({
    try: () => pendingMigrations(db.kysely.withoutPlugins() as Kysely<unknown>),
    catch: () => "unreadable"
  }).pipe(Effect.flatMap((pending) => (pending.length === 0 ? Effect.void : Effect.fail(`${pending.length} pending`))))
}))

const probe = (body: unknown, status: number) =>
  HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store" } })

const LIVE = probe({ status: "ok" }, 200)

const pathOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  if (request.method !== "GET" && request.method !== "HEAD") return undefined
  const query = request.url.indexOf("?")
  return query === -1 ? request.url : request.url.slice(0, query)
}

/** Whether a request is one of the probes (no span is made for them). */
export const isProbe = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const path = pathOf(request)
  return path === "/healthz" || path === "/readyz"
}

/** Server middleware: answers `/healthz` and `/readyz` (GET, HEAD), passes everything else to `app`. */
export const healthRoutes = <E, R>(app: HttpApp.Default<E, R>): HttpApp.Default<E, R | Readiness> =>
  Effect.flatMap(HttpServerRequest.HttpServerRequest, (request): HttpApp.Default<E, R | Readiness> => {
    const path = pathOf(request)
    if (path === "/healthz") return Effect.succeed(LIVE)
    if (path === "/readyz") {
      return Effect.flatMap(Readiness, (readiness) =>
        Effect.map(readiness.report, (body) => probe(body, body.status === "ready" ? 200 : 503))
      )
    }
    return app
  })
