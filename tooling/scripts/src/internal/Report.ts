/**
 * The benchmark's report: one Markdown table of every measured path against its baseline, with the issue's
 * "must hold" thresholds (printed, written to `bench-results.md` and between the markers of `docs/performance.md`), and the same
 * figures as JSON (`bench-results.json`). Each path is measured in several interleaved rounds; req/s is the mean of
 * the rounds, latencies the median of the rounds' percentiles. Ratios are ours / baseline from the same run.
 */
import type { LoadSettings, Measurement } from "./LoadRun.js"
import type { UsageFigures } from "./ProcessUsage.js"
import type { HeapWindow } from "./HeapFigures.js"

/**
 * A threshold of the issues: ours / peer at least `peer` (req/s, and peer / ours in CPU per request), ours / baseline
 * req/s at least `baseline`.
 */
export interface Requirement {
  readonly peer?: number
  readonly baseline: number
}

/** One server's rounds of one path: the load's figures, its process usage and its heap probe's windows. */
export interface Side {
  readonly runs: ReadonlyArray<Measurement>
  readonly memory: ReadonlyArray<UsageFigures>
  readonly heap: ReadonlyArray<HeapWindow | undefined>
}

/** One path measured on the product, on the conventional peer (when it serves the path) and on the plain baseline. */
export interface Comparison {
  readonly target: string
  /** What the row says, e.g. "token issuance (client_credentials)". */
  readonly label: string
  readonly requirement: Requirement | undefined
  readonly ours: Side
  readonly peer: Side | undefined
  readonly baseline: Side
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
  comparisons.filter((c) => RSS_JUDGED.has(c.target)).flatMap((c) => c.ours.memory)

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
  /** Bytes the server's JavaScript heap allocated per request answered (warm-up included), in KiB. */
  readonly allocatedKiBPerRequest: number | undefined
  /** The main thread's garbage-collection pauses as a share (0..1) of the wall time of the same windows. */
  readonly gcShareOfMainThread: number | undefined
  /** The main thread's garbage-collection pauses per request answered, in ms. */
  readonly gcMsPerRequest: number | undefined
}

const peak = (memory: ReadonlyArray<UsageFigures>): number | undefined => {
  const peaks = memory.flatMap((m) => (m.peakMiB === undefined ? [] : [m.peakMiB]))
  return peaks.length === 0 ? undefined : Math.max(...peaks)
}

const answered = (rounds: ReadonlyArray<Measurement>): number =>
  rounds.reduce((sum, m) => sum + m.totalRequests + m.warmupRequests, 0)

/** The figure summed over the rounds and divided by the requests answered; undefined when a round lacks it. */
const perRequest = (rounds: ReadonlyArray<Measurement>, values: ReadonlyArray<number | undefined>): number | undefined => {
  if (values.length === 0 || values.some((value) => value === undefined)) return undefined
  const requests = answered(rounds)
  return requests > 0 ? values.reduce((sum: number, value) => sum + (value ?? 0), 0) / requests : undefined
}

/** The heap windows' figures over the measured requests (the windows leave the warm-ups out). */
const measuredPerRequest = (rounds: ReadonlyArray<Measurement>, values: ReadonlyArray<number>): number | undefined => {
  const requests = rounds.reduce((total, m) => total + m.totalRequests, 0)
  return requests > 0 ? sum(values) / requests : undefined
}

const sum = (values: ReadonlyArray<number>): number => values.reduce((total, value) => total + value, 0)

export const summarize = (side: Side): Summary => {
  const { runs, memory, heap } = side
  const windows = heap.every((window) => window !== undefined) ? (heap as ReadonlyArray<HeapWindow>) : []
  const heapWall = sum(windows.map((window) => window.wallMs))
  return {
    requestsPerSecond: mean(runs.map((m) => m.requestsPerSecond)),
    p50Ms: median(runs.map((m) => m.p50Ms)),
    p99Ms: median(runs.map((m) => m.p99Ms)),
    totalRequests: runs.reduce((total, m) => total + m.totalRequests, 0),
    non2xx: runs.reduce((total, m) => total + m.non2xx, 0),
    errors: runs.reduce((total, m) => total + m.errors, 0),
    peakRssMiB: peak(memory),
    cpuMsPerRequest: perRequest(runs, memory.map((m) => m.cpuMs)),
    databaseCpuMsPerRequest: perRequest(runs, memory.map((m) => m.databaseCpuMs)),
    allocatedKiBPerRequest:
      windows.length === 0 ? undefined : measuredPerRequest(runs, windows.map((window) => window.allocatedBytes / 1024)),
    gcShareOfMainThread: windows.length === 0 || heapWall <= 0 ? undefined : sum(windows.map((window) => window.gcMs)) / heapWall,
    gcMsPerRequest: windows.length === 0 ? undefined : measuredPerRequest(runs, windows.map((window) => window.gcMs))
  }
}

const fixed = (value: number, digits: number): string => (Number.isFinite(value) ? value.toFixed(digits) : "n/a")

const optional = (value: number | undefined, digits: number): string => (value === undefined ? "n/a" : fixed(value, digits))

const percent = (value: number | undefined): string => (value === undefined ? "n/a" : `${fixed(value * 100, 0)} %`)

/** Whole numbers with thousands separators (`1,234`). */
const count = (value: number): string => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "n/a")

/** autocannon's latencies are whole milliseconds; a median of two rounds may be a half. */
const millis = (value: number): string => (Number.isInteger(value) ? String(value) : fixed(value, 1))

const ratioOf = (ours: number, other: number): number => (other > 0 ? ours / other : Number.NaN)

const row = (cells: ReadonlyArray<string>): string => `| ${cells.join(" | ")} |`

const verdict = (met: boolean | undefined): string => (met === undefined ? "" : met ? "yes" : "**no**")

/** Three figures, ours / peer / baseline (the peer's "-" where it does not serve the path). */
const triple = (ours: string, peer: string | undefined, baseline: string): string => `${ours} / ${peer ?? "-"} / ${baseline}`

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
  const firstRate = summarize(first.ours).requestsPerSecond
  const deepRate = summarize(deep.ours).requestsPerSecond
  return { slowdown: ratioOf(firstRate, deepRate), firstRate, deepRate }
}

/** The verdicts of one path's requirement: against the peer (req/s, then CPU per request) and the baseline. */
const pathVerdicts = (c: Comparison): ReadonlyArray<Verdict> => {
  const requirement = c.requirement
  if (requirement === undefined) return []
  const ours = summarize(c.ours)
  const base = summarize(c.baseline)
  const out: Array<Verdict> = []
  if (requirement.peer !== undefined && c.peer !== undefined) {
    const peer = summarize(c.peer)
    const rate = ratioOf(ours.requestsPerSecond, peer.requestsPerSecond)
    out.push({ what: `${c.target} req/s ours / peer`, value: `${fixed(rate, 2)}x`, limit: `>= ${fixed(requirement.peer, 2)}x`, met: rate >= requirement.peer })
    if (ours.cpuMsPerRequest !== undefined && peer.cpuMsPerRequest !== undefined) {
      const cpu = ratioOf(peer.cpuMsPerRequest, ours.cpuMsPerRequest)
      out.push({
        what: `${c.target} CPU per request peer / ours`,
        value: `${fixed(cpu, 2)}x`,
        limit: `>= ${fixed(requirement.peer, 2)}x`,
        met: cpu >= requirement.peer
      })
    }
  }
  const ratio = ratioOf(ours.requestsPerSecond, base.requestsPerSecond)
  out.push({
    what: `${c.target} req/s ours / baseline`,
    value: `${fixed(ratio, 2)}x`,
    limit: `>= ${fixed(requirement.baseline, 2)}x`,
    met: ratio >= requirement.baseline
  })
  return out
}

/** Every threshold that the measured targets allow to judge. */
export const verdicts = (comparisons: ReadonlyArray<Comparison>): ReadonlyArray<Verdict> => {
  const out: Array<Verdict> = comparisons.flatMap(pathVerdicts)
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

const HEADER = [
  "path",
  "req/s ours / peer / baseline",
  "ours / peer",
  "ours / baseline",
  "CPU ms per request ours / peer / baseline",
  "PostgreSQL CPU ms per request ours / peer / baseline",
  "p99 ms ours / peer / baseline",
  "KiB allocated per request ours / peer / baseline",
  "GC ms per request ours / peer / baseline",
  "GC share of the main thread ours / peer / baseline",
  "must hold",
  "met"
] as const

const requirementText = (requirement: Requirement | undefined): string =>
  requirement === undefined
    ? ""
    : [
        requirement.peer === undefined ? undefined : `>= ${fixed(requirement.peer, 1)}x peer (req/s and CPU)`,
        `>= ${fixed(requirement.baseline, 1)}x baseline`
      ]
        .filter((text) => text !== undefined)
        .join(", ")

/** The table: one row per path, then the deep page against the first page, then memory. */
export const markdownTable = (comparisons: ReadonlyArray<Comparison>): string => {
  const blank = (cells: ReadonlyArray<string>) => [...cells, ...Array<string>(HEADER.length - cells.length).fill("")]
  const lines = [row(HEADER), row(["---", ...Array<string>(HEADER.length - 3).fill("---:"), "---:", "---"])]
  for (const c of comparisons) {
    const ours = summarize(c.ours)
    const peer = c.peer === undefined ? undefined : summarize(c.peer)
    const base = summarize(c.baseline)
    const judged = pathVerdicts(c)
    lines.push(
      row([
        c.label,
        triple(count(ours.requestsPerSecond), peer === undefined ? undefined : count(peer.requestsPerSecond), count(base.requestsPerSecond)),
        peer === undefined ? "-" : `${fixed(ratioOf(ours.requestsPerSecond, peer.requestsPerSecond), 2)}x`,
        `${fixed(ratioOf(ours.requestsPerSecond, base.requestsPerSecond), 2)}x`,
        triple(optional(ours.cpuMsPerRequest, 2), peer && optional(peer.cpuMsPerRequest, 2), optional(base.cpuMsPerRequest, 2)),
        triple(
          optional(ours.databaseCpuMsPerRequest, 2),
          peer && optional(peer.databaseCpuMsPerRequest, 2),
          optional(base.databaseCpuMsPerRequest, 2)
        ),
        triple(millis(ours.p99Ms), peer && millis(peer.p99Ms), millis(base.p99Ms)),
        triple(
          optional(ours.allocatedKiBPerRequest, 0),
          peer && optional(peer.allocatedKiBPerRequest, 0),
          optional(base.allocatedKiBPerRequest, 0)
        ),
        triple(optional(ours.gcMsPerRequest, 2), peer && optional(peer.gcMsPerRequest, 2), optional(base.gcMsPerRequest, 2)),
        triple(percent(ours.gcShareOfMainThread), peer && percent(peer.gcShareOfMainThread), percent(base.gcShareOfMainThread)),
        requirementText(c.requirement),
        judged.length === 0 ? "" : verdict(judged.every((v) => v.met))
      ])
    )
  }
  const deep = deepAgainstFirst(comparisons)
  if (deep !== undefined) {
    lines.push(
      row(
        blank([
          "send-queue: deep page against first page (ours)",
          `${count(deep.deepRate)} (deep) / ${count(deep.firstRate)} (first)`,
          "",
          `${fixed(deep.slowdown, 2)}x slower`,
          ...Array<string>(HEADER.length - 6).fill(""),
          `<= ${fixed(DEEP_PAGE_MAX_SLOWDOWN, 1)}x slower`,
          verdict(deep.slowdown <= DEEP_PAGE_MAX_SLOWDOWN)
        ])
      )
    )
  }
  const rssRow = (label: string, judged: boolean, selection: ReadonlyArray<Comparison>) => {
    const oursRss = peak(selection.flatMap((c) => c.ours.memory))
    const peerRss = peak(selection.flatMap((c) => c.peer?.memory ?? []))
    const baselineRss = peak(selection.flatMap((c) => c.baseline.memory))
    if (oursRss === undefined) return
    lines.push(
      row([
        label,
        triple(fixed(oursRss, 0), peerRss === undefined ? undefined : fixed(peerRss, 0), optional(baselineRss, 0)),
        peerRss === undefined ? "" : `${fixed(ratioOf(oursRss, peerRss), 2)}x`,
        baselineRss === undefined ? "" : `${fixed(ratioOf(oursRss, baselineRss), 2)}x`,
        ...Array<string>(HEADER.length - 6).fill(""),
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
    row(["path", "round", "req/s ours / peer / baseline", "ours / peer", "ours / baseline", "p99 ours / peer / baseline", "ours peak RSS (MiB)"]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:"])
  ]
  for (const c of comparisons) {
    c.ours.runs.forEach((ours, index) => {
      const base = c.baseline.runs[index]
      const peer = c.peer?.runs[index]
      lines.push(
        row([
          c.target,
          String(index + 1),
          triple(
            count(ours.requestsPerSecond),
            peer === undefined ? undefined : count(peer.requestsPerSecond),
            base === undefined ? "n/a" : count(base.requestsPerSecond)
          ),
          peer === undefined ? "-" : `${fixed(ratioOf(ours.requestsPerSecond, peer.requestsPerSecond), 2)}x`,
          base === undefined ? "n/a" : `${fixed(ratioOf(ours.requestsPerSecond, base.requestsPerSecond), 2)}x`,
          triple(millis(ours.p99Ms), peer === undefined ? undefined : millis(peer.p99Ms), base === undefined ? "n/a" : millis(base.p99Ms)),
          fixed(c.ours.memory[index]?.peakMiB ?? Number.NaN, 0)
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
    `- ${info.rounds} interleaved rounds: each round measures every path on the product, on the conventional peer (Fastify 5 + jose + kysely, \`bench-peer/\`) and on the plain baseline (node:http + pg), one after the other (the order rotates by round, so drift of the machine falls on all alike). autocannon, ${settings.connections} connections, pipelining ${settings.pipelining}, ${settings.warmupSeconds} s warm-up (dropped) then ${settings.durationSeconds} s measured per side and round.`,
    "- req/s is the mean of the rounds' averages; p99 is the median of the rounds' response latencies in milliseconds. CPU ms per request is the server process's user + system time over its rounds (warm-ups included) divided by the requests it answered: other load on the machine disturbs it far less than req/s. PostgreSQL CPU ms per request is the same for the local postgres processes over the same rounds: where the sides run the same statements it should match, and the server's own CPU is then what separates them.",
    "- KiB allocated per request and GC share: every server runs with the heap probe (`internal/HeapProbe.ts`, `node --import`), a `v8.GCProfiler` window around each side's measured load (the warm-up left out, so what the first requests compile and cache is not counted): bytes its JavaScript heap allocated (used heap at the end − at the start + what each collection freed) per request answered, and the main thread's collection pauses (V8's own timing of each pause, wall time on the main thread) per request and as a share of the windows' wall time. On a machine where other work takes the cores, a pause also counts the time the thread was descheduled in it; the allocation is not disturbed by other load.",
    "- Ratios compare the product with the peer and with the baseline in the same run on the same database: below 1x means slower. \"ours / peer\" >= 1.0 and \"ours / baseline\" >= 0.7 are issue 27's thresholds on token, send-queue, pass and report-payment (the peer's CPU per request is judged too: peer / ours >= 1.0).",
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
        const ours = summarize(c.ours)
        const peer = c.peer === undefined ? null : summarize(c.peer)
        const baseline = summarize(c.baseline)
        return {
          target: c.target,
          label: c.label,
          requirement: c.requirement ?? null,
          ours,
          peer,
          baseline,
          requestsPerSecondRatio: baseline.requestsPerSecond > 0 ? ours.requestsPerSecond / baseline.requestsPerSecond : null,
          peerRequestsPerSecondRatio:
            peer !== null && peer.requestsPerSecond > 0 ? ours.requestsPerSecond / peer.requestsPerSecond : null,
          rounds: { ours: c.ours, peer: c.peer ?? null, baseline: c.baseline }
        }
      })
    },
    null,
    2
  )}\n`
