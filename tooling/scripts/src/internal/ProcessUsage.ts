/**
 * What a child process uses while it is under load: its resident memory (`VmRSS` of `/proc/<pid>/status`, sampled
 * every {@link SAMPLE_INTERVAL_MS}) and the CPU time it spent (user + system, `/proc/<pid>/stat`), which divided by
 * the requests it answered gives its CPU cost per request: a figure that other load on the machine disturbs far
 * less than req/s. Beside it, the CPU time PostgreSQL spent meanwhile (every local process named `postgres`), so a
 * report shows which share of a request's cost is the server's own and which the database's, the same for a product
 * and a baseline that run the same statements. Linux only; elsewhere the figures are `undefined`.
 */
import { Effect } from "effect"
import { readdirSync, readFileSync } from "node:fs"

/** Milliseconds between two samples. */
const SAMPLE_INTERVAL_MS = 200

/** Peak and mean RSS over a run, in MiB, and the CPU time spent, in ms; `undefined` when it could not be read. */
export interface UsageFigures {
  readonly peakMiB: number | undefined
  readonly meanMiB: number | undefined
  readonly samples: number
  readonly cpuMs: number | undefined
  /**
   * CPU time (ms) of the local PostgreSQL processes over the same run; `undefined` when the database server is on
   * another machine (no local `postgres` process) or there is no procfs.
   */
  readonly databaseCpuMs: number | undefined
}

/** Clock ticks per second of `/proc/<pid>/stat` (USER_HZ, 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100

/**
 * User + system CPU time of `pid` in ms, or `undefined`; with `reapedChildren`, also the time of its children that
 * exited and were waited for (`cutime` + `cstime`).
 */
export const cpuMs = (pid: number | string, reapedChildren = false): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis are plain.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
    const ticks =
      Number(fields[11]) + Number(fields[12]) + (reapedChildren ? Number(fields[13]) + Number(fields[14]) : 0)
    return Number.isFinite(ticks) ? (ticks * 1000) / TICKS_PER_SECOND : undefined
  } catch {
    return undefined
  }
}

/**
 * CPU time in ms of every process named `postgres` on this machine (the postmaster with the backends it has reaped,
 * and the live backends and workers), or `undefined` when there is none.
 */
export const postgresCpuMs = (): number | undefined => {
  let entries: Array<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return undefined
  }
  let total: number | undefined
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    let name: string
    try {
      name = readFileSync(`/proc/${entry}/comm`, "utf8").trim()
    } catch {
      continue // exited meanwhile
    }
    if (name !== "postgres") continue
    const ms = cpuMs(entry, true)
    if (ms !== undefined) total = (total ?? 0) + ms
  }
  return total
}

/** `VmRSS` of `pid` in KiB, or `undefined` (process gone, or no procfs). */
export const residentKiB = (pid: number): number | undefined => {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))
    return match === null ? undefined : Number(match[1])
  } catch {
    return undefined
  }
}

/** Runs `effect` while sampling the RSS of `pid`; returns its result and the figures. */
export const sampledWhile = <A, E, R>(
  pid: number | undefined,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<readonly [A, UsageFigures], E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const samples: Array<number> = []
      const take = () => {
        const kib = pid === undefined ? undefined : residentKiB(pid)
        if (kib !== undefined) samples.push(kib)
      }
      take()
      const timer = setInterval(take, SAMPLE_INTERVAL_MS)
      const cpuBefore = pid === undefined ? undefined : cpuMs(pid)
      const databaseCpuBefore = postgresCpuMs()
      return { samples, take, timer, cpuBefore, databaseCpuBefore }
    }),
    (sampler) =>
      Effect.map(effect, (result) => {
        sampler.take()
        const { databaseCpuBefore, samples, cpuBefore } = sampler
        const cpuAfter = pid === undefined ? undefined : cpuMs(pid)
        const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore
        const databaseCpuAfter = postgresCpuMs()
        // A backend that exited but is not yet reaped would make the sum go down: then there is no figure.
        const databaseCpuMs =
          databaseCpuBefore === undefined || databaseCpuAfter === undefined || databaseCpuAfter < databaseCpuBefore
            ? undefined
            : databaseCpuAfter - databaseCpuBefore
        const figures: UsageFigures =
          samples.length === 0
            ? { peakMiB: undefined, meanMiB: undefined, samples: 0, cpuMs: cpu, databaseCpuMs }
            : {
                peakMiB: Math.max(...samples) / 1024,
                meanMiB: samples.reduce((sum, kib) => sum + kib, 0) / samples.length / 1024,
                samples: samples.length,
                cpuMs: cpu,
                databaseCpuMs
              }
        return [result, figures] as const
      }),
    (sampler) => Effect.sync(() => clearInterval(sampler.timer))
  )
