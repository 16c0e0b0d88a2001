/**
 * Resident memory (RSS) of a child process while it is under load: `VmRSS` of `/proc/<pid>/status`, sampled every
 * {@link SAMPLE_INTERVAL_MS}. Linux only; elsewhere no samples are taken and the figures are `undefined`.
 */
import { Effect } from "effect"
import { readFileSync } from "node:fs"

/** Milliseconds between two samples. */
const SAMPLE_INTERVAL_MS = 200

/** Peak and mean RSS over a run, in MiB; `undefined` when no sample could be read. */
export interface MemoryFigures {
  readonly peakMiB: number | undefined
  readonly meanMiB: number | undefined
  readonly samples: number
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
): Effect.Effect<readonly [A, MemoryFigures], E, R> =>
  Effect.acquireUseRelease(
    Effect.sync(() => {
      const samples: Array<number> = []
      const take = () => {
        const kib = pid === undefined ? undefined : residentKiB(pid)
        if (kib !== undefined) samples.push(kib)
      }
      take()
      const timer = setInterval(take, SAMPLE_INTERVAL_MS)
      return { samples, take, timer }
    }),
    (sampler) =>
      Effect.map(effect, (result) => {
        sampler.take()
        const { samples } = sampler
        const figures: MemoryFigures =
          samples.length === 0
            ? { peakMiB: undefined, meanMiB: undefined, samples: 0 }
            : {
                peakMiB: Math.max(...samples) / 1024,
                meanMiB: samples.reduce((sum, kib) => sum + kib, 0) / samples.length / 1024,
                samples: samples.length
              }
        return [result, figures] as const
      }),
    (sampler) => Effect.sync(() => clearInterval(sampler.timer))
  )
