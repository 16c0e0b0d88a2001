/**
 * `pnpm bench:queues`'s pure parts (`internal/QueueReport.ts`): nearest-rank percentiles, medians over rounds, the
 * interleaved order of the rounds, and the table it writes into `docs/performance.md` between its own markers.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { interleaved, median, percentile, queuesTable, type RoundFigures, summarizeQueue } from "../src/internal/QueueReport.js"
import { QUEUES_MARKERS, replaceBetweenMarkers } from "../src/internal/ResultsSection.js"

const round = (queue: RoundFigures["queue"], drainPerSecond: number, p50Ms: number): RoundFigures => ({
  queue,
  backlog: 1000,
  enqueuePerSecond: 10_000,
  drainMs: (1000 * 1000) / drainPerSecond,
  drainPerSecond,
  drainCpuMsPerJob: 0.5,
  steadyJobs: 100,
  p50Ms,
  p99Ms: p50Ms * 2,
  steadyCpuMsPerJob: 1
})

const settings = { date: "2026-11-26", machine: "test machine", concurrency: 10, work: "a POST", rate: 100, seconds: 10 }

describe("percentile", () => {
  it("is the nearest rank: p50 of 1..100 is 50, p99 is 99, p100 the largest", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1)
    expect([percentile(values, 50), percentile(values, 99), percentile(values, 100)]).toEqual([50, 99, 100])
  })
  it("of one value is that value; of none NaN", () => {
    expect(percentile([7], 1)).toBe(7)
    expect(percentile([7], 99)).toBe(7)
    expect(percentile([], 50)).toBeNaN()
  })
})

describe("median", () => {
  it("the middle value of an odd count, the mean of the middle two of an even count, whatever the order", () => {
    expect(median([3, 1, 2])).toBe(2)
    expect(median([4, 1, 3, 2])).toBe(2.5)
    expect(median([])).toBeNaN()
  })
})

describe("interleaved", () => {
  it("alternates which side runs first: A B, B A, A B", () => {
    expect(interleaved("a", "b", 3)).toEqual(["a", "b", "b", "a", "a", "b"])
  })
})

describe("queuesTable", () => {
  const rounds = [round("pg-boss", 200, 300), round("graphile-worker", 800, 10), round("graphile-worker", 1000, 12), round("pg-boss", 300, 500)]

  it("gives each queue the median of its rounds", () => {
    const boss = summarizeQueue(rounds.filter((one) => one.queue === "pg-boss"))
    expect([boss.rounds, boss.drainPerSecond, boss.p50Ms]).toEqual([2, 250, 400])
  })

  it("shows both queues side by side with pg-boss / graphile-worker", () => {
    const table = queuesTable(settings, rounds)
    expect(table).toContain("| backlog jobs/s | 250 | 900 | 0.28 |")
    expect(table).toContain("| enqueue → start p50, 100 jobs/s for 10 s (ms) | 400 | 11 | 36.36 |")
    expect(table).toContain("| enqueue, batch insert of 1,000 jobs (jobs/s) | 10,000 | 10,000 | 1.00 |")
    expect(table).toContain("2 + 2 rounds, interleaved")
    expect(table.startsWith("Last run: 2026-11-26, test machine.")).toBe(true)
  })

  it("prints a caveat in bold first; a queue without rounds shows dashes, not NaN", () => {
    const table = queuesTable({ ...settings, caveat: "Small run on a loaded machine." }, rounds.slice(0, 1))
    expect(table.split("\n")[0]).toBe("**Small run on a loaded machine.**")
    expect(table).toContain("| backlog jobs/s | 200 | – | – |")
    expect(table).not.toContain("NaN")
  })

  it("fits between the bench:queues markers of docs/performance.md", () => {
    const page = readFileSync(fileURLToPath(new URL("../../../docs/performance.md", import.meta.url)), "utf8")
    expect(replaceBetweenMarkers(page, queuesTable(settings, rounds), QUEUES_MARKERS)).toContain(queuesTable(settings, rounds))
  })
})
