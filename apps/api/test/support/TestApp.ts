/**
 * Starts the real product (identity host and API host on free loopback ports) over a fresh database of one kind,
 * and offers a tiny HTTP helper for black-box tests.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { type Effect, Layer, ManagedRuntime } from "effect"
import { createServer } from "node:net"
import * as AppConfig from "../../src/AppConfig.js"
import { HostsLive } from "../../src/Hosts.js"

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))))
    })
  })

export interface TestApp {
  readonly apiUrl: string
  readonly authUrl: string
  readonly adminUrl: string
  readonly run: <A, E>(effect: Effect.Effect<A, E, Db.Db>) => Promise<A>
  readonly dispose: () => Promise<void>
}

export const start = async (kind: Db.DbConfig["_tag"]): Promise<TestApp> => {
  const database = await TestDatabase.create(kind)
  const apiPort = await freePort()
  const authPort = await freePort()
  const adminPort = await freePort()
  const config = AppConfig.make({
    apiPort,
    authPort,
    adminPort,
    baseUrl: `http://127.0.0.1:${apiPort}`,
    authUrl: `http://127.0.0.1:${authPort}`,
    adminUrl: `http://127.0.0.1:${adminPort}`,
    host: "127.0.0.1"
  })
  const layer = HostsLive.pipe(
    Layer.provideMerge(Db.layer(database.config)),
    Layer.provideMerge(AppConfig.AppConfig.layer(config))
  )
  const runtime = ManagedRuntime.make(layer)
  await runtime.runtime()
  return {
    apiUrl: config.baseUrl,
    authUrl: config.authUrl,
    adminUrl: config.adminUrl,
    run: (effect) => runtime.runPromise(effect),
    dispose: async () => {
      await runtime.dispose()
      await database.drop()
    }
  }
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test assertions read arbitrary JSON
  readonly body: any
}

/** One HTTP request; `body` objects are sent as JSON, strings as they are. */
export const call = async (
  url: string,
  options: { readonly method?: string; readonly token?: string; readonly body?: unknown; readonly headers?: Record<string, string> } = {}
): Promise<Answer> => {
  const headers: Record<string, string> = { ...options.headers }
  if (options.token !== undefined) headers["authorization"] = `Bearer ${options.token}`
  let body: string | Uint8Array | undefined
  if (typeof options.body === "string" || options.body instanceof Uint8Array) body = options.body
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers["content-type"] ??= "application/json"
  }
  const response = await fetch(url, { method: options.method ?? (body === undefined ? "GET" : "POST"), headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed }
}

/** A client_credentials token from the identity host (HTTP Basic). */
export const token = async (authUrl: string, clientId: string, secret: string): Promise<string> => {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")
  const response = await fetch(`${authUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials"
  })
  const body = (await response.json()) as { access_token?: string }
  if (response.status !== 200 || body.access_token === undefined) {
    throw new Error(`token request failed: ${response.status} ${JSON.stringify(body)}`)
  }
  return body.access_token
}
