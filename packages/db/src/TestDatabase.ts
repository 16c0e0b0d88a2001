/**
 * Fresh databases for test suites: every call gives a database no other suite sees, so test files run in
 * parallel. PGlite (in memory) always; PostgreSQL when `TEST_DATABASE_URL` or `DATABASE_URL` names a server, as
 * a new database created beside the named one and dropped afterwards. `REQUIRE_POSTGRES=1` turns a missing URL
 * into an error, so CI can't silently skip the PostgreSQL run.
 */
import { randomUUID } from "node:crypto"
import pg from "pg"
import type { DbConfig } from "./Db.js"

/** A fresh database and how to drop it. */
export interface TestDatabase {
  readonly config: DbConfig
  readonly drop: () => Promise<void>
}

/** The server URL tests use for PostgreSQL, or `undefined` when none is configured. */
export const postgresUrl = (): string | undefined => {
  const url = process.env["TEST_DATABASE_URL"] ?? process.env["DATABASE_URL"]
  if ((url === undefined || url === "") && process.env["REQUIRE_POSTGRES"] === "1") {
    throw new Error("REQUIRE_POSTGRES=1 but neither TEST_DATABASE_URL nor DATABASE_URL is set")
  }
  return url === "" ? undefined : url
}

/** The kinds a suite should run on: always `pglite`, plus `postgres` when a server is configured. */
export const kinds = (): ReadonlyArray<DbConfig["_tag"]> =>
  postgresUrl() === undefined ? ["pglite"] : ["pglite", "postgres"]

/** Creates a fresh, empty database of the given kind (the schema is applied when the Db layer opens it). */
export const create = async (kind: DbConfig["_tag"]): Promise<TestDatabase> => {
  if (kind === "pglite") {
    return { config: { _tag: "pglite", dataDir: undefined }, drop: async () => {} }
  }
  const url = postgresUrl()
  if (url === undefined) throw new Error("no PostgreSQL URL configured (TEST_DATABASE_URL or DATABASE_URL)")
  const name = `test_${randomUUID().replaceAll("-", "")}`
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query(`create database ${name}`)
  } finally {
    await admin.end()
  }
  const target = new URL(url)
  target.pathname = `/${name}`
  return {
    config: { _tag: "postgres", connectionString: target.toString(), maxConnections: 20 },
    drop: async () => {
      const client = new pg.Client({ connectionString: url })
      await client.connect()
      try {
        await client.query(`drop database if exists ${name} with (force)`)
      } finally {
        await client.end()
      }
    }
  }
}
