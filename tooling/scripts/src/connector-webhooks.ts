/**
 * The example webhook receiver (issue 22, item 8): subscribes a local endpoint to every event of the demo
 * organization (as the demo operator, through the console's API: `WebhookSubscription.ts`), listens on it, verifies
 * each delivery with the Standard Webhooks reference library and prints what arrives — run it beside `pnpm start`
 * and the other examples (`pnpm connector:example`, `pnpm booking:example`, …) to watch their changes come in.
 *
 *   pnpm connector:webhooks                      # reads .data/demo-operator.json, listens on 127.0.0.1:4100
 *   WEBHOOK_RECEIVER_PORT=4200 pnpm connector:webhooks
 *
 * The product must allow private destinations for a local receiver: it does on embedded PGlite (the default of
 * `pnpm start`); with DATABASE_URL set WEBHOOKS_ALLOW_PRIVATE_DESTINATIONS=true. Events that happen while the
 * receiver is stopped are retried on the product's schedule; the console's "Redeliver since" sends them at once.
 */
import { Effect } from "effect"
import * as path from "node:path"
import { readDemoOperator } from "./DemoCredentialsFile.js"
import { describeDelivery, startWebhookReceiver } from "./WebhookReceiver.js"
import { ensureSubscription } from "./WebhookSubscription.js"

const port = Number(process.env["WEBHOOK_RECEIVER_PORT"] ?? "4100")
const url = `http://127.0.0.1:${port}/webhooks`
const dataDir = process.env["DATA_DIR"] ?? ".data"
const operator = readDemoOperator()

const main = async () => {
  const subscription = await Effect.runPromise(ensureSubscription({ operator, url, dataDir }))
  const receiver = await startWebhookReceiver({
    secret: subscription.secret,
    port,
    onDelivery: (delivery) => console.log(describeDelivery(delivery)),
    onRejected: (rejected) => console.log(`${new Date().toISOString()} refused (${rejected.status}): ${rejected.reason}`)
  })
  console.log(
    [
      `Webhook receiver listening at ${receiver.url}`,
      `  endpoint ${subscription.endpoint.id} (${subscription.how}; every event type), secret …${subscription.endpoint.secretLastFour} in ${path.resolve(subscription.file)}`,
      `  verifying with standardwebhooks; see the deliveries in the console: ${operator.admin_url}/webhooks/${subscription.endpoint.id}`,
      ""
    ].join("\n")
  )
  await Effect.runPromise(subscription.sendTestEvent)
  const stop = () => void receiver.close().then(() => process.exit(0))
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
}

main().catch((error: unknown) => {
  console.error("The webhook receiver could not start:", error)
  process.exit(1)
})
