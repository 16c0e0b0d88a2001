/**
 * Traces and metrics over OpenTelemetry's OTLP/HTTP (issue 23, item 3), through `@effect/opentelemetry`'s OTLP
 * exporters (`OtlpTracer`, `OtlpMetrics`: Effect's own spans and metrics, no OpenTelemetry SDK in the process).
 *
 * On only when `OTEL_EXPORTER_OTLP_ENDPOINT` is set (the collector's base address; traces go to `…/v1/traces`,
 * metrics to `…/v1/metrics`). Off, nothing is recorded: spans are switched off (`Layer.setTracerEnabled(false)`,
 * the HTTP platform's span per request is skipped, no SQL span is made) and no metric is updated, so the hot paths
 * cost what they cost before (docs/performance.md).
 *
 * On:
 * - spans: one per request (`http.server <method>`, with `http.route` and the status), one per service and repository
 *   call (their `Effect.withSpan`, `platform/Spans`), one per SQL statement (`sql.query`, `sql.transaction`,
 *   `@propline/db/Db`); an incoming `traceparent` (W3C) continues the caller's trace;
 * - metrics: `http.server.requests` (count, by host route, method and status), `http.server.request.duration`
 *   (histogram, seconds), `db.client.connections.usage` (by state `idle` / `used`) and
 *   `db.client.connections.pending_requests` (PostgreSQL pool, sampled at each export).
 *
 * Settings (OpenTelemetry's standard variables): `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf`, the default, or
 * `http/json`), `OTEL_SERVICE_NAME` (default `propline`), `OTEL_BSP_SCHEDULE_DELAY` (ms between span exports,
 * default 5000), `OTEL_METRIC_EXPORT_INTERVAL` (ms between metric exports, default 60000).
 */
import * as OtlpMetrics from "@effect/opentelemetry/OtlpMetrics"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Db from "@propline/db/Db"
import { Config, Duration, Effect, FiberRef, Layer, Metric, Option, Schedule, type Scope } from "effect"

/** Whether metrics are recorded in this fiber (set for the whole process when telemetry is on). */
export const currentMetricsEnabled = FiberRef.unsafeMake(false)

export interface TelemetrySettings {
  readonly endpoint: string
  readonly protocol: "http/protobuf" | "http/json"
  readonly serviceName: string
  readonly spanExportMillis: number
  readonly metricExportMillis: number
}

/** The settings from the environment; none when `OTEL_EXPORTER_OTLP_ENDPOINT` is unset (telemetry off). */
export const settingsFromEnv: Effect.Effect<Option.Option<TelemetrySettings>> = Effect.gen(function* () {
  const endpoint = yield* Config.string("OTEL_EXPORTER_OTLP_ENDPOINT").pipe(Config.option)
  if (Option.isNone(endpoint) || endpoint.value.trim() === "") return Option.none()
  return Option.some({
    endpoint: endpoint.value.trim().replace(/\/+$/, ""),
    protocol: yield* Config.literal("http/protobuf", "http/json")("OTEL_EXPORTER_OTLP_PROTOCOL").pipe(
      Config.withDefault("http/protobuf" as const)
    ),
    serviceName: yield* Config.string("OTEL_SERVICE_NAME").pipe(Config.withDefault("propline")),
    spanExportMillis: yield* Config.integer("OTEL_BSP_SCHEDULE_DELAY").pipe(Config.withDefault(5_000)),
    metricExportMillis: yield* Config.integer("OTEL_METRIC_EXPORT_INTERVAL").pipe(Config.withDefault(60_000))
  })
}).pipe(Effect.orDie)

const connections = Metric.gauge("db.client.connections.usage", {
  description: "Connections of the PostgreSQL pool, by state (idle, used)."
})
const pending = Metric.gauge("db.client.connections.pending_requests", {
  description: "Statements waiting for a connection of the PostgreSQL pool."
})

/** Samples the pool's gauges every `millis` for as long as the scope lasts (PostgreSQL only). */
export const samplePool = (millis: number): Effect.Effect<void, never, Db.Db | Scope.Scope> =>
  Effect.flatMap(Db.Db, (db) => {
    const pool = db.poolStats
    if (pool === undefined) return Effect.void
    const sample = Effect.suspend(() => {
      const stats = pool()
      return Effect.all([
        Metric.set(Metric.tagged(connections, "state", "idle"), stats.idle),
        Metric.set(Metric.tagged(connections, "state", "used"), stats.total - stats.idle),
        Metric.set(pending, stats.waiting)
      ])
    })
    return Effect.asVoid(Effect.forkScoped(Effect.repeat(sample, Schedule.spaced(Duration.millis(millis)))))
  })

/** The exporters, the tracer switched on and metrics recorded, for `settings`. */
export const layer = (settings: TelemetrySettings): Layer.Layer<never> => {
  const resource = { serviceName: settings.serviceName, attributes: { "process.pid": process.pid } }
  return Layer.mergeAll(
    OtlpTracer.layer({
      url: `${settings.endpoint}/v1/traces`,
      resource,
      exportInterval: Duration.millis(settings.spanExportMillis)
    }),
    OtlpMetrics.layer({
      url: `${settings.endpoint}/v1/metrics`,
      resource,
      exportInterval: Duration.millis(settings.metricExportMillis)
    }),
    Layer.setTracerEnabled(true),
    Layer.locallyScoped(currentMetricsEnabled, true)
  ).pipe(
    Layer.provide(settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf),
    Layer.provide(FetchHttpClient.layer)
  )
}

/** {@link layer} when the environment asks for telemetry, spans switched off otherwise. */
export const fromEnv: Layer.Layer<never> = Layer.unwrapEffect(
  Effect.map(settingsFromEnv, Option.match({ onNone: () => Layer.setTracerEnabled(false), onSome: layer }))
)
