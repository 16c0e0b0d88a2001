import { describe, expect, it } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { isWellFormedSecret } from "@propline/identity/ClientSecret"
import { Effect, ManagedRuntime } from "effect"
import { execFileSync } from "node:child_process"
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll } from "vitest"
import {
  DEMO_CREDENTIALS_FILE,
  type DemoCredentials,
  ensureDemoCredentials,
  printDemoBanner
} from "../../src/demo/DemoCredentials.js"
import { type DemoSeed, seedDemoData } from "../../src/demo/DemoData.js"
import { ApplicationService, secretDigest } from "../../src/identity/ApplicationService.js"
import { ControlledClock } from "../identity/IdentityTestHost.js"

const NOW = new Date("2026-11-22T10:00:00.000Z")
const AUTH_URL = "http://localhost:4000"
const BASE_URL = "http://localhost:3000"

describe.each(TestDatabase.kinds())("ensureDemoCredentials on %s", (kind) => {
  let database: TestDatabase.TestDatabase
  let managed: ManagedRuntime.ManagedRuntime<Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, Db.Db>) => managed.runPromise(effect)
  let seed: DemoSeed
  let scratch: string
  let dataDir: string
  let filePath: string
  // Each call a minute later, so secrets are ordered by their creation time.
  const clock = new ControlledClock(NOW)
  const ensure = (urls: { readonly authUrl?: string; readonly baseUrl?: string } = {}) => {
    clock.advance("1 minute")
    return run(
      ensureDemoCredentials({
        dataDir,
        authUrl: urls.authUrl ?? AUTH_URL,
        baseUrl: urls.baseUrl ?? BASE_URL,
        seed
      }).pipe(Effect.withClock(clock))
    )
  }

  const activeSecrets = () =>
    run(
      Db.query((db) =>
        db
          .selectFrom("applicationSecrets")
          .select(["id", "secretDigest", "createdAt"])
          .where("applicationId", "=", seed.applicationId)
          .where("revokedAt", "is", null)
          .orderBy("createdAt")
          .execute()
      )
    )
  const readJson = async (): Promise<Record<string, unknown>> => JSON.parse(await readFile(filePath, "utf8"))

  beforeAll(async () => {
    database = await TestDatabase.create(kind)
    managed = ManagedRuntime.make(Db.layer(database.config))
    seed = await run(seedDemoData(NOW))
    scratch = await mkdtemp(join(tmpdir(), "demo-credentials-"))
    dataDir = join(scratch, "not", "yet", "there")
    filePath = join(dataDir, DEMO_CREDENTIALS_FILE)
  })
  afterAll(async () => {
    await managed.dispose()
    await database.drop()
    await rm(scratch, { recursive: true, force: true })
  })

  describe("first start", () => {
    let first: DemoCredentials

    it("creates DATA_DIR and writes exactly client_id, client_secret, auth_url, base_url, mode 0600", async () => {
      first = await ensure()
      const file = await readJson()
      expect(Object.keys(file)).toStrictEqual(["client_id", "client_secret", "auth_url", "base_url"])
      expect(file).toStrictEqual({
        client_id: seed.clientId,
        client_secret: first.client_secret,
        auth_url: AUTH_URL,
        base_url: BASE_URL
      })
      expect(first.filePath).toBe(filePath)
      expect((await stat(filePath)).mode & 0o777).toBe(0o600)
      expect(isWellFormedSecret(first.client_secret)).toBe(true)
    })

    it("the file's secret digest matches the demo Application's only active secret", async () => {
      const active = await activeSecrets()
      expect(active.map((secret) => secret.secretDigest)).toStrictEqual([secretDigest(first.client_secret)])
    })

    it("leaves no temporary file behind", async () => {
      expect(await readdir(dataDir)).toStrictEqual([DEMO_CREDENTIALS_FILE])
    })
  })

  describe("later starts", () => {
    it("keep a valid file as it is and issue no secret", async () => {
      const before = await readFile(filePath, "utf8")
      const { mtimeMs } = await stat(filePath)
      const again = await ensure()
      expect(await readFile(filePath, "utf8")).toBe(before)
      expect((await stat(filePath)).mtimeMs).toBe(mtimeMs)
      expect(again.client_secret).toBe(JSON.parse(before).client_secret)
      expect(await activeSecrets()).toHaveLength(1)
    })

    it("rewrite the file with the same secret when the addresses change", async () => {
      const before = await readJson()
      const moved = await ensure({ authUrl: "https://auth.dev.example", baseUrl: "https://api.dev.example" })
      expect(moved.client_secret).toBe(before["client_secret"])
      expect(await readJson()).toStrictEqual({
        client_id: seed.clientId,
        client_secret: before["client_secret"],
        auth_url: "https://auth.dev.example",
        base_url: "https://api.dev.example"
      })
      expect(await activeSecrets()).toHaveLength(1)
      await ensure()
      expect((await readJson())["auth_url"]).toBe(AUTH_URL)
    })

    it("issue a fresh secret when the file was deleted, keeping the old one active (2 active)", async () => {
      const old = (await readJson())["client_secret"] as string
      await rm(filePath)
      const fresh = await ensure()
      expect(fresh.client_secret).not.toBe(old)
      const digests = (await activeSecrets()).map((secret) => secret.secretDigest)
      expect(digests).toStrictEqual([secretDigest(old), secretDigest(fresh.client_secret)])
      expect(await ensure()).toStrictEqual(fresh)
    })

    it("revoke the oldest secret (as system, audited) before issuing a third: never more than 2 active", async () => {
      const [oldest] = await activeSecrets()
      await rm(filePath)
      const fresh = await ensure()
      const active = await activeSecrets()
      expect(active).toHaveLength(2)
      expect(active.map((secret) => secret.id)).not.toContain(oldest?.id)
      expect(active.at(-1)?.secretDigest).toBe(secretDigest(fresh.client_secret))
      const audit = await run(
        Db.query((db) =>
          db
            .selectFrom("auditLog")
            .select(["actorType", "actorId", "action"])
            .where("targetId", "=", oldest?.id ?? "")
            .execute()
        )
      )
      expect(audit).toContainEqual({
        actorType: "system",
        actorId: "demo-credentials",
        action: "identity.application.secret_revoked"
      })
    })

    it("replace a file whose secret was revoked", async () => {
      const [current] = (await activeSecrets()).slice(-1)
      await run(
        Effect.flatMap(ApplicationService, (applications) =>
          applications.revokeSecret(seed.applicationId, current?.id ?? "", { type: "operator", id: "op" })
        ).pipe(Effect.provide(ApplicationService.Default))
      )
      const revoked = (await readJson())["client_secret"]
      const fresh = await ensure()
      expect(fresh.client_secret).not.toBe(revoked)
      expect((await activeSecrets()).map((secret) => secret.secretDigest)).toContain(secretDigest(fresh.client_secret))
      expect((await activeSecrets()).length).toBeLessThanOrEqual(2)
    })

    it("replace a malformed file, a file of another client and a file with extra keys", async () => {
      const cases = [
        "not json",
        JSON.stringify({ client_id: seed.clientId }),
        JSON.stringify({ ...(await readJson()), client_id: seed.second.clientId }),
        JSON.stringify({ ...(await readJson()), extra: "x" })
      ]
      for (const content of cases) {
        await writeFile(filePath, content)
        const fresh = await ensure()
        expect(await readJson()).toStrictEqual({
          client_id: seed.clientId,
          client_secret: fresh.client_secret,
          auth_url: AUTH_URL,
          base_url: BASE_URL
        })
        expect((await activeSecrets()).map((secret) => secret.secretDigest)).toContain(
          secretDigest(fresh.client_secret)
        )
        expect((await activeSecrets()).length).toBeLessThanOrEqual(2)
      }
    })

    it("narrow a kept file's mode back to 0600", async () => {
      await chmod(filePath, 0o644)
      await ensure()
      expect((await stat(filePath)).mode & 0o777).toBe(0o600)
    })

    it("instances starting together agree on one secret", async () => {
      await rm(filePath)
      const results = await Promise.all([ensure(), ensure(), ensure()])
      expect(new Set(results.map((result) => result.client_secret)).size).toBe(1)
      expect((await readJson())["client_secret"]).toBe(results[0]?.client_secret)
      expect((await activeSecrets()).length).toBeLessThanOrEqual(2)
    })
  })

  describe("printDemoBanner", () => {
    it("names the hosts, the client_id, the file, and commands for a token and the verification queue", async () => {
      const credentials = await ensure()
      const banner = printDemoBanner(credentials)
      for (const text of [
        AUTH_URL,
        BASE_URL,
        credentials.client_id,
        filePath,
        "-d grant_type=client_credentials",
        `${AUTH_URL}/oauth/token`,
        `curl -s -H "Authorization: Bearer $TOKEN" ${BASE_URL}/v1/billing/verification-queue`
      ]) {
        expect(banner).toContain(text)
      }
    })

    it("never prints the secret: the token command reads it from the file", async () => {
      const credentials = await ensure()
      const banner = printDemoBanner(credentials)
      expect(banner).not.toContain(credentials.client_secret)
      expect(banner).not.toContain(credentials.client_secret.slice("service_sk_".length))
      // The `-u "$(…)"` of the printed command, run by a shell as a user pasting it would.
      const basic = /curl -s -u "(\$\(.+?\))" -d grant_type/.exec(banner)?.[1]
      expect(basic).toBeDefined()
      const printed = execFileSync("bash", ["-c", `echo ${basic}`], { encoding: "utf8" }).trim()
      expect(printed).toBe(`${credentials.client_id}:${credentials.client_secret}`)
    })
  })
})
