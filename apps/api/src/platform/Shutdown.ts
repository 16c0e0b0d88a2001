/**
 * Graceful shutdown (issue 23, item 4). On SIGTERM (or SIGINT) the process's main fiber is interrupted and its
 * scope closes; the first finalizer to run is {@link ShutdownShape.drain}, added by `main.ts` once the hosts listen:
 *
 * 1. `/readyz` answers 503 `draining` (`platform/Health`): load balancers take the instance out;
 * 2. every listener stops accepting connections (`server.close()`; idle keep-alive connections are closed);
 * 3. requests in flight finish (a request that arrives on a connection still open is served too), and every drain
 *    step registered with {@link ShutdownShape.onDrain} finishes (the worker's in-flight webhook deliveries), all
 *    within `SHUTDOWN_GRACE_SECONDS` (default {@link DEFAULT_GRACE_SECONDS}); past it, drain steps are interrupted
 *    and the connections left are closed (their requests' transactions roll back);
 * 4. then the hosts' layers and the database pool close, and the process exits with code 0.
 *
 * Listeners are made through {@link ShutdownShape.listen}, which counts each request in flight from its arrival until
 * its answer is flushed (Node's `close` of the response), and answers `Connection: close` while draining, so that
 * no keep-alive connection outlives the drain.
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Config, Context, Duration, Effect, Fiber, Layer, Ref } from "effect"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import { Readiness } from "./Health.js"

/** A Node HTTP listener with the platform services a server needs (`NodeHttpServer.layer`). */
export type Listener = ReturnType<typeof NodeHttpServer.layer>

/** How long in-flight work may take after SIGTERM unless `SHUTDOWN_GRACE_SECONDS` says otherwise, in seconds. */
export const DEFAULT_GRACE_SECONDS = 25

export interface ShutdownShape {
  /** A Node HTTP listener on `port` of `host` that {@link drain} closes first. */
  readonly listen: (port: number, host: string) => Listener
  /**
   * Registers work the drain waits for after the listeners stopped: `finish` completes when the work in flight is
   * done (e.g. a worker stops claiming jobs and awaits its deliveries). Interrupted when the grace period is over.
   */
  readonly onDrain: (name: string, finish: Effect.Effect<void>) => Effect.Effect<void>
  /** Steps 1 to 3 above; runs once (a second call waits for nothing). */
  readonly drain: Effect.Effect<void>
}

/** The process's shutdown: its listeners, its requests in flight and its drain steps. */
export class Shutdown extends Context.Tag("@propline/api/platform/Shutdown")<Shutdown, ShutdownShape>() {
  /** A shutdown allowing `graceSeconds` for in-flight work; needs the process's {@link Readiness}. */
  static readonly make = (graceSeconds: number): Effect.Effect<ShutdownShape, never, Readiness> =>
    Effect.gen(function* () {
      const readiness = yield* Readiness
      const servers = new Set<Server>()
      const steps = new Map<string, Effect.Effect<void>>()
      let inFlight = 0
      let draining = false
      let idle: (() => void) | undefined
      const started = yield* Ref.make(false)

      const track = (_request: IncomingMessage, response: ServerResponse) => {
        inFlight++
        if (draining) response.setHeader("connection", "close")
        response.once("close", () => {
          inFlight--
          if (inFlight === 0 && idle !== undefined) {
            const resume = idle
            idle = undefined
            resume()
          }
        })
      }

      const listen: ShutdownShape["listen"] = (port, host) =>
        NodeHttpServer.layer(
          () => {
            // Registered before the HTTP platform's own listener, so it sees every request first.
            const server = createServer().on("request", track)
            servers.add(server)
            return server
          },
          { port, host }
        )

      const requestsDone = Effect.async<void>((resume) => {
        if (inFlight === 0) return resume(Effect.void)
        idle = () => resume(Effect.void)
        return Effect.sync(() => {
          idle = undefined
        })
      })

      const drain = Effect.gen(function* () {
        if (yield* Ref.getAndSet(started, true)) return
        yield* Ref.set(readiness.draining, true)
        draining = true
        yield* Effect.logInfo({ msg: "draining", inFlight, graceSeconds, drainSteps: [...steps.keys()] })
        // Stops accepting now; `close` calls back once the last connection ended (awaited below).
        const closing = yield* Effect.fork(
          Effect.forEach(
            [...servers],
            (server) =>
              Effect.async<void>((resume) => {
                if (!server.listening) return resume(Effect.void)
                server.close(() => resume(Effect.void))
                server.closeIdleConnections()
              }),
            { concurrency: "unbounded", discard: true }
          )
        )
        const work = Effect.all([requestsDone, ...steps.values()], { concurrency: "unbounded", discard: true })
        const outcome = yield* work.pipe(Effect.timeout(Duration.seconds(graceSeconds)), Effect.option)
        for (const server of servers) server.closeAllConnections()
        yield* Fiber.join(closing)
        yield* outcome._tag === "Some"
          ? Effect.logInfo({ msg: "drained" })
          : Effect.logWarning({ msg: "grace period over", inFlight, graceSeconds })
      })

      const onDrain: ShutdownShape["onDrain"] = (name, finish) => Effect.sync(() => void steps.set(name, finish))

      return { listen, onDrain, drain } satisfies ShutdownShape
    })

  /** {@link ShutdownShape.listen} of the process's shutdown, as a layer. */
  static readonly listener = (
    port: number,
    host: string
  ): Layer.Layer<Layer.Layer.Success<Listener>, Layer.Layer.Error<Listener>, Shutdown> =>
    Layer.unwrapEffect(Effect.map(Shutdown, (shutdown) => shutdown.listen(port, host)))

  /** {@link make} with `SHUTDOWN_GRACE_SECONDS` (a whole number of seconds, 0 to 3600). */
  static readonly fromEnv: Layer.Layer<Shutdown, never, Readiness> = Layer.effect(
    Shutdown,
    Effect.flatMap(
      Config.integer("SHUTDOWN_GRACE_SECONDS").pipe(
        Config.withDefault(DEFAULT_GRACE_SECONDS),
        Config.validate({ message: "a whole number of seconds from 0 to 3600", validation: (s) => s >= 0 && s <= 3600 })
      ),
      Shutdown.make
    ).pipe(Effect.orDie)
  )
}
