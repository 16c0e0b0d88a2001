/**
 * Key-encryption keys for tests: one random keyring per test process (no test depends on its bytes), the layer
 * that provides it, and `pg_dump` of a PostgreSQL test database (the at-rest tests grep it for key material).
 */
import { Either } from "effect"
import { execFileSync } from "node:child_process"
import { generateKeyEntry, KeyEncryption, type Keyring, parseKeyring } from "../../src/platform/KeyEncryption.js"

/** A keyring of fresh keys with these ids, the first one sealing. */
export const keyringOf = (...ids: ReadonlyArray<string>): Keyring => keyringOfEntries(...ids.map(generateKeyEntry))

/** The key list entry (`test:<key>`) of {@link testKeyring}, to list it beside another key. */
export const testKeyEntry = generateKeyEntry("test")

/** A keyring of these key list entries, the first one sealing. */
export const keyringOfEntries = (...entries: ReadonlyArray<string>): Keyring => Either.getOrThrow(parseKeyring(entries.join(",")))

/** The keyring the product's services get in tests. */
export const testKeyring: Keyring = keyringOfEntries(testKeyEntry)

/** {@link testKeyring} as a layer. */
export const TestKeyEncryption = KeyEncryption.layer(testKeyring)

/** Whether `pg_dump` is on PATH. */
export const hasPgDump = (): boolean => {
  try {
    execFileSync("pg_dump", ["--version"], { stdio: "ignore" })
    return true
  } catch {
    return false
  }
}

/** The whole database (schema and data) as `pg_dump` writes it, in plain SQL. */
export const pgDump = (connectionString: string): string =>
  execFileSync("pg_dump", ["--no-owner", "--dbname", connectionString], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
