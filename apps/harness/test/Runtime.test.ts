/**
 * The README's start command runs the hosts on the Node.js version pinned in the root package.json
 * (`devDependencies.node`), whatever Node.js started pnpm: `pnpm start` is run in the repository's root as a user
 * runs it, with the machine's PATH (no `node_modules/.bin` of this test's own run), and the product's start line
 * names the version the hosts run on.
 */
import { freePort } from "@propline/db/FreePort"
import * as TestDatabase from "@propline/db/TestDatabase"
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../../..", import.meta.url))
const pinned = (JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")) as {
  devDependencies: Record<string, string>
}).devDependencies["node"]

/** The PATH a user's shell has: this run's own `node_modules/.bin` folders (pnpm puts them first) left out. */
const machinePath = (process.env["PATH"] ?? "")
  .split(path.delimiter)
  .filter((entry) => !entry.includes(`node_modules${path.sep}.bin`) && !entry.includes(`${path.sep}.pnpm${path.sep}`))
  .join(path.delimiter)

// pnpm as `pnpm test` was started (its entry point, run by whatever `node` the machine's PATH names), else the
// `pnpm` on the machine's PATH.
const execPath = process.env["npm_execpath"]
const pnpm: [string, ReadonlyArray<string>] =
  execPath !== undefined && /pnpm/.test(path.basename(execPath)) ? ["node", [execPath]] : ["pnpm", []]

/** Whether any process of the group `pid` leads is still alive. */
const groupAlive = (pid: number): boolean => {
  try {
    process.kill(-pid, 0)
    return true
  } catch {
    return false
  }
}

/** SIGTERM to the process group `pid` leads, then waits (at most 30 s) until none of it is left. */
const stopGroup = async (pid: number): Promise<void> => {
  if (!groupAlive(pid)) return
  process.kill(-pid, "SIGTERM")
  const deadline = Date.now() + 30_000
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
  if (groupAlive(pid)) process.kill(-pid, "SIGKILL")
}

describe("the start command's runtime", () => {
  it("is the version pnpm checks `engines` against (pnpm-workspace.yaml's nodeVersion)", () => {
    const workspace = readFileSync(path.join(root, "pnpm-workspace.yaml"), "utf8")
    expect(/^nodeVersion: (\S+)$/m.exec(workspace)?.[1]).toBe(pinned)
  })

  let child: ChildProcess | undefined
  let database: TestDatabase.TestDatabase | undefined
  const dataDir = mkdtempSync(path.join(tmpdir(), "propline-runtime-"))

  afterAll(async () => {
    // pnpm runs the product as a grandchild (pnpm → sh → node): the whole process group is stopped, and awaited.
    if (child?.pid !== undefined) await stopGroup(child.pid)
    await database?.drop()
    rmSync(dataDir, { recursive: true, force: true })
  }, 60_000)

  it(
    `runs the hosts on the pinned Node.js (${pinned})`,
    async () => {
      expect(pinned).toMatch(/^24\.\d+\.\d+$/)
      const kinds = TestDatabase.kinds()
      database = await TestDatabase.create(kinds.includes("postgres") ? "postgres" : "pglite")
      const [apiPort, authPort, adminPort] = [await freePort(), await freePort(), await freePort()]
      child = spawn(pnpm[0], [...pnpm[1], "start"], {
        cwd: root,
        env: {
          PATH: machinePath,
          HOME: process.env["HOME"] ?? tmpdir(),
          API_PORT: String(apiPort),
          AUTH_PORT: String(authPort),
          ADMIN_PORT: String(adminPort),
          HOST: "127.0.0.1",
          DATA_DIR: dataDir,
          DEMO_DATA: "false",
          ...(database.config._tag === "postgres"
            ? {
                DATABASE_URL: database.config.connectionString,
                KEY_ENCRYPTION_KEYS: `runtime:${randomBytes(32).toString("base64url")}`
              }
            : {})
        },
        stdio: ["ignore", "pipe", "pipe"],
        // Its own process group, so the test can stop pnpm and the product it starts together.
        detached: true
      })
      let output = ""
      child.stdout?.on("data", (chunk: Buffer) => (output += chunk.toString()))
      child.stderr?.on("data", (chunk: Buffer) => (output += chunk.toString()))
      const deadline = Date.now() + 240_000
      while (!/Propline listening on Node\.js v\S+/.test(output)) {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the product did not start:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      expect(/Propline listening on Node\.js (v\S+):/.exec(output)?.[1]).toBe(`v${pinned}`)
    },
    300_000
  )
})
