/**
 * The webhooks' settings, read from the environment once (docs/configuration.md):
 *
 * | variable | default | meaning |
 * | --- | --- | --- |
 * | WEBHOOK_CONCURRENCY | 10 | deliveries one worker process makes at once (pg-boss workers polling the queue) |
 * | WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS | true on embedded PGlite, false with DATABASE_URL | allow http:// and loopback, private, link-local addresses (local receivers: the demo, tests) |
 * | WEBHOOK_TIMEOUT_SECONDS | 10 | one attempt's limit, from connecting to the end of the (capped) response read |
 * | WEBHOOK_RETRY_SCALE | 1 | multiplies the retry schedule and the auto-disable period (tests run them in milliseconds) |
 */
import { Config, Context, Effect, Layer } from "effect"

export interface WebhookSettingsShape {
  readonly concurrency: number
  readonly allowPrivateDestinations: boolean
  readonly timeoutMs: number
  readonly retryScale: number
  /** How long a claimed job may stay claimed before another worker takes it over (a worker that died), seconds. */
  readonly jobExpireSeconds: number
  /** How often pg-boss looks for such expired jobs, seconds. */
  readonly superviseSeconds: number
  /** How often an idle worker polls for jobs, seconds (at least 0.5). */
  readonly pollingSeconds: number
}

/** Settings from the timeout and scale: a claim outlives the slowest attempt, and is looked at about as often. */
export const makeSettings = (input: {
  readonly concurrency?: number
  readonly allowPrivateDestinations: boolean
  readonly timeoutMs?: number
  readonly retryScale?: number
  readonly pollingSeconds?: number
}): WebhookSettingsShape => {
  const timeoutMs = input.timeoutMs ?? 10_000
  const jobExpireSeconds = Math.ceil((2 * timeoutMs) / 1000) + 5
  return {
    concurrency: input.concurrency ?? 10,
    allowPrivateDestinations: input.allowPrivateDestinations,
    timeoutMs,
    retryScale: input.retryScale ?? 1,
    jobExpireSeconds,
    superviseSeconds: Math.max(1, Math.min(60, Math.ceil(jobExpireSeconds / 3))),
    pollingSeconds: input.pollingSeconds ?? 0.5
  }
}

export class WebhookSettings extends Context.Tag("@propline/api/webhooks/WebhookSettings")<WebhookSettings, WebhookSettingsShape>() {
  /** Reads the environment (see the table above). */
  static readonly fromEnv: Layer.Layer<WebhookSettings> = Layer.effect(
    WebhookSettings,
    Effect.gen(function* () {
      const embedded = (yield* Config.string("DATABASE_URL").pipe(Config.withDefault(""))) === ""
      return makeSettings({
        concurrency: yield* Config.integer("WEBHOOK_CONCURRENCY").pipe(
          Config.validate({ message: "must be from 1 to 1000", validation: (n) => n >= 1 && n <= 1000 }),
          Config.withDefault(10)
        ),
        allowPrivateDestinations: yield* Config.boolean("WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS").pipe(Config.withDefault(embedded)),
        timeoutMs:
          1000 *
          (yield* Config.number("WEBHOOK_TIMEOUT_SECONDS").pipe(
            Config.validate({ message: "must be from 0.1 to 60", validation: (n) => n >= 0.1 && n <= 60 }),
            Config.withDefault(10)
          )),
        retryScale: yield* Config.number("WEBHOOK_RETRY_SCALE").pipe(
          Config.validate({ message: "must be above 0 and at most 1", validation: (n) => n > 0 && n <= 1 }),
          Config.withDefault(1)
        )
      })
    }).pipe(Effect.orDie)
  )

  static readonly layer = (settings: WebhookSettingsShape): Layer.Layer<WebhookSettings> => Layer.succeed(WebhookSettings, settings)
}
