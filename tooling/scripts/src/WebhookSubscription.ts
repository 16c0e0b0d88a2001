/**
 * How the example receiver gets subscribed (issue 22, item 8): it signs in to the admin console's API as the demo
 * operator (`DATA_DIR/demo-operator.json`, which `pnpm start` writes) and does what an operator does on the
 * Webhooks page, through the console's own contract (`@propline/contract/AdminApi`, group `webhooks`):
 *
 * - no endpoint of the organization has the receiver's URL: it creates one for every event type, and keeps the
 *   `whsec_` secret (shown once) in `DATA_DIR/demo-webhook-receiver.json` (mode 0600; the only copy);
 * - the endpoint exists and the file's secret is its current one (same endpoint, same last four characters): it
 *   keeps it, enabling the endpoint if it was disabled;
 * - otherwise (the file is missing or stale) it rotates the endpoint's secret, as an operator would: the old one
 *   keeps signing for 24 h.
 *
 * Its answer can then ask for a test event, so the first line the receiver prints shows the whole path works.
 */
import * as Cookies from "@effect/platform/Cookies"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { AdminApi } from "@propline/contract/AdminApi"
import { CSRF_HEADER, SESSION_COOKIE } from "@propline/contract/AdminSession"
import type { WebhookEndpointView } from "@propline/contract/WebhooksAdmin"
import { Effect, Option } from "effect"
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import * as path from "node:path"

/** DATA_DIR/demo-operator.json. */
export interface DemoOperator {
  readonly email: string
  readonly password: string
  readonly admin_url: string
}

/** DATA_DIR/demo-webhook-receiver.json: the receiver's endpoint and its secret. */
export interface ReceiverFile {
  readonly endpoint_id: string
  readonly url: string
  readonly secret: string
}

export const RECEIVER_FILE = "demo-webhook-receiver.json"

/** The description the receiver's endpoint gets (the console lists it by this). */
export const RECEIVER_DESCRIPTION = "Example receiver (pnpm connector:webhooks)"

const readReceiverFile = (file: string): ReceiverFile | undefined => {
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<ReceiverFile>
    return typeof parsed.endpoint_id === "string" && typeof parsed.url === "string" && typeof parsed.secret === "string"
      ? { endpoint_id: parsed.endpoint_id, url: parsed.url, secret: parsed.secret }
      : undefined
  } catch {
    return undefined
  }
}

/** Writes the file with mode 0600, atomically (a temporary file renamed over it). */
const writeReceiverFile = (file: string, content: ReceiverFile) => {
  mkdirSync(path.dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600 })
  chmodSync(temporary, 0o600)
  renameSync(temporary, file)
}

/** The admin API's client signed in as `operator`: its requests carry the session cookie and the CSRF token. */
const signedInClient = (operator: DemoOperator) =>
  Effect.gen(function* () {
    const anonymous = yield* HttpApiClient.make(AdminApi, { baseUrl: operator.admin_url })
    const [session, response] = yield* anonymous.signIn.signIn({
      payload: { email: operator.email, password: operator.password },
      withResponse: true
    })
    const cookie = Cookies.getValue(response.cookies, SESSION_COOKIE)
    if (Option.isNone(cookie)) return yield* Effect.dieMessage("sign-in answered without a session cookie")
    // The demo operator has no second factor: a sign-in that asks for one is a set-up this script can't complete.
    if (!("csrfToken" in session)) return yield* Effect.dieMessage("the demo operator's sign-in asks for a second factor")
    return yield* HttpApiClient.make(AdminApi, {
      baseUrl: operator.admin_url,
      transformClient: HttpClient.mapRequest((request) =>
        request.pipe(HttpClientRequest.setHeader("cookie", `${SESSION_COOKIE}=${cookie.value}`), HttpClientRequest.setHeader(CSRF_HEADER, session.csrfToken))
      )
    })
  })

export interface Subscription {
  readonly endpoint: WebhookEndpointView
  readonly secret: string
  /** What was done: `created`, `kept` (the file's secret is current) or `rotated`. */
  readonly how: "created" | "kept" | "rotated"
  readonly file: string
  /** Queues a `webhook.test` event to the endpoint (the console's "Send a test event"). */
  readonly sendTestEvent: Effect.Effect<void, unknown>
}

/**
 * Makes sure an endpoint of the demo organization posts every event to `url`, its secret in `dataDir`'s receiver
 * file (see the module comment).
 */
export const ensureSubscription = (input: { readonly operator: DemoOperator; readonly url: string; readonly dataDir: string }) =>
  Effect.gen(function* () {
    const file = path.join(input.dataDir, RECEIVER_FILE)
    const client = yield* signedInClient(input.operator)
    const saved = readReceiverFile(file)
    const candidates = yield* client.webhooks.list({ urlParams: { q: input.url, owner: "organization", limit: 100 } })
    const found = candidates.items.find((endpoint) => endpoint.url === input.url)
    let subscription: Pick<Subscription, "endpoint" | "secret" | "how">
    if (found === undefined) {
      const created = yield* client.webhooks.create({
        payload: { url: input.url, description: RECEIVER_DESCRIPTION, eventTypes: [], contextIds: [] }
      })
      subscription = { endpoint: created.endpoint, secret: created.secret.secret, how: "created" }
    } else if (saved !== undefined && saved.endpoint_id === found.id && saved.secret.endsWith(found.secretLastFour)) {
      const endpoint = found.status === "enabled" ? found : yield* client.webhooks.enable({ path: { endpointId: found.id } })
      subscription = { endpoint, secret: saved.secret, how: "kept" }
    } else {
      const rotated = yield* client.webhooks.rotateSecret({ path: { endpointId: found.id } })
      const endpoint = found.status === "enabled" ? rotated.endpoint : yield* client.webhooks.enable({ path: { endpointId: found.id } })
      subscription = { endpoint, secret: rotated.secret.secret, how: "rotated" }
    }
    if (subscription.how !== "kept") writeReceiverFile(file, { endpoint_id: subscription.endpoint.id, url: input.url, secret: subscription.secret })
    const sendTestEvent = client.webhooks
      .sendTestEvent({ path: { endpointId: subscription.endpoint.id } })
      .pipe(Effect.asVoid, Effect.provide(FetchHttpClient.layer))
    return { ...subscription, file, sendTestEvent } satisfies Subscription
  }).pipe(Effect.provide(FetchHttpClient.layer))
