/**
 * Child processes of the benchmark (the product and the baseline server) as scoped resources: each is stopped
 * when the scope closes, whether the run succeeded, failed or was interrupted (SIGINT). Output goes to a log file
 * so a chatty server neither floods the terminal nor blocks on a full pipe; its tail is shown when a run fails.
 */
import { Data, Effect } from "effect"
import { spawn, type ChildProcess } from "node:child_process"
import { closeSync, openSync } from "node:fs"
import { readFile } from "node:fs/promises"

export class BenchFailure extends Data.TaggedError("BenchFailure")<{ readonly message: string }> {}

export interface RunningChild {
  readonly name: string
  readonly process: ChildProcess
  readonly logPath: string
}

/** Time a child gets to exit after SIGTERM before it is killed. */
const STOP_GRACE_MS = 5_000

const waitForExit = (child: ChildProcess, ms: number): Promise<boolean> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(true)
    const timer = setTimeout(() => {
      child.off("exit", onExit)
      resolve(false)
    }, ms)
    const onExit = () => {
      clearTimeout(timer)
      resolve(true)
    }
    child.once("exit", onExit)
  })

/** SIGTERM, then SIGKILL after {@link STOP_GRACE_MS}. */
const stop = async (child: ChildProcess): Promise<void> => {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill("SIGTERM")
  if (await waitForExit(child, STOP_GRACE_MS)) return
  child.kill("SIGKILL")
  await waitForExit(child, 2_000)
}

/**
 * Starts `node <args>` with `env` plus PATH and HOME only (the parent's API_PORT, HOSTS… must not leak in), stderr (and stdout unless
 * `pipeStdout`) appended to `logPath`; stops it when the scope closes.
 */
export const spawnNode = (input: {
  readonly name: string
  readonly args: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string
  readonly logPath: string
  readonly pipeStdout?: boolean
}) =>
  Effect.acquireRelease(
    Effect.try({
      try: (): RunningChild => {
        const log = openSync(input.logPath, "a")
        try {
          const child = spawn(process.execPath, [...input.args], {
            cwd: input.cwd,
            env: {
              PATH: process.env["PATH"] ?? "",
              HOME: process.env["HOME"] ?? "",
              ...input.env
            },
            stdio: ["ignore", input.pipeStdout === true ? "pipe" : log, log]
          })
          child.on("error", () => {})
          return { name: input.name, process: child, logPath: input.logPath }
        } finally {
          closeSync(log)
        }
      },
      catch: (error) => new BenchFailure({ message: `could not start ${input.name}: ${String(error)}` })
    }),
    (child) => Effect.promise(() => stop(child.process))
  )

/** Whether the child has exited (it should not have, while the benchmark runs). */
export const hasExited = (child: RunningChild): boolean =>
  child.process.exitCode !== null || child.process.signalCode !== null

/** The last `lines` lines of a child's log, or a note that there is none. */
export const logTail = async (path: string, lines = 30): Promise<string> => {
  try {
    const text = await readFile(path, "utf8")
    return text.trimEnd().split("\n").slice(-lines).join("\n")
  } catch {
    return "(no log)"
  }
}

/**
 * The first line the child writes to stdout, within `timeoutMs`; the rest of stdout is drained and dropped.
 * Fails when the child exits or stays silent.
 */
export const firstStdoutLine = (child: RunningChild, timeoutMs: number) =>
  Effect.async<string, BenchFailure>((resume) => {
    const stdout = child.process.stdout
    if (stdout === null) {
      resume(Effect.fail(new BenchFailure({ message: `${child.name}: stdout is not piped` })))
      return
    }
    let buffered = ""
    const cleanup = () => {
      clearTimeout(timer)
      stdout.off("data", onData)
      child.process.off("exit", onExit)
      stdout.resume()
    }
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8")
      const newline = buffered.indexOf("\n")
      if (newline >= 0) {
        cleanup()
        resume(Effect.succeed(buffered.slice(0, newline)))
      }
    }
    const onExit = () => {
      cleanup()
      resume(Effect.fail(new BenchFailure({ message: `${child.name} exited before it was ready` })))
    }
    const timer = setTimeout(() => {
      cleanup()
      resume(Effect.fail(new BenchFailure({ message: `${child.name} was not ready within ${timeoutMs} ms` })))
    }, timeoutMs)
    stdout.on("data", onData)
    child.process.once("exit", onExit)
    return Effect.sync(cleanup)
  })
