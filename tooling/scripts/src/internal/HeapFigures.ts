/**
 * The bench's side of the heap probe (`HeapProbe.ts`, preloaded into every measured server): the node flag that
 * loads it, and {@link probedWhile}, which opens a window before a load and closes it after, then reads the window's
 * line from the probe's file. A server without the probe (or a platform without `SIGUSR2`) gives `undefined`.
 */
import { Duration, Effect } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import type { HeapWindow } from "./HeapProbe.js"

export type { HeapWindow } from "./HeapProbe.js"

/** `--import <url>` of the compiled probe: the node arguments that preload it. */
export const heapProbeArgs = (): ReadonlyArray<string> => [
  "--import",
  pathToFileURL(join(dirname(fileURLToPath(import.meta.url)), "HeapProbe.js")).href
]

const lines = (file: string): ReadonlyArray<string> =>
  existsSync(file) ? readFileSync(file, "utf8").split("\n").filter((line) => line.length > 0) : []

const signal = (pid: number): boolean => {
  try {
    process.kill(pid, "SIGUSR2")
    return true
  } catch {
    return false
  }
}

/**
 * Runs `effect` inside one probe window of the process `pid` writing to `file`; returns its result and the
 * window's figures (`undefined` when the probe did not answer within 3 s).
 */
export const probedWhile = <A, E, R>(
  pid: number | undefined,
  file: string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<readonly [A, HeapWindow | undefined], E, R> =>
  Effect.gen(function* () {
    if (pid === undefined) return [yield* effect, undefined] as const
    const before = lines(file).length
    const opened = signal(pid)
    const result = yield* effect.pipe(Effect.onInterrupt(() => Effect.sync(() => signal(pid))))
    if (!opened || !signal(pid)) return [result, undefined] as const
    for (let attempt = 0; attempt < 30; attempt++) {
      const written = lines(file)
      if (written.length > before) return [result, JSON.parse(written[written.length - 1]!) as HeapWindow] as const
      yield* Effect.sleep(Duration.millis(100))
    }
    return [result, undefined] as const
  })
