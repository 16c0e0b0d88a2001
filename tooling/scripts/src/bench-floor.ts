/**
 * `pnpm bench:floor`: the CPU the HTTP stack alone costs per request, the floor under every path `pnpm bench`
 * measures. Five servers answer the same authenticated `GET` with the same constant page and do nothing else
 * (`internal/FloorServers.ts`): plain `node:http`; Fastify 5 as the conventional peer uses it (the framework a
 * user would otherwise pick); `node:http` running the same checks as one Effect per request
 * (the Effect runtime without `@effect/platform`); the identity host's stack (an `@effect/platform` `HttpRouter`
 * route, no HttpApi); and the API host's stack (`@effect/platform` HttpApi with a bearer middleware and a
 * Schema-decoded parameter on `NodeHttpServer`); both with spans off and the tracer middleware skipped, as `main.ts`
 * runs them. No database is involved.
 *
 * `BENCH_ROUNDS` rounds (default 3) of autocannon (10 connections, 2 s warm-up dropped, `BENCH_DURATION_SECONDS`
 * measured, default 10), the order of the servers reversed every other round. Prints, per server, req/s (mean of the
 * rounds), CPU ms per request (the server process's user + system time over its measured rounds ÷ requests
 * answered), and, from the heap probe every server runs with (`internal/HeapProbe.ts`, as in `pnpm bench`), the KiB
 * its JavaScript heap allocated per measured request and its main thread's share in garbage collection; writes them
 * to `tooling/scripts/bench-floor-results.md`. Exits non-zero when a request fails.
 */
import { NodeRuntime } from "@effect/platform-node"
import { freePorts } from "@propline/db/FreePort"
import { Effect } from "effect"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { availableParallelism, cpus, tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { BenchFailure, spawnNode } from "./internal/ChildProcesses.js"
import { heapProbeArgs, probedWhile } from "./internal/HeapFigures.js"
import { measure, type LoadSettings } from "./internal/LoadRun.js"
import { sampledWhile } from "./internal/ProcessUsage.js"

const HERE = dirname(fileURLToPath(import.meta.url))
const RESULTS_MD = resolve(HERE, "../bench-floor-results.md")
const SERVERS = ["node", "fastify", "effect", "router", "httpapi"] as const
type Server = (typeof SERVERS)[number]
const LABELS: Readonly<Record<Server, string>> = {
  node: "plain node:http",
  fastify: "Fastify 5 (the conventional peer's framework: onRequest bearer check, querystring schema)",
  effect: "node:http running one Effect per request (no @effect/platform)",
  router: "@effect/platform HttpRouter, no HttpApi (the identity host's stack, where the token is issued)",
  httpapi: "@effect/platform HttpApi (the API host's stack)"
}

const intFromEnv = (name: string, fallback: number, min: number, max: number): number => {
  const text = process.env[name]
  const value = text === undefined ? fallback : Number(text)
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be a whole number from ${min} to ${max}`)
  return value
}

/** Polls the server until it answers 200, for at most 15 s; the body it answered. */
const ready = (url: string) =>
  Effect.tryPromise({
    try: async (): Promise<string> => {
      const deadline = Date.now() + 15_000
      for (;;) {
        try {
          const response = await fetch(url, { headers: { authorization: "Bearer floor" } })
          if (response.status === 200) return await response.text()
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`${url} did not answer 200 within 15 s`)
        await new Promise((wake) => setTimeout(wake, 100))
      }
    },
    catch: (error) => new BenchFailure({ message: String(error) })
  })

interface Figures {
  readonly requestsPerSecond: Array<number>
  cpuMs: number
  requests: number
  /** Over the heap probe's windows (the measured loads, warm-ups left out). */
  allocatedBytes: number
  gcMs: number
  windowMs: number
  measuredRequests: number
}

const program = Effect.gen(function* () {
  const rounds = intFromEnv("BENCH_ROUNDS", 3, 1, 10)
  const settings: LoadSettings = {
    connections: 10,
    pipelining: 1,
    durationSeconds: intFromEnv("BENCH_DURATION_SECONDS", 10, 1, 120),
    warmupSeconds: 2
  }
  const dir = yield* Effect.acquireRelease(
    Effect.promise(() => mkdtemp(join(tmpdir(), "propline-bench-floor-"))),
    (path) => Effect.promise(() => rm(path, { recursive: true, force: true }))
  )
  const ports = yield* Effect.promise(() => freePorts(SERVERS.length))
  const children = new Map<Server, { readonly pid: number | undefined; readonly url: string; readonly heapFile: string }>()
  const bodies = new Set<string>()
  for (const [index, server] of SERVERS.entries()) {
    const child = yield* spawnNode({
      name: server,
      args: ["--max-semi-space-size=8", ...heapProbeArgs(), join(HERE, "internal/FloorServers.js"), server, String(ports[index])],
      env: { HEAP_PROBE_FILE: join(dir, `heap-${server}.jsonl`) },
      cwd: HERE,
      logPath: join(dir, `${server}.log`)
    })
    const url = `http://127.0.0.1:${ports[index]}/v1/queue?limit=50`
    bodies.add(yield* ready(url))
    children.set(server, { pid: child.process.pid, url, heapFile: join(dir, `heap-${server}.jsonl`) })
  }
  if (bodies.size !== 1) return yield* new BenchFailure({ message: "the servers answer different bodies" })
  const pageBytes = Buffer.byteLength([...bodies][0]!)
  const figures = new Map<Server, Figures>(
    SERVERS.map((server) => [
      server,
      { requestsPerSecond: [], cpuMs: 0, requests: 0, allocatedBytes: 0, gcMs: 0, windowMs: 0, measuredRequests: 0 }
    ])
  )
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 === 1 ? SERVERS : [...SERVERS].reverse()
    for (const server of order) {
      const { pid, url, heapFile } = children.get(server)!
      const [[measured, heap], usage] = yield* sampledWhile(
        pid,
        measure(`${server} (round ${round})`, { url, method: "GET", headers: { authorization: "Bearer floor" } }, settings, (load) =>
          probedWhile(pid, heapFile, load)
        )
      )
      if (measured.non2xx > 0 || measured.errors > 0 || measured.warmupFailures > 0) {
        return yield* new BenchFailure({ message: `${server}: ${measured.non2xx} non-2xx answers, ${measured.errors} errors` })
      }
      const entry = figures.get(server)!
      entry.requestsPerSecond.push(measured.requestsPerSecond)
      // The warm-up's requests were served inside the sampled window too.
      entry.cpuMs += usage.cpuMs ?? Number.NaN
      entry.requests += measured.totalRequests + measured.warmupRequests
      if (heap !== undefined) {
        entry.allocatedBytes += heap.allocatedBytes
        entry.gcMs += heap.gcMs
        entry.windowMs += heap.wallMs
        entry.measuredRequests += measured.totalRequests
      }
      yield* Effect.sync(() =>
        console.log(`[bench:floor] ${server} (round ${round}): ${Math.round(measured.requestsPerSecond)} req/s`)
      )
    }
  }
  const row = (server: Server) => {
    const entry = figures.get(server)!
    const rate = entry.requestsPerSecond.reduce((sum, value) => sum + value, 0) / entry.requestsPerSecond.length
    return {
      rate,
      cpu: entry.cpuMs / entry.requests,
      kib: entry.allocatedBytes / 1024 / entry.measuredRequests,
      gcShare: entry.gcMs / entry.windowMs
    }
  }
  const base = row("node")
  const lines = [
    `Last run: ${new Date().toISOString().slice(0, 10)}, ${cpus()[0]?.model.trim() ?? "unknown CPU"}, ${availableParallelism()} cores available; Node ${process.version}.`,
    "",
    "| server | req/s | CPU ms per request | CPU per request against plain node:http | KiB allocated per request | GC share of the main thread |",
    "| --- | ---: | ---: | ---: | ---: | ---: |",
    ...SERVERS.map((server) => {
      const { rate, cpu, kib, gcShare } = row(server)
      const shown = (value: number, text: string) => (Number.isFinite(value) ? text : "n/a")
      return `| ${LABELS[server]} | ${Math.round(rate).toLocaleString("en-US")} | ${cpu.toFixed(3)} | ${(cpu / base.cpu).toFixed(1)}x | ${shown(kib, kib.toFixed(1))} | ${shown(gcShare, `${Math.round(gcShare * 100)} %`)} |`
    }),
    "",
    `${rounds} interleaved round${rounds === 1 ? "" : "s"}; autocannon, 10 connections, 2 s warm-up then ${settings.durationSeconds} s per server and round, in this process on the same machine. The same authenticated GET answered with the same constant JSON page of ${pageBytes.toLocaleString("en-US")} bytes (checked before measuring); no database. KiB allocated and GC share: the heap probe's windows over the measured loads (warm-ups left out), as in \`pnpm bench\`.`
  ]
  const table = lines.join("\n")
  yield* Effect.promise(() => writeFile(RESULTS_MD, `${table}\n`))
  yield* Effect.sync(() => console.log(`\n${table}\n\nwrote ${RESULTS_MD}`))
}).pipe(Effect.scoped)

NodeRuntime.runMain(program)
