import { describe, expect, it } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import { Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll } from "vitest"
import * as FileAddresses from "../../src/storage/FileAddresses.js"
import { UrlSigner } from "../../src/storage/UrlSigner.js"
import { TestKeyEncryption } from "../support/KeyEncryptionFixtures.js"

const BASE_URL = "https://api.example.test"
const NOW = new Date("2026-11-23T09:00:00.000Z")
const EXPIRES_AT = new Date(NOW.getTime() + 900_000)
const binding = { uploadId: "6d1e1f9a-2b3c-4d5e-8f90-a1b2c3d4e5f6", sizeBytes: 48_213, sha256: "ab".repeat(32) }

const paramsOf = (address: string) => {
  const url = new URL(address)
  return {
    path: url.pathname,
    received: {
      expires: url.searchParams.get("expires") ?? undefined,
      signature: url.searchParams.get("signature") ?? undefined
    }
  }
}

describe("signed addresses on the API host", () => {
  const database = Db.layer({ _tag: "pglite", dataDir: undefined })
  let runtime: ManagedRuntime.ManagedRuntime<UrlSigner | Db.Db, never>
  const run = <A, E>(effect: Effect.Effect<A, E, UrlSigner | Db.Db>) => runtime.runPromise(effect)

  beforeAll(async () => {
    runtime = ManagedRuntime.make(UrlSigner.Default.pipe(Layer.provideMerge(database), Layer.provide(TestKeyEncryption), Layer.orDie))
    await runtime.runtime()
  }, 60_000)
  afterAll(() => runtime.dispose())

  describe("the upload address (valid 15 minutes, bound to the declared size and SHA-256)", () => {
    it("names the upload and verifies until it expires", async () => {
      const { path, received } = paramsOf(await run(FileAddresses.uploadAddress(BASE_URL, binding, EXPIRES_AT)))
      expect(path).toBe(`/v1/crm/signed-document-uploads/${binding.uploadId}`)
      expect(received.expires).toBe(String(EXPIRES_AT.getTime() / 1000))
      expect(await run(FileAddresses.verifyUpload(binding, received, NOW))).toBe("valid")
      expect(await run(FileAddresses.verifyUpload(binding, received, new Date(EXPIRES_AT.getTime() - 1)))).toBe("valid")
      expect(await run(FileAddresses.verifyUpload(binding, received, EXPIRES_AT))).toBe("expired")
    })

    const others: ReadonlyArray<readonly [string, FileAddresses.UploadBinding]> = [
      ["another upload", { ...binding, uploadId: "6d1e1f9a-2b3c-4d5e-8f90-a1b2c3d4e5f7" }],
      ["another size", { ...binding, sizeBytes: binding.sizeBytes + 1 }],
      ["another digest", { ...binding, sha256: "cd".repeat(32) }]
    ]
    for (const [name, other] of others) {
      it(`does not verify for ${name}`, async () => {
        const { received } = paramsOf(await run(FileAddresses.uploadAddress(BASE_URL, binding, EXPIRES_AT)))
        expect(await run(FileAddresses.verifyUpload(other, received, NOW))).toBe("invalid")
      })
    }

    it("refuses a moved expiry, a forged or missing signature, and malformed parameters", async () => {
      const { received } = paramsOf(await run(FileAddresses.uploadAddress(BASE_URL, binding, EXPIRES_AT)))
      const later = String(Number(received.expires) + 3600)
      const cases = [
        { expires: later, signature: received.signature },
        { expires: received.expires, signature: "A".repeat(43) },
        { expires: received.expires, signature: undefined },
        { expires: undefined, signature: received.signature },
        { expires: "-1", signature: received.signature },
        { expires: "1e9", signature: received.signature },
        { expires: received.expires, signature: `${received.signature}=` }
      ]
      for (const params of cases) expect(await run(FileAddresses.verifyUpload(binding, params, NOW))).toBe("invalid")
    })

    it("a download address does not open an upload, nor the other way round", async () => {
      const download = paramsOf(await run(FileAddresses.downloadAddress(BASE_URL, binding.uploadId, EXPIRES_AT)))
      expect(await run(FileAddresses.verifyUpload(binding, download.received, NOW))).toBe("invalid")
      const upload = paramsOf(await run(FileAddresses.uploadAddress(BASE_URL, binding, EXPIRES_AT)))
      expect(await run(FileAddresses.verifyDownload(binding.uploadId, upload.received, NOW))).toBe("invalid")
    })
  })

  it("every instance on the database signs with the same key", async () => {
    const address = await run(FileAddresses.uploadAddress(BASE_URL, binding, EXPIRES_AT))
    // A second signer over the same database, as a second API instance would build it.
    const secondSigner = UrlSigner.Default.pipe(Layer.provide(TestKeyEncryption), Layer.orDie)
    const second = await run(Effect.provide(FileAddresses.verifyUpload(binding, paramsOf(address).received, NOW), secondSigner))
    expect(second).toBe("valid")
  })
})
