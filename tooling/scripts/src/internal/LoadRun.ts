/**
 * One autocannon run as an Effect: bounded by its duration plus a margin, stopped when interrupted (SIGINT), and
 * reduced to the figures the report shows. Every target gets the same {@link LoadSettings}.
 */
import autocannon from "autocannon"
import { Duration, Effect } from "effect"
import { cpus } from "node:os"
import { BenchFailure } from "./ChildProcesses.js"

export interface LoadSettings {
  readonly connections: number
  /** Seconds. */
  readonly durationSeconds: number
  /** Seconds of load before each measurement, whose results are dropped. */
  readonly warmupSeconds: number
  readonly pipelining: number
}

/** What is measured of one target. Latencies in milliseconds, rates per second. */
export interface Measurement {
  readonly target: string
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly totalRequests: number
  /** Requests answered during the warm-up (not in the figures). */
  readonly warmupRequests: number
  readonly non2xx: number
  /** Non-2xx answers and connection errors during the warm-up: not in the figures, but a failure all the same. */
  readonly warmupFailures: number
  /** Connection errors and timeouts. */
  readonly errors: number
  readonly timeouts: number
  /** Count per status code, e.g. `{ "200": 12345 }`. */
  readonly statusCodes: Readonly<Record<string, number>>
  readonly durationSeconds: number
  /**
   * Share of the machine's CPU time (0..1) spent busy during the second before the warm-up, while no target was
   * under load: well above 0 means other work was running and the figures are noisy.
   */
  readonly busyBefore: number
}

export interface LoadTarget {
  readonly url: string
  readonly method: "GET" | "POST"
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
  /**
   * Called for each request to vary it (rotate clients, take the next proposal); must be cheap. `path` replaces the
   * URL's path and query, `headers` are merged over {@link headers}, `body` replaces {@link body}.
   */
  readonly nextRequest?: () => RequestVariation
}

export interface RequestVariation {
  readonly path?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

const run = (target: LoadTarget, settings: LoadSettings, durationSeconds: number, title: string) =>
  Effect.async<autocannon.Result, BenchFailure>((resume) => {
    const request: autocannon.Request = {
      method: target.method,
      ...(target.body === undefined ? {} : { body: target.body }),
      ...(target.nextRequest === undefined
        ? {}
        : {
            setupRequest: (req: autocannon.Request) => {
              const next = target.nextRequest?.() ?? {}
              return {
                ...req,
                ...(next.path === undefined ? {} : { path: next.path }),
                ...(next.body === undefined ? {} : { body: next.body }),
                headers: { ...req.headers, ...next.headers }
              }
            }
          })
    }
    const instance = autocannon(
      {
        url: target.url,
        title,
        method: target.method,
        connections: settings.connections,
        pipelining: settings.pipelining,
        duration: durationSeconds,
        timeout: 10,
        headers: { ...target.headers },
        requests: [request]
      },
      (error: unknown, result) => {
        if (error !== null && error !== undefined) {
          resume(Effect.fail(new BenchFailure({ message: `autocannon (${title}): ${String(error)}` })))
        } else resume(Effect.succeed(result))
      }
    )
    return Effect.sync(() => instance.stop())
  }).pipe(
    Effect.timeoutFail({
      duration: Duration.seconds(durationSeconds + 30),
      onTimeout: () => new BenchFailure({ message: `autocannon (${title}) did not finish in time` })
    })
  )

const cpuTimes = () =>
  cpus().reduce(
    (sum, cpu) => {
      const { user, nice, sys, idle, irq } = cpu.times
      return { busy: sum.busy + user + nice + sys + irq, total: sum.total + user + nice + sys + idle + irq }
    },
    { busy: 0, total: 0 }
  )

/** Busy share of all cores over `ms` milliseconds. */
const busyShare = (ms: number) =>
  Effect.gen(function* () {
    const before = cpuTimes()
    yield* Effect.sleep(Duration.millis(ms))
    const after = cpuTimes()
    const total = after.total - before.total
    return total > 0 ? (after.busy - before.busy) / total : 0
  })

const statusCodes = (result: autocannon.Result): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) out[code] = stats.count ?? 0
  return out
}

/**
 * A warm-up run (dropped), then the measured run; `around`, when given, wraps the measured run alone (the heap
 * probe's window, `HeapFigures.probedWhile`), and what it adds is returned beside the measurement.
 */
export const measure = <H = undefined>(
  name: string,
  target: LoadTarget,
  settings: LoadSettings,
  around?: (
    measured: Effect.Effect<autocannon.Result, BenchFailure>
  ) => Effect.Effect<readonly [autocannon.Result, H], BenchFailure>
) =>
  Effect.gen(function* () {
    // The pause also lets the previous target's connections close.
    const busyBefore = yield* busyShare(1_000)
    const warmup =
      settings.warmupSeconds > 0 ? yield* run(target, settings, settings.warmupSeconds, `${name} (warm-up)`) : undefined
    const measured = run(target, settings, settings.durationSeconds, name)
    const [result, extra] =
      around === undefined ? [yield* measured, undefined] : yield* around(measured)
    const measurement = {
      target: name,
      requestsPerSecond: result.requests.average,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      totalRequests: result.requests.total,
      warmupRequests: warmup?.requests.total ?? 0,
      non2xx: result.non2xx,
      warmupFailures: (warmup?.non2xx ?? 0) + (warmup?.errors ?? 0),
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: statusCodes(result),
      durationSeconds: result.duration,
      busyBefore
    } satisfies Measurement
    return [measurement, extra as H | undefined] as const
  })
