/**
 * The benchmark's report: one Markdown table (printed to stdout and written to `bench-results.md`) and the same
 * figures as JSON (`bench-results.json`). Ratios are ours / baseline from the same run: below 1 for req/s and above
 * 1 for p99 mean the product is slower than the baseline.
 */
import type { LoadSettings, Measurement } from "./LoadRun.js"

export interface Comparison {
  readonly operation: string
  readonly ours: Measurement
  readonly baseline: Measurement
}

export interface RunInfo {
  readonly startedAt: Date
  readonly wallSeconds: number
  readonly settings: LoadSettings
  readonly machine: string
  readonly node: string
  readonly postgres: string
  readonly notes: ReadonlyArray<string>
}

const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")

/** autocannon's latencies are whole milliseconds unless sub-millisecond precision was asked for. */
const millis = (value: number): string => (Number.isInteger(value) ? String(value) : fixed(value, 2))

const ratio = (ours: number, baseline: number): string => (baseline > 0 ? `${fixed(ours / baseline, 2)}x` : "n/a")

const row = (cells: ReadonlyArray<string>): string => `| ${cells.join(" | ")} |`

/** The table: one row per target, ratios on the product's rows. */
export const markdownTable = (comparisons: ReadonlyArray<Comparison>): string => {
  const lines = [
    row(["target", "req/s (avg)", "p50 (ms)", "p99 (ms)", "non-2xx", "req/s ours/baseline", "p99 ours/baseline"]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:"])
  ]
  for (const { ours, baseline } of comparisons) {
    const cells = (m: Measurement, ratios: [string, string]) => [
      m.target,
      fixed(m.requestsPerSecond, 0),
      millis(m.p50Ms),
      millis(m.p99Ms),
      String(m.non2xx),
      ...ratios
    ]
    lines.push(row(cells(ours, [ratio(ours.requestsPerSecond, baseline.requestsPerSecond), ratio(ours.p99Ms, baseline.p99Ms)])))
    lines.push(row(cells(baseline, ["(baseline)", "(baseline)"])))
  }
  return lines.join("\n")
}

/** The Markdown document: the table, then how it was measured. */
export const markdownDocument = (comparisons: ReadonlyArray<Comparison>, info: RunInfo): string => {
  const { settings } = info
  return [
    "# Benchmark results",
    "",
    `Run ${info.startedAt.toISOString()} by \`pnpm bench\` (tooling/scripts/src/bench.ts), ${fixed(info.wallSeconds, 0)} s in all.`,
    "",
    markdownTable(comparisons),
    "",
    "## How it was measured",
    "",
    `- autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.warmupSeconds} s warm-up (dropped) then ${settings.durationSeconds} s measured, one target after another.`,
    "- req/s is autocannon's average of per-second samples; p50 and p99 are response latencies in milliseconds.",
    "- Ratios compare the product with a baseline measured in the same run on the same database: req/s below 1x and p99 above 1x mean slower than the baseline.",
    `- Machine: ${info.machine}; Node ${info.node}; PostgreSQL ${info.postgres} on the same machine. The load generator (autocannon, in the bench process), the server under test and PostgreSQL share the cores, so absolute figures are lower than on separate machines; the ratios are the figures to compare.`,
    ...info.notes.map((note) => `- ${note}`),
    ""
  ].join("\n")
}

/** The JSON document: settings, machine and every measurement. */
export const jsonDocument = (comparisons: ReadonlyArray<Comparison>, info: RunInfo): string =>
  `${JSON.stringify(
    {
      startedAt: info.startedAt.toISOString(),
      wallSeconds: info.wallSeconds,
      settings: info.settings,
      machine: info.machine,
      node: info.node,
      postgres: info.postgres,
      notes: info.notes,
      results: comparisons.map(({ operation, ours, baseline }) => ({
        operation,
        ours,
        baseline,
        requestsPerSecondRatio: baseline.requestsPerSecond > 0 ? ours.requestsPerSecond / baseline.requestsPerSecond : null,
        p99Ratio: baseline.p99Ms > 0 ? ours.p99Ms / baseline.p99Ms : null
      }))
    },
    null,
    2
  )}\n`
