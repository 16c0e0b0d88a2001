/**
 * The heap probe the benchmark preloads into every measured server: a window opened and closed by SIGUSR2 writes one
 * line with what the process allocated and how long its collections paused it, and a process that allocates more
 * per unit of work reports more.
 */
import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { Duration, Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { probedWhile } from "../src/internal/HeapFigures.js"

const PROBE = pathToFileURL(join(import.meta.dirname, "../src/internal/HeapProbe.ts")).href

/** A process that allocates `bytesPerTick` (as 1 KiB strings) every millisecond until it is killed. */
const allocating = (file: string, bytesPerTick: number) =>
  spawn(
    process.execPath,
    [
      "--import",
      PROBE,
      "-e",
      `const keep = []; setInterval(() => { for (let i = 0; i < ${bytesPerTick / 1024}; i++) keep[i % 64] = "x".repeat(1024) + i }, 1)`
    ],
    { env: { ...process.env, HEAP_PROBE_FILE: file }, stdio: "ignore" }
  )

describe("the heap probe", () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "heap-probe-"))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  const window = async (name: string, bytesPerTick: number) => {
    const file = join(dir, `${name}.jsonl`)
    const child = allocating(file, bytesPerTick)
    try {
      // Give the process time to load the probe (type stripping) before the first signal.
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      const [, heap] = await Effect.runPromise(probedWhile(child.pid, file, Effect.sleep(Duration.millis(1_000))))
      return heap
    } finally {
      child.kill("SIGKILL")
    }
  }

  it("reports the window's allocation, collections and times, and more for a process that allocates more", async () => {
    const small = await window("small", 16 * 1024)
    const large = await window("large", 256 * 1024)
    expect(small).toBeDefined()
    expect(large).toBeDefined()
    expect(large!.wallMs).toBeGreaterThan(900)
    expect(large!.scavenges).toBeGreaterThan(0)
    expect(large!.gcMs).toBeGreaterThan(0)
    expect(small!.allocatedBytes).toBeGreaterThan(0)
    // 16 times the work per tick: well over twice the bytes, whatever the timers' jitter.
    expect(large!.allocatedBytes).toBeGreaterThan(2 * small!.allocatedBytes)
  }, 30_000)

  it("answers undefined for a process without the probe rather than waiting for ever", async () => {
    const [value, heap] = await Effect.runPromise(probedWhile(undefined, join(dir, "none.jsonl"), Effect.succeed(7)))
    expect(value).toBe(7)
    expect(heap).toBeUndefined()
  })
})
