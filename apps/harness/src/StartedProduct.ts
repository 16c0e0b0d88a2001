/**
 * The built product (`apps/api/dist/main.js`) started as a user starts it, for black-box tests: free ports on
 * 127.0.0.1, a data directory that does not exist yet (a first start on a fresh machine), demo data, and
 * PostgreSQL when `databaseUrl` is given (PGlite in the data directory otherwise). Resolves once the demo
 * credentials file is written and the banner printed.
 *
 * On PostgreSQL the product needs `KEY_ENCRYPTION_KEYS` (its signing keys are sealed at rest): every product this
 * process starts gets the same generated key list, so several instances on one database open each other's keys. On
 * PGlite the product makes its own in the fresh data directory, as on a first start.
 */
import { freePorts } from "@propline/db/FreePort"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { type Credentials, parseCredentials } from "./Harness.js"

const main = fileURLToPath(new URL("../../api/dist/main.js", import.meta.url))

/** The key-encryption keys of every product on PostgreSQL this process starts (one random key, see above). */
const KEY_ENCRYPTION_KEYS = `harness:${randomBytes(32).toString("base64url")}`

export interface StartedProduct {
  readonly credentials: Credentials
  /** DATA_DIR of the started product. */
  readonly dataDir: string
  /**
   * Where this process listens (127.0.0.1 and its own ports); the same as the credentials' public addresses unless
   * `env` gave others (several instances behind one public address).
   */
  readonly listening: { readonly authUrl: string; readonly apiUrl: string }
  /** Stops the product (SIGTERM, awaited) and removes its data directory. */
  readonly stop: () => Promise<void>
}

/**
 * Starts the product; fails after `timeoutMs` (default 240 s: a first PGlite start on a busy 2-core machine is slow)
 * with the product's output in the message. `env` overrides the environment given to the process (e.g. `AUTH_URL`
 * and `BASE_URL` shared by several instances).
 */
export const startProduct = async (options: StartOptions = {}): Promise<StartedProduct> => {
  const root = mkdtempSync(path.join(tmpdir(), "propline-product-"))
  // Every attempt gets the same DATA_DIR: an attempt that lost a port seeded the database and wrote the demo files
  // before it tried to listen, so the next one finds them there (in a new directory it would find the database
  // seeded by "another start" and write none, and never report ready).
  const dataDir = options.dataDir ?? path.join(root, ".data")
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePorts(options, root, dataDir, attempt)
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= START_ATTEMPTS) {
        rmSync(root, { recursive: true, force: true })
        throw error
      }
    }
  }
}

interface StartOptions {
  readonly databaseUrl?: string
  readonly timeoutMs?: number
  readonly env?: Readonly<Record<string, string>>
  /**
   * The DATA_DIR to use (default: a new one): another instance's, so that a start on a database another start seeded
   * finds that start's demo files (it writes none of its own).
   */
  readonly dataDir?: string
  /**
   * Where attempt `attempt` (from 1) listens: the API's, the identity host's and the console's ports (default: three
   * ports free when asked). Tests give a taken port to exercise the retry.
   */
  readonly ports?: (attempt: number) => Promise<readonly [api: number, auth: number, admin: number]>
}

/**
 * Ports that {@link freePorts} found free can be taken before the product binds them (by another suite, or as the
 * local port of an outgoing connection); the product then exits with EADDRINUSE and is started again on other
 * ports, at most this many times in all.
 */
const START_ATTEMPTS = 5

class PortTaken extends Error {}

const startOnFreePorts = async (
  options: StartOptions,
  root: string,
  dataDir: string,
  attempt: number
): Promise<StartedProduct> => {
  const [apiPort, authPort, adminPort] = options.ports === undefined ? await freePorts(3) : await options.ports(attempt)
  const env: Record<string, string> = {
    PATH: process.env["PATH"] ?? "",
    API_PORT: String(apiPort),
    AUTH_PORT: String(authPort),
    BASE_URL: `http://127.0.0.1:${apiPort}`,
    AUTH_URL: `http://127.0.0.1:${authPort}`,
    ADMIN_PORT: String(adminPort),
    ADMIN_URL: `http://127.0.0.1:${adminPort}`,
    HOST: "127.0.0.1",
    DATA_DIR: dataDir,
    DEMO_DATA: "true",
    ...(options.databaseUrl === undefined ? {} : { DATABASE_URL: options.databaseUrl, KEY_ENCRYPTION_KEYS }),
    ...options.env
  }
  const child: ChildProcess = spawn(process.execPath, ["--enable-source-maps", main], {
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()))
  child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()))

  const exit = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve))
      child.kill("SIGTERM")
      await exited
    }
  }
  const stop = async () => {
    await exit()
    rmSync(root, { recursive: true, force: true })
  }

  const file = path.join(dataDir, "demo-credentials.json")
  const deadline = Date.now() + (options.timeoutMs ?? 240_000)
  while (!(existsSync(file) && output.includes("Demo environment ready"))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await exit()
      if (child.exitCode !== null && output.includes("EADDRINUSE")) throw new PortTaken(output)
      throw new Error(`the product did not start:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const credentials = parseCredentials(JSON.parse(readFileSync(file, "utf8")))
  const listening = { authUrl: `http://127.0.0.1:${authPort}`, apiUrl: `http://127.0.0.1:${apiPort}` }
  return { credentials, dataDir, listening, stop } satisfies StartedProduct
}
