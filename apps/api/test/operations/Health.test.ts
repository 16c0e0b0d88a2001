/**
 * The probes of every host (issue 23, item 1; `@propline/contract/Health`): `/healthz` and `/readyz` answer on the
 * API host, the identity host and the admin host, outside `/v1` and without authentication; `/readyz` fails with a
 * migration left unrun and while draining; the API host's OpenAPI document describes both.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect, Ref } from "effect"
import { sql } from "kysely"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Readiness } from "../../src/platform/Health.js"
import { call, start, type TestApp } from "../support/TestApp.js"

describe.each(TestDatabase.kinds())("the probes on %s", (kind) => {
  let app: TestApp
  let hosts: ReadonlyArray<readonly [string, string]>

  beforeAll(async () => {
    app = await start(kind)
    hosts = [
      ["api", app.apiUrl],
      ["auth", app.authUrl],
      ["admin", app.adminUrl]
    ]
  }, 120_000)
  afterAll(async () => {
    await app?.dispose()
  })

  it("GET /healthz → 200 { status: ok } on every host, without a token, not cached", async () => {
    for (const [, url] of hosts) {
      const answer = await call(`${url}/healthz`)
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({ status: "ok" })
      expect(answer.headers.get("cache-control")).toBe("no-store")
    }
  })

  it("GET /readyz → 200 ready with every check ok on every host; HEAD answers the same status", async () => {
    for (const [, url] of hosts) {
      const answer = await call(`${url}/readyz`)
      expect(answer.status).toBe(200)
      expect(answer.body).toEqual({ status: "ready", checks: { database: "ok", migrations: "ok", signingKey: "ok" } })
      expect((await fetch(`${url}/readyz`, { method: "HEAD" })).status).toBe(200)
    }
  })

  it("the probes are not under /v1 nor the admin API: those paths stay the hosts' own 404s", async () => {
    expect((await call(`${app.apiUrl}/v1/healthz`)).status).toBe(404)
    expect((await call(`${app.authUrl}/v1/readyz`)).status).toBe(404)
    // Another method on a probe's path falls through to the host.
    expect((await call(`${app.authUrl}/healthz`, { method: "POST", body: "" })).status).toBe(404)
  })

  it("a migration of this build left unrun → 503 not_ready naming it; ready again once it has run", async () => {
    const [row] = await app.run(
      Db.query((db) => sql<{ name: string; timestamp: string }>`select name, timestamp from kysely_migration order by name desc limit 1`.execute(db))
    ).then((result) => result.rows)
    await app.run(Db.query((db) => sql`delete from kysely_migration where name = ${row!.name}`.execute(db)))
    try {
      for (const [, url] of hosts) {
        const answer = await call(`${url}/readyz`)
        expect(answer.status).toBe(503)
        expect(answer.body).toEqual({ status: "not_ready", checks: { database: "ok", migrations: "1 pending", signingKey: "ok" } })
      }
    } finally {
      await app.run(
        Db.query((db) => sql`insert into kysely_migration (name, timestamp) values (${row!.name}, ${row!.timestamp})`.execute(db))
      )
    }
    expect((await call(`${app.apiUrl}/readyz`)).status).toBe(200)
  })

  it("while draining → 503 { status: draining } on every host; /healthz stays 200", async () => {
    await app.run(Effect.flatMap(Readiness, (readiness) => Ref.set(readiness.draining, true)))
    try {
      for (const [, url] of hosts) {
        const answer = await call(`${url}/readyz`)
        expect(answer.status).toBe(503)
        expect(answer.body).toEqual({ status: "draining" })
        expect((await call(`${url}/healthz`)).status).toBe(200)
      }
    } finally {
      await app.run(Effect.flatMap(Readiness, (readiness) => Ref.set(readiness.draining, false)))
    }
  })

  it("the API host's OpenAPI document lists GET /healthz and GET /readyz (200, and 503 for readyz) without security", async () => {
    const document = (await call(`${app.apiUrl}/openapi.json`)).body
    expect(document.paths["/healthz"].get.responses).toHaveProperty("200")
    expect(Object.keys(document.paths["/readyz"].get.responses)).toEqual(["200", "503"])
    expect(document.paths["/readyz"].get.security).toEqual([])
    // Every schema the probes name is in the document (the polish names schemas in components).
    for (const [, ref] of JSON.stringify(document.paths["/readyz"]).matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      expect(document.components.schemas).toHaveProperty([decodeURIComponent(ref!)])
    }
  })
})
