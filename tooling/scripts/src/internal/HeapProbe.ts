/**
 * The benchmark's heap probe, preloaded into each measured server (`node --import <this file's URL>`, see
 * `HeapFigures.ts`): what the server's JavaScript heap allocates and how long its main thread stands in garbage
 * collection while it is under load. Not a product component; it imports nothing but Node's own modules.
 *
 * `SIGUSR2` toggles a window. The first starts one: `v8.GCProfiler` (every collection's kind, its pause on the main
 * thread in µs, and the heap before and after it), the used heap size and `process.cpuUsage()`. The next ends it
 * and appends one JSON line to `HEAP_PROBE_FILE` ({@link HeapWindow}). Bytes allocated over the window = used heap at
 * its end − used heap at its start + what every collection in it freed (used before − used after).
 *
 * With `HEAP_PROBE_PROFILE_DIR`, each window also runs V8's sampling heap profiler (inspector
 * `HeapProfiler.startSampling`, every 16 KiB on average, objects later collected included) and writes the profile to
 * `<dir>/window-<n>.heapprofile` (Chrome DevTools' format): where the allocations of the window come from.
 */
import { appendFileSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import v8 from "node:v8"

/** One window, as the probe writes it. */
export interface HeapWindow {
  /** Wall time of the window, ms. */
  readonly wallMs: number
  /** The process's user + system CPU time over the window (every thread, GC helpers included), ms. */
  readonly cpuMs: number
  /** Bytes the JavaScript heap allocated over the window. */
  readonly allocatedBytes: number
  /** Main-thread pause of every collection in the window, ms. */
  readonly gcMs: number
  /** Collections in the window: scavenges (young generation) and the others (mark-compact and incremental steps). */
  readonly scavenges: number
  readonly otherCollections: number
  /** Used heap at the end of the window, bytes. */
  readonly usedHeapBytes: number
}

const file = process.env["HEAP_PROBE_FILE"]

interface GcStatistic {
  readonly gcType: string
  readonly cost: number
  readonly beforeGC: { readonly heapStatistics: { readonly usedHeapSize: number } }
  readonly afterGC: { readonly heapStatistics: { readonly usedHeapSize: number } }
}

const profileDir = process.env["HEAP_PROBE_PROFILE_DIR"]
let session: Session | undefined
let windows = 0

const startSampling = (): void => {
  if (profileDir === undefined || profileDir === "") return
  if (session === undefined) {
    session = new Session()
    session.connect()
  }
  session.post("HeapProfiler.startSampling", {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true
  })
}

const stopSampling = (): void => {
  if (session === undefined || profileDir === undefined) return
  const n = ++windows
  session.post("HeapProfiler.stopSampling", (error, result) => {
    if (error === null) writeFileSync(join(profileDir, `window-${n}.heapprofile`), JSON.stringify(result.profile))
  })
}

if (file !== undefined && file !== "") {
  let open:
    | { profiler: v8.GCProfiler; startedAt: number; used: number; cpu: NodeJS.CpuUsage }
    | undefined
  process.on("SIGUSR2", () => {
    if (open === undefined) {
      const profiler = new v8.GCProfiler()
      profiler.start()
      open = { profiler, startedAt: performance.now(), used: v8.getHeapStatistics().used_heap_size, cpu: process.cpuUsage() }
      startSampling()
      return
    }
    const window = open
    open = undefined
    stopSampling()
    const result = window.profiler.stop() as unknown as { statistics: ReadonlyArray<GcStatistic> } | undefined
    const statistics = result?.statistics ?? []
    const used = v8.getHeapStatistics().used_heap_size
    const cpu = process.cpuUsage(window.cpu)
    let freed = 0
    let gcMicros = 0
    let scavenges = 0
    for (const gc of statistics) {
      freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize
      gcMicros += gc.cost
      if (gc.gcType === "Scavenge" || gc.gcType === "MinorMarkSweep") scavenges++
    }
    const line: HeapWindow = {
      wallMs: performance.now() - window.startedAt,
      cpuMs: (cpu.user + cpu.system) / 1000,
      allocatedBytes: used - window.used + freed,
      gcMs: gcMicros / 1000,
      scavenges,
      otherCollections: statistics.length - scavenges,
      usedHeapBytes: used
    }
    appendFileSync(file, `${JSON.stringify(line)}\n`)
  })
}
