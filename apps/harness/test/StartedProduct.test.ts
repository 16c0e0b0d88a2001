/**
 * The started product's retry when a port it was given is taken before it binds it: the first attempt seeds the
 * database and writes the demo files, then exits with EADDRINUSE; the next attempt, on other ports and the same
 * DATA_DIR, finds the files and reports ready (CI once waited 240 s for a retry in a fresh directory, which found the
 * database seeded by "another start" and wrote no files).
 */
import { freePorts } from "@propline/db/FreePort"
import * as TestDatabase from "@propline/db/TestDatabase"
import { createServer, type Server } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tokenUrl } from "../src/Harness.js"
import { type StartedProduct, startProduct } from "../src/StartedProduct.js"

// On the database where the retry once failed (PGlite when no server is configured).
const kind = TestDatabase.kinds().includes("postgres") ? "postgres" : "pglite"

describe(`a start whose first API port is taken, on ${kind}`, () => {
  let database: TestDatabase.TestDatabase
  let taken: Server
  let product: StartedProduct
  const attempts: Array<number> = []
  let secondApiPort = 0

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve))
    const takenPort = (taken.address() as { port: number }).port
    product = await startProduct({
      ...(database.config._tag === "postgres" ? { databaseUrl: database.config.connectionString } : {}),
      ports: async (attempt) => {
        attempts.push(attempt)
        const [api, auth, admin] = await freePorts(3)
        if (attempt === 1) return [takenPort, auth!, admin!]
        secondApiPort = api!
        return [api!, auth!, admin!]
      }
    })
  }, 300_000)

  afterAll(async () => {
    await product?.stop()
    taken?.close()
    await database?.drop()
  }, 60_000)

  it("starts again on other ports and reports ready with the first attempt's demo credentials", async () => {
    expect(attempts).toEqual([1, 2])
    expect(product.listening.apiUrl).toBe(`http://127.0.0.1:${secondApiPort}`)
    // The file the first attempt wrote, its addresses rewritten by the second.
    expect(product.credentials.base_url).toBe(product.listening.apiUrl)
    expect(product.credentials.auth_url).toBe(product.listening.authUrl)
    const token = await fetch(tokenUrl(product.credentials), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "client_credentials",
        client_id: product.credentials.client_id,
        client_secret: product.credentials.client_secret
      })
    })
    expect(token.status).toBe(200)
  })
})
