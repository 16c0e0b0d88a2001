/**
 * `pnpm bench:floor` compares its servers only while they do the same work: each one, started as the bench starts
 * it (`dist/internal/FloorServers.js <kind> <port>`), must answer the authenticated page with the same bytes, refuse
 * a request without a bearer token (401) and a `limit` outside 1..100 (400), and answer no other path (404).
 * Guards every server, the identity host's `HttpRouter` stack among them, against drifting from the others.
 */
import { freePorts } from "@propline/db/FreePort"
import { type ChildProcess, spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const SCRIPT = join(dirname(fileURLToPath(import.meta.url)), "../dist/internal/FloorServers.js")
const KINDS = ["node", "fastify", "effect", "router", "httpapi"] as const

const waitForAnswer = async (url: string): Promise<void> => {
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      await fetch(url)
      return
    } catch {
      if (Date.now() > deadline) throw new Error(`${url} did not answer within 20 s`)
      await new Promise((wake) => setTimeout(wake, 100))
    }
  }
}

describe("the floor servers", () => {
  const children: Array<ChildProcess> = []
  const bases = new Map<(typeof KINDS)[number], string>()

  beforeAll(async () => {
    const ports = await freePorts(KINDS.length)
    for (const [index, kind] of KINDS.entries()) {
      const child = spawn(process.execPath, [SCRIPT, kind, String(ports[index])], { stdio: "ignore" })
      children.push(child)
      bases.set(kind, `http://127.0.0.1:${ports[index]}`)
    }
    await Promise.all([...bases.values()].map((base) => waitForAnswer(`${base}/v1/queue`)))
  }, 30_000)

  afterAll(() => {
    for (const child of children) child.kill()
  })

  const answer = async (kind: (typeof KINDS)[number], path: string, authorization?: string) => {
    const response = await fetch(`${bases.get(kind)}${path}`, {
      headers: authorization === undefined ? {} : { authorization }
    })
    return { status: response.status, contentType: response.headers.get("content-type"), body: await response.text() }
  }

  it("answer the authenticated page with the same bytes", async () => {
    const pages = await Promise.all(KINDS.map((kind) => answer(kind, "/v1/queue?limit=50", "Bearer floor")))
    for (const page of pages) {
      expect(page.status).toBe(200)
      expect(page.contentType).toMatch(/^application\/json/)
    }
    expect(new Set(pages.map((page) => page.body)).size).toBe(1)
    expect(JSON.parse(pages[0]!.body).items).toHaveLength(50)
  })

  it.each(KINDS)("%s refuses a missing bearer token, a limit out of range and another path", async (kind) => {
    expect((await answer(kind, "/v1/queue?limit=50")).status).toBe(401)
    expect((await answer(kind, "/v1/queue?limit=0", "Bearer floor")).status).toBe(400)
    expect((await answer(kind, "/v1/queue?limit=101", "Bearer floor")).status).toBe(400)
    expect((await answer(kind, "/v1/queue?limit=ten", "Bearer floor")).status).toBe(400)
    expect((await answer(kind, "/v1/other", "Bearer floor")).status).toBe(404)
  })
})
