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
 */
import { Cause, Config, Effect, FiberRef, FiberRefs, HashMap, Layer, Logger, LogLevel } from "effect"
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

/** Where lines go: stdout, one write per line (a test passes its own). */
export type LogSink = (line: string) => void

const stdout: LogSink = (line) => {
  process.stdout.write(`${line}\n`)
}

/** One JSON object per line. */
export const jsonLogger = (sink: LogSink = stdout) =>
  Logger.make<unknown, void>((options) => sink(JSON.stringify(fieldsOf(options))))

const shown = (value: unknown): string => {
  const text = typeof value === "string" ? value : JSON.stringify(value)
  return /[\s"=]/.test(text) ? JSON.stringify(text) : text
}

/** `HH:MM:SS.mmm LEVEL msg key=value …`; a cause on the lines after. */
export const prettyLogger = (sink: LogSink = stdout) =>
  Logger.make<unknown, void>((options) => {
  const { time, level, msg, error, ...rest } = fieldsOf(options)
  const pairs = Object.entries(rest).map(([key, value]) => `${key}=${shown(value)}`)
  const head = [String(time).slice(11, 23), String(level).toUpperCase().padEnd(5), msg, ...pairs]
    .filter((part) => part !== undefined)
    .join(" ")
  sink(`${head}${error === undefined ? "" : `\n${String(error)}`}`)
})

/** The logger for `format`, writing lines at least as severe as `level` to `sink` (stdout by default). */
export const layer = (format: LogFormat, level: LogLevel.LogLevel, sink: LogSink = stdout): Layer.Layer<never> =>
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
