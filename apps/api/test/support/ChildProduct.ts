/**
 * The built product (`apps/api/dist/start.js`, the entry `pnpm start` runs) as a child process of a test, on PostgreSQL:
 * for what only a real process shows (signals, exit codes, several instances on one database). Its stdout and stderr
 * are kept (JSON log lines, `LOG_FORMAT=json`).
 */
import * as Db from "@propline/db/Db"
import { freePort } from "@propline/db/FreePort"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Layer, ManagedRuntime } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as AppConfig from "../../src/platform/AppConfig.js"
import { TestKeyEncryption } from "./KeyEncryptionFixtures.js"

const START = fileURLToPath(new URL("../../dist/start.js", import.meta.url))

export interface ChildProduct {
  readonly process: ChildProcess
  readonly apiUrl: string
  readonly authUrl: string
  /** Everything the process wrote so far. */
  readonly output: () => string
  /** Its JSON log lines so far. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary fields
  readonly lines: () => ReadonlyArray<Record<string, any>>
  /** Resolves with the exit code once the process ended. */
  readonly exited: Promise<number | null>
  /** SIGKILL unless it already ended. */
  readonly kill: () => void
}

/** Polls `probe` every 100 ms until it is true, at most `ms`; throws `what` (with the output) otherwise. */
export const waitUntil = async (what: string, ms: number, probe: () => Promise<boolean> | boolean, output = () => "") => {
  const deadline = Date.now() + ms
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${ms} ms\n${output()}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

const answers = async (url: string, status: number) => {
  try {
    return (await fetch(url)).status === status
  } catch {
    return false
  }
}

/**
 * Starts `start.js` with `env` (the database, keys, `HOSTS` …) on free loopback ports for the API and identity hosts
 * and waits until those `HOSTS` names (default `api,auth`) answer `/readyz` 200 (at most 4 minutes: a loaded machine starts slowly).
 */
export const startChild = async (env: Record<string, string>): Promise<ChildProduct> => {
  if (!existsSync(START)) throw new Error(`${START} is missing: build @propline/api first`)
  const [apiPort, authPort, adminPort] = [await freePort(), await freePort(), await freePort()]
  const child = spawn(process.execPath, [START], {
    env: {
      PATH: process.env["PATH"] ?? "",
      API_PORT: String(apiPort),
      AUTH_PORT: String(authPort),
      ADMIN_PORT: String(adminPort),
      HOST: "127.0.0.1",
      HOSTS: "api,auth",
      DEMO_DATA: "false",
      LOG_FORMAT: "json",
      ...env
    },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  const apiUrl = `http://127.0.0.1:${apiPort}`
  const authUrl = `http://127.0.0.1:${authPort}`
  const product: ChildProduct = {
    process: child,
    apiUrl,
    authUrl,
    output: () => output,
    lines: () =>
      output
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    }
  }
  try {
    await waitUntil(
      "the product's start",
      240_000,
      async () => {
        if (child.exitCode !== null) throw new Error(`the product exited (${child.exitCode}):\n${output}`)
        const hosts = (env["HOSTS"] ?? "api,auth").split(",")
        return (
          (!hosts.includes("api") || (await answers(`${apiUrl}/readyz`, 200))) &&
          (!hosts.includes("auth") || (await answers(`${authUrl}/readyz`, 200)))
        )
      },
      () => output
    )
  } catch (error) {
    product.kill()
    throw error
  }
  return product
}

/**
 * A fresh PostgreSQL database for children to share, and a runtime over it for the test's fixtures (`Fixtures.*`);
 * `dispose` closes the runtime (the caller drops the database).
 */
export const sharedDatabase = async () => {
  const database = await TestDatabase.create("postgres")
  const config = database.config
  if (config._tag !== "postgres") throw new Error("a PostgreSQL database expected")
  const fixtures = ManagedRuntime.make(
    Layer.mergeAll(Db.layer(config), TestKeyEncryption, AppConfig.AppConfig.layer(AppConfig.make({ apiPort: 1, authPort: 2 })))
  )
  return { database, connectionString: config.connectionString, fixtures }
}
