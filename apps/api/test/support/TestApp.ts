/**
 * Starts the real product (identity host and API host on free loopback ports) over a fresh database of one kind,
 * and offers a tiny HTTP helper for black-box tests.
 */
import * as Db from "@propline/db/Db"
import { freePort } from "@propline/db/FreePort"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Cause, type Clock, type Effect, Layer, ManagedRuntime, Runtime } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import * as AppConfig from "../../src/platform/AppConfig.js"
import { HostsLive } from "../../src/Hosts.js"
import type { Readiness } from "../../src/platform/Health.js"
import type { KeyEncryption } from "../../src/platform/KeyEncryption.js"
import type { DocumentStorage } from "../../src/storage/DocumentStorage.js"
import * as StorageConfig from "../../src/storage/StorageConfig.js"
import type { UrlSigner } from "../../src/storage/UrlSigner.js"
import { documentedCodes, documentedOperation } from "./DocumentedProblems.js"
import { TestKeyEncryption } from "./KeyEncryptionFixtures.js"

/**
 * Ports that {@link freePort} found free can be taken before the hosts bind them: by a suite running in parallel,
 * or as the local port of an outgoing connection (the suites open many to PostgreSQL). Starting the hosts is then
 * tried again on other ports, at most this many times in all.
 */
const START_ATTEMPTS = 5

/** Whether starting the hosts failed because a port was taken (the server's `ServeError` with EADDRINUSE). */
const portTaken = (error: unknown): boolean => {
  if (!Runtime.isFiberFailure(error)) return false
  const cause = error[Runtime.FiberFailureCauseId]
  return [...Cause.failures(cause), ...Cause.defects(cause)].some((failure) => {
    const record = failure as { readonly _tag?: unknown; readonly cause?: { readonly code?: unknown } } | null
    return record?._tag === "ServeError" && record.cause?.code === "EADDRINUSE"
  })
}

export interface TestApp {
  readonly apiUrl: string
  readonly authUrl: string
  readonly adminUrl: string
  /**
   * Runs an effect inside the product: with its database, document storage, URL signer, configuration,
   * key-encryption keys and readiness.
   */
  readonly run: <A, E>(
    effect: Effect.Effect<A, E, Db.Db | DocumentStorage | UrlSigner | AppConfig.AppConfig | KeyEncryption | Readiness>
  ) => Promise<A>
  readonly dispose: () => Promise<void>
}

/**
 * Starts both hosts over a fresh database of `kind`. With `clock`, every request of both hosts reads the time from
 * it (a test moves it; nothing sleeps on it). Documents go to `options.storage` (an S3-compatible bucket in the
 * storage suites), by default to a fresh directory on the local disk that `dispose` removes. `trustedProxies` is
 * `TRUSTED_PROXIES` (none by default).
 */
export const start = async (
  kind: Db.DbConfig["_tag"],
  options: {
    readonly clock?: Clock.Clock
    readonly storage?: StorageConfig.StorageChoice
    readonly trustedProxies?: ReadonlyArray<string>
    /** The process's logger (`platform/Logging.layer`); Effect's default logger otherwise. */
    readonly logger?: Layer.Layer<never>
    /** On PostgreSQL: the pool's size and wait for a connection, and the URL it connects through (a proxy). */
    readonly pool?: {
      readonly maxConnections?: number
      readonly connectionTimeoutMillis?: number
      readonly through?: (connectionString: string) => string
    }
  } = {}
): Promise<TestApp> => {
  const created = await TestDatabase.create(kind)
  const { pool } = options
  const database: TestDatabase.TestDatabase =
    pool === undefined || created.config._tag !== "postgres"
      ? created
      : {
          ...created,
          config: {
            ...created.config,
            connectionString: pool.through?.(created.config.connectionString) ?? created.config.connectionString,
            ...(pool.maxConnections === undefined ? {} : { maxConnections: pool.maxConnections }),
            ...(pool.connectionTimeoutMillis === undefined ? {} : { connectionTimeoutMillis: pool.connectionTimeoutMillis })
          }
        }
  const filesRoot = options.storage === undefined ? await mkdtemp(path.join(tmpdir(), "propline-files-")) : undefined
  const storage = options.storage ?? { _tag: "local-disk" as const, root: filesRoot ?? "" }
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(database, storage, filesRoot, options.clock, options.trustedProxies ?? [], options.logger)
    } catch (error) {
      if (attempt < START_ATTEMPTS && portTaken(error)) continue
      await database.drop()
      if (filesRoot !== undefined) await rm(filesRoot, { recursive: true, force: true })
      throw error
    }
  }
}

const startOnFreePorts = async (
  database: TestDatabase.TestDatabase,
  storage: StorageConfig.StorageChoice,
  filesRoot: string | undefined,
  clock: Clock.Clock | undefined,
  trustedProxies: ReadonlyArray<string>,
  logger: Layer.Layer<never> | undefined
): Promise<TestApp> => {
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
    host: "127.0.0.1",
    trustedProxies
  })
  const hosts = HostsLive.pipe(
    Layer.provideMerge(StorageConfig.layerWithSigner(storage, config.baseUrl)),
    Layer.provideMerge(Db.layer(database.config)),
    Layer.provideMerge(AppConfig.AppConfig.layer(config)),
    Layer.provideMerge(TestKeyEncryption)
  )
  const clocked = clock === undefined ? hosts : hosts.pipe(Layer.provide(Layer.setClock(clock)))
  const layer = logger === undefined ? clocked : clocked.pipe(Layer.provide(logger))
  const runtime = ManagedRuntime.make(layer)
  try {
    await runtime.runtime()
  } catch (error) {
    await runtime.dispose()
    throw error
  }
  return {
    apiUrl: config.baseUrl,
    authUrl: config.authUrl,
    adminUrl: config.adminUrl,
    run: (effect) => runtime.runPromise(effect),
    dispose: async () => {
      await runtime.dispose()
      await database.drop()
      if (filesRoot !== undefined) await rm(filesRoot, { recursive: true, force: true })
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
  const method = options.method ?? (body === undefined ? "GET" : "POST")
  const response = await fetch(url, { method, headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = text.length > 0 ? JSON.parse(text) : undefined
  } catch {
    // not JSON: keep the text
  }
  const answer = { status: response.status, headers: response.headers, body: parsed }
  checkDocumentedProblem(method, url, answer)
  return answer
}

/**
 * Every problem a test receives through {@link call} is one its operation's OpenAPI entry lists (issue 24): the
 * status is among the operation's responses, and a `code` is one of the codes the operation's problem schema for
 * that status names (a 404 whose schema names none carries none). So each HTTP test that meets a refusal checks
 * the document's per-operation codes against what the server answered.
 */
const checkDocumentedProblem = (method: string, url: string, answer: Answer): void => {
  const code = (answer.body as { code?: unknown } | undefined)?.code
  if (typeof code !== "string" || ![400, 404, 409].includes(answer.status)) return
  const path = new URL(url).pathname
  const operation = documentedOperation(method, path)
  if (operation === undefined) return
  const listed = documentedCodes(operation, answer.status)
  if (listed === undefined || !listed.includes(code)) {
    throw new Error(
      `${method} ${path} answered ${answer.status} ${code}, which ${operation.operationId}'s OpenAPI entry does not ` +
        `list (${answer.status}: ${listed === undefined ? "no such response" : listed.join(", ") || "no code"})`
    )
  }
}

/** The identity host's answer to a client-credentials request authenticated with HTTP Basic, whatever its status. */
export const basicToken = async (authUrl: string, clientId: string, secret: string) => {
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString("base64")
  const response = await fetch(`${authUrl}/oauth/token`, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/x-www-form-urlencoded" },
    body: "grant_type=client_credentials"
  })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** A client_credentials token from the identity host (HTTP Basic); throws unless one is issued. */
export const token = async (authUrl: string, clientId: string, secret: string): Promise<string> => {
  const { status, body } = await basicToken(authUrl, clientId, secret)
  if (status !== 200 || typeof body["access_token"] !== "string") {
    throw new Error(`token request failed: ${status} ${JSON.stringify(body)}`)
  }
  return body["access_token"]
}
