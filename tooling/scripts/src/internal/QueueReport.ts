/**
 * The figures of `pnpm bench:queues` (issue 22: pg-boss or graphile-worker, measured) and their Markdown table: per
 * queue and round, the batch enqueue rate, the backlog's drain, enqueue → start latency at a steady rate, and the
 * worker process's CPU per job; across rounds, the median of each figure. Pure: no I/O.
 */

/** The two queues compared. */
export type QueueName = "pg-boss" | "graphile-worker"

/** One round of one queue. Times in ms, rates per second. */
export interface RoundFigures {
  readonly queue: QueueName
  /** Jobs inserted as one backlog, in batches. */
  readonly backlog: number
  /** Backlog jobs inserted per second (batch insert). */
  readonly enqueuePerSecond: number
  /** From the first backlog job's start to the last one's, ms. */
  readonly drainMs: number
  /** Backlog jobs performed per second over {@link drainMs}. */
  readonly drainPerSecond: number
  /** Worker process CPU (user + system) per backlog job, ms. */
  readonly drainCpuMsPerJob: number
  /** Jobs enqueued one at a time at the steady rate. */
  readonly steadyJobs: number
  /** Enqueue → start (the worker's handler began), p50 and p99, ms. */
  readonly p50Ms: number
  readonly p99Ms: number
  /** Worker process CPU per steady job, ms (idle polling included). */
  readonly steadyCpuMsPerJob: number
}

/** The nearest-rank percentile `p` (0 < p ≤ 100) of ascending `sorted`; NaN when empty. */
export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!

/** The median of `values` (the mean of the middle two for an even count); NaN when empty. */
export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/**
 * The order of `rounds` rounds of two sides, interleaved so that neither always runs first or on a warmer machine:
 * A B, B A, A B, … (`["a", "b", "b", "a"]` for 2).
 */
export const interleaved = <A>(a: A, b: A, rounds: number): ReadonlyArray<A> =>
  Array.from({ length: rounds }, (_, round) => (round % 2 === 0 ? [a, b] : [b, a])).flat()

/** The median of each figure of one queue's rounds. */
export const summarizeQueue = (rounds: ReadonlyArray<RoundFigures>): Omit<RoundFigures, "queue"> & { readonly rounds: number } => {
  const of = (pick: (round: RoundFigures) => number) => median(rounds.map(pick))
  return {
    rounds: rounds.length,
    backlog: of((round) => round.backlog),
    enqueuePerSecond: of((round) => round.enqueuePerSecond),
    drainMs: of((round) => round.drainMs),
    drainPerSecond: of((round) => round.drainPerSecond),
    drainCpuMsPerJob: of((round) => round.drainCpuMsPerJob),
    steadyJobs: of((round) => round.steadyJobs),
    p50Ms: of((round) => round.p50Ms),
    p99Ms: of((round) => round.p99Ms),
    steadyCpuMsPerJob: of((round) => round.steadyCpuMsPerJob)
  }
}

const ratio = (ours: number, theirs: number) => (Number.isFinite(ours / theirs) ? `${(ours / theirs).toFixed(2)}` : "–")
const whole = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString("en") : "–")
const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : "–")

/** What the table's heading line says about the run. */
export interface RunSettings {
  readonly date: string
  readonly machine: string
  readonly concurrency: number
  readonly work: string
  readonly rate: number
  readonly seconds: number
  /** Set when the run is not at the default size or the machine was not quiet: printed in bold above the table. */
  readonly caveat?: string
}

/**
 * The Markdown section: a line on the run, then one row per figure with pg-boss, graphile-worker and their ratio
 * (medians over the rounds of each).
 */
export const queuesTable = (settings: RunSettings, rounds: ReadonlyArray<RoundFigures>): string => {
  const boss = summarizeQueue(rounds.filter((round) => round.queue === "pg-boss"))
  const graphile = summarizeQueue(rounds.filter((round) => round.queue === "graphile-worker"))
  const row = (label: string, a: string, b: string, r: string) => `| ${label} | ${a} | ${b} | ${r} |`
  return [
    ...(settings.caveat === undefined ? [] : [`**${settings.caveat}**`, ""]),
    `Last run: ${settings.date}, ${settings.machine}.`,
    `${boss.rounds} + ${graphile.rounds} rounds, interleaved; the median of each figure. Work per job: ${settings.work};`,
    `${settings.concurrency} jobs at once per worker process.`,
    "",
    "| | pg-boss | graphile-worker | pg-boss / graphile-worker |",
    "| --- | ---: | ---: | ---: |",
    row(`enqueue, batch insert of ${whole(boss.backlog)} jobs (jobs/s)`, whole(boss.enqueuePerSecond), whole(graphile.enqueuePerSecond), ratio(boss.enqueuePerSecond, graphile.enqueuePerSecond)),
    row("backlog drained in (s)", fixed(boss.drainMs / 1000, 1), fixed(graphile.drainMs / 1000, 1), ratio(boss.drainMs, graphile.drainMs)),
    row("backlog jobs/s", whole(boss.drainPerSecond), whole(graphile.drainPerSecond), ratio(boss.drainPerSecond, graphile.drainPerSecond)),
    row("worker CPU per backlog job (ms)", fixed(boss.drainCpuMsPerJob, 3), fixed(graphile.drainCpuMsPerJob, 3), ratio(boss.drainCpuMsPerJob, graphile.drainCpuMsPerJob)),
    row(`enqueue → start p50, ${settings.rate} jobs/s for ${settings.seconds} s (ms)`, whole(boss.p50Ms), whole(graphile.p50Ms), ratio(boss.p50Ms, graphile.p50Ms)),
    row("enqueue → start p99 (ms)", whole(boss.p99Ms), whole(graphile.p99Ms), ratio(boss.p99Ms, graphile.p99Ms)),
    row("worker CPU per steady job, idle polling included (ms)", fixed(boss.steadyCpuMsPerJob, 3), fixed(graphile.steadyCpuMsPerJob, 3), ratio(boss.steadyCpuMsPerJob, graphile.steadyCpuMsPerJob))
  ].join("\n")
}
