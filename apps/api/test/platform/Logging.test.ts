/**
 * The process's log sink (`platform/Logging`, issue 27): lines are held and written together, one write per turn of
 * the event loop (or at once past a cap), in the order they were logged, and none is lost when the process exits:
 * `process.exit` right after logging, an uncaught exception, and the end of a SIGTERM drain through
 * `NodeRuntime.runMain` (as `main.ts` runs it) each leave every line on stdout. The exits are real processes: the
 * built `dist/` (rebuilt from the sources first) run by `node --eval` in this package's folder.
 */
import { execFile, spawn } from "node:child_process"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { beforeAll, describe, expect, it } from "vitest"
import * as Logging from "../../src/platform/Logging.js"

const apiRoot = fileURLToPath(new URL("../..", import.meta.url))

const turnEnds = () => new Promise<void>((resolve) => setImmediate(resolve))

describe("Logging.buffered", () => {
  const recording = (maxHeld?: number) => {
    const writes: Array<string> = []
    const buffer = Logging.buffered((text) => writes.push(text), maxHeld)
    return { writes, buffer }
  }

  it("holds the lines of one turn and writes them in one write at its end, in order", async () => {
    const { writes, buffer } = recording()
    buffer.sink("one")
    buffer.sink("two")
    buffer.sink("three")
    expect(writes).toEqual([])
    expect(buffer.held()).toBe("one\ntwo\nthree\n".length)
    await turnEnds()
    expect(writes).toEqual(["one\ntwo\nthree\n"])
    buffer.sink("four")
    await turnEnds()
    expect(writes).toEqual(["one\ntwo\nthree\n", "four\n"])
    await turnEnds()
    expect(writes).toHaveLength(2)
  })

  it("past the cap, writes what it holds at once (memory stays bounded), still in order", async () => {
    const { writes, buffer } = recording(10)
    buffer.sink("12345")
    expect(writes).toEqual([])
    buffer.sink("67890")
    expect(writes).toEqual(["12345\n67890\n"])
    expect(buffer.held()).toBe(0)
    buffer.sink("a")
    await turnEnds()
    expect(writes).toEqual(["12345\n67890\n", "a\n"])
  })

  it("flush writes what it holds now, and nothing when it holds nothing", () => {
    const { writes, buffer } = recording()
    buffer.flush()
    expect(writes).toEqual([])
    buffer.sink("x")
    buffer.flush()
    expect(writes).toEqual(["x\n"])
    buffer.flush()
    expect(writes).toEqual(["x\n"])
  })
})

/** Runs `script` (ES module text) with this package's resolution, as a child; its stdout, stderr and exit. */
const runChild = (script: string, onStdout?: (stdout: string, child: ReturnType<typeof spawn>) => void) =>
  new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "--eval", script], {
      cwd: apiRoot,
      env: { PATH: process.env["PATH"] ?? "" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      onStdout?.(stdout, child)
    })
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.once("error", reject)
    child.once("close", (code) => resolve({ stdout, stderr, code }))
  })

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- assertions read the parsed lines
const linesOf = (stdout: string): Array<Record<string, any>> =>
  stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)

const prelude = `
import { Effect, LogLevel } from "effect"
import * as Logging from "./dist/platform/Logging.js"
const logged = (from, to) => Effect.runSync(
  Effect.forEach(Array.from({ length: to - from }, (_, k) => from + k), (i) => Effect.logInfo({ msg: "line", i }), { discard: true })
    .pipe(Effect.provide(Logging.layer("json", LogLevel.Info)))
)
const writes = () => calls
let calls = 0
const write = process.stdout.write.bind(process.stdout)
process.stdout.write = (...args) => { calls++; return write(...args) }
`

describe("the process's stdout sink (a child process)", () => {
  beforeAll(async () => {
    const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
    await promisify(execFile)(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: apiRoot })
  }, 300_000)

  it("one write for the lines of a turn; process.exit right after logging loses none", async () => {
    const { stdout, stderr, code } = await runChild(`${prelude}
logged(0, 50)
setImmediate(() => {
  process.stderr.write("writes after one turn: " + writes() + "\\n")
  logged(50, 55)
  process.exit(3)
})
`)
    expect(code).toBe(3)
    expect(stderr).toContain("writes after one turn: 1\n")
    expect(linesOf(stdout).map((line) => line["i"])).toEqual(Array.from({ length: 55 }, (_, i) => i))
  }, 60_000)

  it("an uncaught exception right after logging loses none", async () => {
    const { stdout, stderr, code } = await runChild(`${prelude}
logged(0, 5)
throw new Error("fatal after logging")
`)
    expect(code).toBe(1)
    expect(stderr).toContain("fatal after logging")
    expect(linesOf(stdout).map((line) => line["i"])).toEqual([0, 1, 2, 3, 4])
  }, 60_000)

  it("SIGTERM through NodeRuntime.runMain: the drain's lines, the last one included, are all written; exit 0", async () => {
    const { stdout, code } = await runChild(
      `${prelude}
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
const drain = Effect.gen(function* () {
  yield* Effect.logInfo({ msg: "draining" })
  for (let i = 0; i < 3; i++) {
    yield* Effect.sleep("20 millis")
    yield* Effect.logInfo({ msg: "drain step", i })
  }
  yield* Effect.logInfo({ msg: "drained" })
})
Effect.gen(function* () {
  yield* Effect.addFinalizer(() => drain)
  yield* Effect.logInfo({ msg: "ready" })
  return yield* Effect.never
}).pipe(Effect.scoped, Effect.provide(Logging.layer("json", LogLevel.Info)), NodeRuntime.runMain({ disablePrettyLogger: true }))
`,
      (stdout, child) => {
        // "ready" reaches stdout at the end of its turn, without an exit; then the drain starts.
        if (stdout.includes('"msg":"ready"') && !child.killed) child.kill("SIGTERM")
      }
    )
    expect(code).toBe(0)
    expect(linesOf(stdout).map((line) => [line["msg"], line["i"]])).toEqual([
      ["ready", undefined],
      ["draining", undefined],
      ["drain step", 0],
      ["drain step", 1],
      ["drain step", 2],
      ["drained", undefined]
    ])
  }, 60_000)
})
