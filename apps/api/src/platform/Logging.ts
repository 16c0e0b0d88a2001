/**
 * The process's logger (issue 23, item 2), replacing Effect's default text lines. Every line has `time` (ISO 8601,
 * UTC), `level` (`debug`, `info`, `warn`, `error`, `fatal`), `msg`, and inside a request its `requestId`; a line
 * with a cause adds `error` (the cause, rendered with its stack). A message that is a plain object (the access log's,
 * `platform/RequestLog`) gives its fields to the line. Log annotations are added as fields.
 *
 * - `LOG_FORMAT=json`: one JSON object per line on stdout, for a log collector.
 * - `LOG_FORMAT=pretty`: `HH:MM:SS.mmm LEVEL msg key=value …`, for a person at a terminal.
 * - Unset: `pretty` when stdout is a terminal (the demo's `pnpm start`), `json` otherwise (a container, a service
 *   manager, a pipe), as an operator's tooling expects.
 * - `LOG_LEVEL`: the least severe level written, `debug`, `info` (default), `warn`, `error` or `none`.
 *
 * A malformed value stops the start (Effect's configuration error names the variable).
 *
 * Lines reach stdout in batches ({@link stdout}): those logged in one turn of the event loop are one write, and the
 * lines held are written before the process exits (issue 27: a `write` system call per request, otherwise).
 */
import { Cause, Config, Effect, FiberRef, FiberRefs, HashMap, Layer, Logger, LogLevel } from "effect"
import { writeSync } from "node:fs"
import { requestStateOf } from "./RequestLog.js"

export type LogFormat = "json" | "pretty"

const LEVELS = { debug: LogLevel.Debug, info: LogLevel.Info, warn: LogLevel.Warning, error: LogLevel.Error, none: LogLevel.None }

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && Object.getPrototypeOf(value) === Object.prototype

/** A line's `level` for Effect's level label (`WARN` is `warn`, the others their label in lower case). */
const LEVEL_NAMES: Readonly<Record<string, string>> = {
  ALL: "all",
  FATAL: "fatal",
  ERROR: "error",
  WARN: "warn",
  INFO: "info",
  DEBUG: "debug",
  TRACE: "trace",
  OFF: "off"
}

/** The fields of one line, in the order they are written. */
const fieldsOf = (options: Logger.Logger.Options<unknown>): Record<string, unknown> => {
  const label = options.logLevel.label
  const line: Record<string, unknown> = {
    time: options.date.toISOString(),
    level: LEVEL_NAMES[label] ?? label.toLowerCase()
  }
  const request = requestStateOf(FiberRefs.getOrDefault(options.context, FiberRef.currentContext))
  if (request !== undefined) line["requestId"] = request.id
  // The texts joined by spaces; most lines have one part (the access log's: one record, no text).
  let msg: string | undefined
  const parts = Array.isArray(options.message) ? options.message : [options.message]
  for (const part of parts) {
    if (isRecord(part)) Object.assign(line, part)
    else {
      const text = typeof part === "string" ? part : String(part)
      msg = msg === undefined ? text : `${msg} ${text}`
    }
  }
  if (msg !== undefined) line["msg"] = msg
  if (HashMap.size(options.annotations) > 0) {
    for (const [key, value] of HashMap.toEntries(options.annotations)) line[key] = value
  }
  if (!Cause.isEmpty(options.cause)) line["error"] = Cause.pretty(options.cause, { renderErrorCause: true })
  return line
}

/** Where lines go, one call per line, without its newline: the process's stdout by default ({@link stdout}); a test passes its own. */
export type LogSink = (line: string) => void

/** A {@link LogSink} that holds lines and writes them in batches, with the means to write what it holds now. */
export interface BufferedSink {
  readonly sink: LogSink
  /** Writes the lines held, in one synchronous call of the sink's `write`; nothing when none is held. */
  readonly flush: () => void
  /** The characters held (UTF-16 code units, newlines included). */
  readonly held: () => number
}

/** {@link buffered}'s defaults: at most this many characters held before they are written at once. */
export const DEFAULT_MAX_HELD = 16 * 1024

/**
 * Lines held and written together, in the order they were logged: the first line held schedules one `write` of every
 * line held at the end of the event loop's turn (`setImmediate`), so a burst of requests answered in one turn costs
 * one write instead of one per line (issue 27: a `write(1, …)` system call per request). A line that brings the
 * text held past `maxHeld` characters writes it all at once, synchronously: memory stays bounded however fast lines
 * come. `write` receives whole lines, each ending in `\n`, and must write them before it returns or queue them in
 * order (`process.stdout.write` does either).
 */
export const buffered = (write: (text: string) => void, maxHeld: number = DEFAULT_MAX_HELD): BufferedSink => {
  let text = ""
  let scheduled = false
  const flush = () => {
    if (text.length === 0) return
    const out = text
    text = ""
    write(out)
  }
  const turnEnded = () => {
    scheduled = false
    flush()
  }
  const sink: LogSink = (line) => {
    text += `${line}\n`
    if (text.length > maxHeld) flush()
    else if (!scheduled) {
      scheduled = true
      setImmediate(turnEnded)
    }
  }
  return { sink, flush, held: () => text.length }
}

/**
 * Writes `text` to file descriptor `fd` before it returns, whole: a partial write is continued, and a pipe that is
 * full (`EAGAIN`, its reader behind) is retried after a millisecond's wait, for at most `patienceMs` in all (then the
 * rest is given up: a process that exits cannot wait for a reader that never reads).
 */
export const writeFully = (fd: number, text: string, patienceMs = 10_000): void => {
  const bytes = Buffer.from(text, "utf8")
  const deadline = Date.now() + patienceMs
  let offset = 0
  while (offset < bytes.length) {
    try {
      offset += writeSync(fd, bytes, offset, bytes.length - offset)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EAGAIN" || Date.now() > deadline) return
      Atomics.wait(pause, 0, 0, 1)
    }
  }
}

const pause = new Int32Array(new SharedArrayBuffer(4))

let exiting = false

const toStdout = (text: string) => {
  // Once the process exits, the event loop no longer runs: a write Node would queue (a full pipe) would be lost.
  if (exiting && process.stdout.writableLength === 0) writeFully(1, text)
  else process.stdout.write(text)
}

const shared = buffered(toStdout)

let hooked = false

/**
 * The process's stdout as the loggers' default sink: {@link buffered}, so lines logged in one turn of the event loop
 * are one write. None is lost: what is held is written synchronously when the process exits (`process.exit`, the end
 * of a SIGTERM drain through `NodeRuntime.runMain`, an uncaught exception: Node's `exit` event; the exit hook is
 * installed with the first line), and every line logged after that is written at once.
 */
export const stdout: BufferedSink = {
  sink: (line) => {
    if (!hooked) {
      hooked = true
      process.on("exit", () => {
        exiting = true
        shared.flush()
      })
    }
    if (exiting) {
      shared.flush()
      toStdout(`${line}\n`)
    } else shared.sink(line)
  },
  flush: shared.flush,
  held: shared.held
}

/** One JSON object per line. */
export const jsonLogger = (sink: LogSink = stdout.sink) =>
  Logger.make<unknown, void>((options) => sink(JSON.stringify(fieldsOf(options))))

const shown = (value: unknown): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value)
  return /[\s"=]/.test(text) ? JSON.stringify(text) : text
}

/** `HH:MM:SS.mmm LEVEL msg key=value …`; a cause on the lines after. */
export const prettyLogger = (sink: LogSink = stdout.sink) =>
  Logger.make<unknown, void>((options) => {
  const { time, level, msg, error, ...rest } = fieldsOf(options)
  const pairs = Object.entries(rest).map(([key, value]) => `${key}=${shown(value)}`)
  const head = [String(time).slice(11, 23), String(level).toUpperCase().padEnd(5), msg, ...pairs]
    .filter((part) => part !== undefined)
    .join(" ")
  sink(`${head}${error === undefined ? "" : `\n${String(error)}`}`)
})

/** The logger for `format`, writing lines at least as severe as `level` to `sink` (stdout by default). */
export const layer = (format: LogFormat, level: LogLevel.LogLevel, sink: LogSink = stdout.sink): Layer.Layer<never> =>
  Layer.merge(
    Logger.replace(Logger.defaultLogger, format === "json" ? jsonLogger(sink) : prettyLogger(sink)),
    Logger.minimumLogLevel(level)
  )

/** `LOG_FORMAT` and `LOG_LEVEL` (see the module comment). */
export const fromEnv: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const format = yield* Config.literal("json", "pretty")("LOG_FORMAT").pipe(
      Config.withDefault<LogFormat>(process.stdout.isTTY ? "pretty" : "json")
    )
    const level = yield* Config.literal("debug", "info", "warn", "error", "none")("LOG_LEVEL").pipe(
      Config.withDefault("info" as const)
    )
    return layer(format, LEVELS[level])
  }).pipe(Effect.orDie)
)
