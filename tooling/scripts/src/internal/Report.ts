/**
 * The benchmark's report: one Markdown table of every measured path against its baseline, with the issue's
 * "must hold" thresholds (printed, written to `bench-results.md` and between the markers of `docs/performance.md`), and the same
 * figures as JSON (`bench-results.json`). Each path is measured in several interleaved rounds; req/s is the mean of
 * the rounds, latencies the median of the rounds' percentiles. Ratios are ours / baseline from the same run.
 */
import type { LoadSettings, Measurement } from "./LoadRun.js"
import type { UsageFigures } from "./ProcessUsage.js"

/** A threshold of the issue: ours / baseline req/s at least `atLeast`. */
export interface Requirement {
  readonly atLeast: number
}

/** One path measured on the product and on its baseline, round by round. */
export interface Comparison {
  readonly target: string
  /** What the row says, e.g. "token issuance (client_credentials)". */
  readonly label: string
  readonly requirement: Requirement | undefined
  readonly ours: ReadonlyArray<Measurement>
  readonly baseline: ReadonlyArray<Measurement>
  /** RSS of the product process during each of its rounds. */
  readonly oursMemory: ReadonlyArray<UsageFigures>
  /** RSS of the baseline process during each of its rounds. */
  readonly baselineMemory: ReadonlyArray<UsageFigures>
}

export interface RunInfo {
  readonly startedAt: Date
  readonly wallSeconds: number
  readonly settings: LoadSettings
  readonly rounds: number
  readonly machine: string
  readonly node: string
  readonly postgres: string
  readonly notes: ReadonlyArray<string>
}

/** Limits of the issue that are not a ratio against a baseline. */
export const DEEP_PAGE_MAX_SLOWDOWN = 1.5
export const RSS_LIMIT_MIB = 200

/**
 * The paths whose load the RSS limit is judged under: issue 5's. Later paths are measured and reported too, but a
 * booking availability request computes a week of start times, and the plain baseline alone passes 200 MiB on it.
 */
const RSS_JUDGED: ReadonlySet<string> = new Set(["token", "send-queue", "send-queue-deep", "pass"])

const judgedMemory = (comparisons: ReadonlyArray<Comparison>) =>
  comparisons.filter((c) => RSS_JUDGED.has(c.target)).flatMap((c) => c.oursMemory)

const mean = (values: ReadonlyArray<number>): number =>
  values.length === 0 ? Number.NaN : values.reduce((sum, value) => sum + value, 0) / values.length

const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** The rounds of one side reduced to one figure each. */
export interface Summary {
  readonly requestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly totalRequests: number
  readonly non2xx: number
  readonly errors: number
  readonly peakRssMiB: number | undefined
  /** CPU time of the server process per request answered (warm-up included), in ms. */
  readonly cpuMsPerRequest: number | undefined
  /** CPU time of the local PostgreSQL processes per request answered over the same rounds, in ms. */
  readonly databaseCpuMsPerRequest: number | undefined
}

const peak = (memory: ReadonlyArray<UsageFigures>): number | undefined => {
  const peaks = memory.flatMap((m) => (m.peakMiB === undefined ? [] : [m.peakMiB]))
  return peaks.length === 0 ? undefined : Math.max(...peaks)
}

export const summarize = (rounds: ReadonlyArray<Measurement>, memory: ReadonlyArray<UsageFigures>): Summary => ({
  requestsPerSecond: mean(rounds.map((m) => m.requestsPerSecond)),
  p50Ms: median(rounds.map((m) => m.p50Ms)),
  p99Ms: median(rounds.map((m) => m.p99Ms)),
  totalRequests: rounds.reduce((sum, m) => sum + m.totalRequests, 0),
  non2xx: rounds.reduce((sum, m) => sum + m.non2xx, 0),
  errors: rounds.reduce((sum, m) => sum + m.errors, 0),
  peakRssMiB: peak(memory),
  cpuMsPerRequest: cpuPerRequest(rounds, memory.map((m) => m.cpuMs)),
  databaseCpuMsPerRequest: cpuPerRequest(rounds, memory.map((m) => m.databaseCpuMs))
})

/** The CPU time (ms) of each round over the requests answered in all of them (warm-ups included). */
const cpuPerRequest = (rounds: ReadonlyArray<Measurement>, cpuMs: ReadonlyArray<number | undefined>): number | undefined => {
  if (cpuMs.length === 0 || cpuMs.some((ms) => ms === undefined)) return undefined
  const requests = rounds.reduce((sum, m) => sum + m.totalRequests + m.warmupRequests, 0)
  return requests > 0 ? cpuMs.reduce((sum: number, ms) => sum + (ms ?? 0), 0) / requests : undefined
}

const cpuCell = (value: number | undefined): string => (value === undefined ? "n/a" : fixed(value, 2))

const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")

/** Whole numbers with thousands separators (`1,234`). */
const count = (value: number): string => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "n/a")

/** autocannon's latencies are whole milliseconds; a median of two rounds may be a half. */
const millis = (value: number): string => (Number.isInteger(value) ? String(value) : fixed(value, 1))

const ratioOf = (ours: number, baseline: number): number => (baseline > 0 ? ours / baseline : Number.NaN)

const row = (cells: ReadonlyArray<string>): string => `| ${cells.join(" | ")} |`

const verdict = (met: boolean | undefined): string => (met === undefined ? "" : met ? "yes" : "**no**")

/** The verdicts of the thresholds, for the table and the exit status. */
export interface Verdict {
  readonly what: string
  readonly value: string
  readonly limit: string
  readonly met: boolean
}

/** Deep page and first page of the send queue, when both were measured. */
const deepAgainstFirst = (comparisons: ReadonlyArray<Comparison>) => {
  const first = comparisons.find((c) => c.target === "send-queue")
  const deep = comparisons.find((c) => c.target === "send-queue-deep")
  if (first === undefined || deep === undefined) return undefined
  const firstRate = summarize(first.ours, first.oursMemory).requestsPerSecond
  const deepRate = summarize(deep.ours, deep.oursMemory).requestsPerSecond
  return { slowdown: ratioOf(firstRate, deepRate), firstRate, deepRate }
}

/** Every threshold that the measured targets allow to judge. */
export const verdicts = (comparisons: ReadonlyArray<Comparison>): ReadonlyArray<Verdict> => {
  const out: Array<Verdict> = []
  for (const c of comparisons) {
    if (c.requirement === undefined) continue
    const ratio = ratioOf(summarize(c.ours, []).requestsPerSecond, summarize(c.baseline, []).requestsPerSecond)
    out.push({
      what: `${c.target} req/s ours / baseline`,
      value: `${fixed(ratio, 2)}x`,
      limit: `>= ${fixed(c.requirement.atLeast, 2)}x`,
      met: ratio >= c.requirement.atLeast
    })
  }
  const deep = deepAgainstFirst(comparisons)
  if (deep !== undefined) {
    out.push({
      what: "send-queue first page req/s / deep page req/s",
      value: `${fixed(deep.slowdown, 2)}x`,
      limit: `<= ${fixed(DEEP_PAGE_MAX_SLOWDOWN, 2)}x`,
      met: deep.slowdown <= DEEP_PAGE_MAX_SLOWDOWN
    })
  }
  const rss = peak(judgedMemory(comparisons))
  if (rss !== undefined) {
    out.push({
      what: "API process peak RSS (token, send-queue, pass)",
      value: `${fixed(rss, 0)} MiB`,
      limit: `<= ${RSS_LIMIT_MIB} MiB`,
      met: rss <= RSS_LIMIT_MIB
    })
  }
  return out
}

/** The table: one row per path, then the deep page against the first page, then memory. */
export const markdownTable = (comparisons: ReadonlyArray<Comparison>): string => {
  const lines = [
    row([
      "path",
      "ours req/s",
      "baseline req/s",
      "ours / baseline",
      "ours p50 / p99 (ms)",
      "baseline p50 / p99 (ms)",
      "CPU ms per request, ours / baseline",
      "PostgreSQL CPU ms per request, ours / baseline",
      "must hold",
      "met"
    ]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---"])
  ]
  for (const c of comparisons) {
    const ours = summarize(c.ours, c.oursMemory)
    const base = summarize(c.baseline, c.baselineMemory)
    const ratio = ratioOf(ours.requestsPerSecond, base.requestsPerSecond)
    lines.push(
      row([
        c.label,
        count(ours.requestsPerSecond),
        count(base.requestsPerSecond),
        `${fixed(ratio, 2)}x`,
        `${millis(ours.p50Ms)} / ${millis(ours.p99Ms)}`,
        `${millis(base.p50Ms)} / ${millis(base.p99Ms)}`,
        `${cpuCell(ours.cpuMsPerRequest)} / ${cpuCell(base.cpuMsPerRequest)}`,
        `${cpuCell(ours.databaseCpuMsPerRequest)} / ${cpuCell(base.databaseCpuMsPerRequest)}`,
        c.requirement === undefined ? "" : `>= ${fixed(c.requirement.atLeast, 1)}x`,
        verdict(c.requirement === undefined ? undefined : ratio >= c.requirement.atLeast)
      ])
    )
  }
  const deep = deepAgainstFirst(comparisons)
  if (deep !== undefined) {
    lines.push(
      row([
        "send-queue: deep page against first page (ours)",
        count(deep.deepRate),
        `${count(deep.firstRate)} (first page)`,
        `${fixed(deep.slowdown, 2)}x slower`,
        "",
        "",
        "",
        "",
        `<= ${fixed(DEEP_PAGE_MAX_SLOWDOWN, 1)}x slower`,
        verdict(deep.slowdown <= DEEP_PAGE_MAX_SLOWDOWN)
      ])
    )
  }
  const rssRow = (label: string, judged: boolean, selection: ReadonlyArray<Comparison>) => {
    const oursRss = peak(selection.flatMap((c) => c.oursMemory))
    const baselineRss = peak(selection.flatMap((c) => c.baselineMemory))
    if (oursRss === undefined) return
    lines.push(
      row([
        label,
        fixed(oursRss, 0),
        baselineRss === undefined ? "n/a" : fixed(baselineRss, 0),
        baselineRss === undefined ? "" : `${fixed(ratioOf(oursRss, baselineRss), 2)}x`,
        "",
        "",
        "",
        "",
        judged ? `<= ${RSS_LIMIT_MIB} MiB` : "",
        judged ? verdict(oursRss <= RSS_LIMIT_MIB) : ""
      ])
    )
  }
  const judged = comparisons.filter((c) => RSS_JUDGED.has(c.target))
  rssRow("RSS under load, peak (MiB): token, send-queue, pass", true, judged)
  if (judged.length < comparisons.length) rssRow("RSS under load, peak (MiB): every path", false, comparisons)
  return lines.join("\n")
}

/** Per-round figures, to show how much the rounds agree. */
export const roundsTable = (comparisons: ReadonlyArray<Comparison>): string => {
  const lines = [
    row(["path", "round", "ours req/s", "baseline req/s", "ours / baseline", "ours p99", "baseline p99", "ours peak RSS (MiB)"]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:"])
  ]
  for (const c of comparisons) {
    c.ours.forEach((ours, index) => {
      const base = c.baseline[index]
      lines.push(
        row([
          c.target,
          String(index + 1),
          count(ours.requestsPerSecond),
          base === undefined ? "n/a" : count(base.requestsPerSecond),
          base === undefined ? "n/a" : `${fixed(ratioOf(ours.requestsPerSecond, base.requestsPerSecond), 2)}x`,
          millis(ours.p99Ms),
          base === undefined ? "n/a" : millis(base.p99Ms),
          fixed(c.oursMemory[index]?.peakMiB ?? Number.NaN, 0)
        ])
      )
    })
  }
  return lines.join("\n")
}

/** How the figures were measured, as Markdown bullet points. */
export const method = (info: RunInfo): ReadonlyArray<string> => {
  const { settings } = info
  return [
    `- ${info.rounds} interleaved rounds: each round measures every path on the product and on its baseline, one after the other (which side goes first alternates by round). autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.warmupSeconds} s warm-up (dropped) then ${settings.durationSeconds} s measured per side and round.`,
    "- req/s is the mean of the rounds' averages; p50 and p99 are the medians of the rounds' response latencies in milliseconds. CPU ms per request is the server process's user + system time over its rounds (warm-ups included) divided by the requests it answered: other load on the machine disturbs it far less than req/s. PostgreSQL CPU ms per request is the same for the local postgres processes over the same rounds: where the product and its baseline run the same statements it should match, and the server's own CPU is then what separates them.",
    "- Ratios compare the product with its baseline in the same run on the same database: below 1x means slower than the baseline.",
    `- Machine: ${info.machine}; Node ${info.node}; PostgreSQL ${info.postgres} on the same machine. The load generator (autocannon, in the bench process), the servers and PostgreSQL share the cores, so absolute figures are lower than on separate machines; the ratios are the figures to compare.`,
    ...info.notes.map((note) => `- ${note}`)
  ]
}

/** The Markdown document: the table, the rounds, then how it was measured. */
export const markdownDocument = (comparisons: ReadonlyArray<Comparison>, info: RunInfo): string =>
  [
    "# Benchmark results",
    "",
    `Run ${info.startedAt.toISOString()} by \`pnpm bench\` (tooling/scripts/src/bench.ts), ${fixed(info.wallSeconds, 0)} s in all.`,
    "",
    markdownTable(comparisons),
    "",
    "## Rounds",
    "",
    roundsTable(comparisons),
    "",
    "## How it was measured",
    "",
    ...method(info),
    ""
  ].join("\n")

/** The JSON document: settings, machine, every round of every measurement and the verdicts. */
export const jsonDocument = (comparisons: ReadonlyArray<Comparison>, info: RunInfo): string =>
  `${JSON.stringify(
    {
      startedAt: info.startedAt.toISOString(),
      wallSeconds: info.wallSeconds,
      settings: info.settings,
      rounds: info.rounds,
      machine: info.machine,
      node: info.node,
      postgres: info.postgres,
      notes: info.notes,
      verdicts: verdicts(comparisons),
      results: comparisons.map((c) => {
        const ours = summarize(c.ours, c.oursMemory)
        const baseline = summarize(c.baseline, c.baselineMemory)
        return {
          target: c.target,
          label: c.label,
          requirement: c.requirement ?? null,
          ours,
          baseline,
          requestsPerSecondRatio: baseline.requestsPerSecond > 0 ? ours.requestsPerSecond / baseline.requestsPerSecond : null,
          rounds: { ours: c.ours, baseline: c.baseline, oursMemory: c.oursMemory, baselineMemory: c.baselineMemory }
        }
      })
    },
    null,
    2
  )}\n`
