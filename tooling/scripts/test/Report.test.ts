/**
 * The benchmark's report with the conventional peer beside the product and the plain baseline (issue 27): the
 * ratios against both, the thresholds judged on req/s and on CPU per request against the peer, and the heap
 * figures per measured request.
 */
import { describe, expect, it } from "vitest"
import type { HeapWindow } from "../src/internal/HeapFigures.js"
import type { Measurement } from "../src/internal/LoadRun.js"
import type { UsageFigures } from "../src/internal/ProcessUsage.js"
import { markdownTable, summarize, verdicts, type Comparison, type Side } from "../src/internal/Report.js"

const run = (requestsPerSecond: number, totalRequests: number): Measurement => ({
  target: "x",
  requestsPerSecond,
  p50Ms: 10,
  p99Ms: 20,
  totalRequests,
  warmupRequests: 0,
  non2xx: 0,
  warmupFailures: 0,
  errors: 0,
  timeouts: 0,
  statusCodes: { "200": totalRequests },
  durationSeconds: 10,
  busyBefore: 0
})

const usage = (cpuMs: number): UsageFigures => ({ peakMiB: 150, meanMiB: 140, samples: 10, cpuMs, databaseCpuMs: 100 })

const heap = (allocatedKiB: number, gcMs: number): HeapWindow => ({
  wallMs: 10_000,
  cpuMs: 5_000,
  allocatedBytes: allocatedKiB * 1024,
  gcMs,
  scavenges: 3,
  otherCollections: 0,
  usedHeapBytes: 1
})

const side = (requestsPerSecond: number, cpuMsPerRequest: number, allocatedKiBPerRequest: number): Side => ({
  runs: [run(requestsPerSecond, 1_000)],
  memory: [usage(cpuMsPerRequest * 1_000)],
  heap: [heap(allocatedKiBPerRequest * 1_000, 500)]
})

const comparison = (ours: Side, peer: Side, baseline: Side): Comparison => ({
  target: "send-queue",
  label: "GET send-queue",
  requirement: { peer: 1, baseline: 0.7 },
  ours,
  peer,
  baseline
})

describe("the report with a peer", () => {
  it("gives the heap figures per measured request", () => {
    const summary = summarize(side(500, 2, 300))
    expect(summary.allocatedKiBPerRequest).toBeCloseTo(300)
    expect(summary.gcMsPerRequest).toBeCloseTo(0.5)
    expect(summary.gcShareOfMainThread).toBeCloseTo(0.05)
    expect(summary.cpuMsPerRequest).toBeCloseTo(2)
  })

  it("judges ours against the peer on req/s and CPU per request, and against the baseline on req/s", () => {
    const faster = verdicts([comparison(side(400, 2, 300), side(380, 2.2, 200), side(550, 1, 100))])
    expect(faster.map((v) => [v.what, v.met])).toEqual([
      ["send-queue req/s ours / peer", true],
      ["send-queue CPU per request peer / ours", true],
      ["send-queue req/s ours / baseline", true],
      ["API process peak RSS (token, send-queue, pass)", true]
    ])
    const costlier = verdicts([comparison(side(400, 2.5, 300), side(380, 2.2, 200), side(600, 1, 100))])
    expect(costlier.map((v) => v.met)).toEqual([true, false, false, true])
  })

  it("shows ours / peer / baseline side by side, and the ratios against both", () => {
    const table = markdownTable([comparison(side(400, 2, 300), side(500, 2.5, 200), side(800, 1, 100))])
    const row = table.split("\n").find((line) => line.startsWith("| GET send-queue"))
    expect(row).toContain("400 / 500 / 800")
    expect(row).toContain("0.80x")
    expect(row).toContain("0.50x")
    expect(row).toContain("300 / 200 / 100")
    expect(row).toContain("**no**")
  })
})
