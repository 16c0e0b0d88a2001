import { describe, expect, it } from "@effect/vitest"
import * as Db from "@propline/db/Db"
import { Effect, Exit, Layer, ManagedRuntime, Option, TestClock, TestContext } from "effect"
import { randomUUID } from "node:crypto"
import { mkdtemp, readdir, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll } from "vitest"
import { DocumentStorage, isStorageKey } from "../../src/storage/DocumentStorage.js"
import * as FileAddresses from "../../src/storage/FileAddresses.js"
import * as LocalDiskStorage from "../../src/storage/LocalDiskStorage.js"
import * as S3Storage from "../../src/storage/S3Storage.js"
import { UrlSigner } from "../../src/storage/UrlSigner.js"
import { TestKeyEncryption } from "../support/KeyEncryptionFixtures.js"
import * as S3Server from "../support/S3Server.js"

const BASE_URL = "http://127.0.0.1:3999"
const pdf = new TextEncoder().encode("%PDF-1.7\n% stored bytes åäö\n%%EOF\n")

interface Backend {
  readonly name: "local-disk" | "s3"
  readonly layer: () => Promise<{ layer: Layer.Layer<DocumentStorage | UrlSigner>; close: () => Promise<void> }>
}

const signerLayer = UrlSigner.Default.pipe(
  Layer.provideMerge(Db.layer({ _tag: "pglite", dataDir: undefined })),
  Layer.provide(TestKeyEncryption),
  Layer.orDie
)

const backends: ReadonlyArray<Backend> = [
  {
    name: "local-disk",
    layer: async () => {
      const root = await mkdtemp(path.join(tmpdir(), "propline-files-"))
      return {
        layer: LocalDiskStorage.layer({ root, baseUrl: BASE_URL }).pipe(Layer.provideMerge(signerLayer)),
        close: () => rm(root, { recursive: true, force: true })
      }
    }
  },
  {
    name: "s3",
    layer: async () => {
      const server = await S3Server.start()
      return { layer: Layer.merge(S3Storage.layer(server.options), signerLayer), close: server.close }
    }
  }
]

describe.each(backends)("DocumentStorage on $name", (backend) => {
  let runtime: ManagedRuntime.ManagedRuntime<DocumentStorage | UrlSigner, never>
  let close: () => Promise<void>
  const run = <A, E>(effect: Effect.Effect<A, E, DocumentStorage | UrlSigner>) => runtime.runPromise(effect)
  const key = () => `org-1/signed/${randomUUID()}.pdf`

  beforeAll(async () => {
    const made = await backend.layer()
    close = made.close
    runtime = ManagedRuntime.make(made.layer)
    await runtime.runtime()
  }, 60_000)
  afterAll(async () => {
    await runtime.dispose()
    await close()
  })

  it("stores bytes and gives them back exactly", async () => {
    const k = key()
    await run(Effect.flatMap(DocumentStorage, (storage) => storage.put(k, pdf, "application/pdf")))
    const stored = await run(Effect.flatMap(DocumentStorage, (storage) => storage.get(k)))
    expect(Option.getOrThrow(stored)).toEqual(pdf)
  })

  it("gives none for a key never stored, and for a removed one", async () => {
    const k = key()
    expect(Option.isNone(await run(Effect.flatMap(DocumentStorage, (storage) => storage.get(k))))).toBe(true)
    await run(Effect.flatMap(DocumentStorage, (storage) => storage.put(k, pdf, "application/pdf")))
    await run(Effect.flatMap(DocumentStorage, (storage) => storage.remove(k)))
    expect(Option.isNone(await run(Effect.flatMap(DocumentStorage, (storage) => storage.get(k))))).toBe(true)
    await run(Effect.flatMap(DocumentStorage, (storage) => storage.remove(k)))
  })

  it("replaces what a key held", async () => {
    const k = key()
    const other = new TextEncoder().encode("%PDF-1.4 other")
    await run(Effect.flatMap(DocumentStorage, (storage) => storage.put(k, pdf, "application/pdf")))
    await run(Effect.flatMap(DocumentStorage, (storage) => storage.put(k, other, "application/pdf")))
    expect(Option.getOrThrow(await run(Effect.flatMap(DocumentStorage, (storage) => storage.get(k))))).toEqual(other)
  })

  it("refuses a key that could leave its root, as a defect", async () => {
    for (const bad of ["../escape.pdf", "a/../../b", "/abs.pdf", "A/Upper.pdf", "a//b", ""]) {
      expect(isStorageKey(bad)).toBe(false)
      const exit = await runtime.runPromiseExit(Effect.flatMap(DocumentStorage, (storage) => storage.get(bad)))
      expect(Exit.isFailure(exit)).toBe(true)
    }
  })

  it("handles 20 writes and reads at once", async () => {
    const keys = Array.from({ length: 20 }, key)
    await run(
      Effect.forEach(keys, (k) => Effect.flatMap(DocumentStorage, (storage) => storage.put(k, pdf, "application/pdf")), {
        concurrency: "unbounded"
      })
    )
    const all = await run(
      Effect.forEach(keys, (k) => Effect.flatMap(DocumentStorage, (storage) => storage.get(k)), { concurrency: "unbounded" })
    )
    for (const stored of all) expect(Option.getOrThrow(stored)).toEqual(pdf)
  })

  if (backend.name === "s3") {
    it("gives a presigned address that downloads the file with its type and name until it expires", async () => {
      const k = key()
      await run(Effect.flatMap(DocumentStorage, (storage) => storage.put(k, pdf, "application/pdf")))
      const target = { key: k, documentId: randomUUID(), fileName: "Kontrakt K-1 åäö.pdf", contentType: "application/pdf" }
      const address = await run(
        Effect.flatMap(DocumentStorage, (storage) => storage.downloadAddress(target, new Date(Date.now() + 900_000)))
      )
      expect(address).toContain("X-Amz-Signature=")
      expect(address).toContain("X-Amz-Expires=")
      const response = await fetch(address)
      expect(response.status).toBe(200)
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(pdf)
      expect(response.headers.get("content-type")).toBe("application/pdf")
      expect(response.headers.get("content-disposition")).toContain("filename*=UTF-8''Kontrakt%20K-1%20%C3%A5%C3%A4%C3%B6.pdf")
    })

    it("an address whose lifetime is over is refused by the store", async () => {
      const k = key()
      await run(Effect.flatMap(DocumentStorage, (storage) => storage.put(k, pdf, "application/pdf")))
      const target = { key: k, documentId: randomUUID(), fileName: "x.pdf", contentType: "application/pdf" }
      // Signed an hour ago for one second: the presigner signs at the service's clock, here moved back.
      const anHourAgo = Date.now() - 3_600_000
      const signedAnHourAgo = Effect.gen(function* () {
        yield* TestClock.setTime(anHourAgo)
        const storage = yield* DocumentStorage
        return yield* storage.downloadAddress(target, new Date(anHourAgo + 1000))
      }).pipe(Effect.provide(TestContext.TestContext))
      const response = await fetch(await run(signedAnHourAgo))
      expect(response.status).toBe(403)
    })
  } else {
    it("gives a signed address on the API host, valid for that document until it expires", async () => {
      const documentId = randomUUID()
      const expiresAt = new Date(Date.now() + 900_000)
      const target = { key: key(), documentId, fileName: "x.pdf", contentType: "application/pdf" }
      const address = new URL(
        await run(Effect.flatMap(DocumentStorage, (storage) => storage.downloadAddress(target, expiresAt)))
      )
      expect(`${address.origin}${address.pathname}`).toBe(`${BASE_URL}/v1/crm/signing-documents/${documentId}/content`)
      const received = {
        expires: address.searchParams.get("expires") ?? undefined,
        signature: address.searchParams.get("signature") ?? undefined
      }
      expect(await run(FileAddresses.verifyDownload(documentId, received, new Date()))).toBe("valid")
      const afterExpiry = new Date(expiresAt.getTime() + 1000)
      expect(await run(FileAddresses.verifyDownload(documentId, received, afterExpiry))).toBe("expired")
      const tampered = { ...received, expires: String(Number(received.expires) + 3600) }
      expect(await run(FileAddresses.verifyDownload(documentId, tampered, new Date()))).toBe("invalid")
      expect(await run(FileAddresses.verifyDownload(randomUUID(), received, new Date()))).toBe("invalid")
    })
  }
})

describe("local-disk storage writes atomically", () => {
  it("a put leaves only the final file in its directory", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "propline-files-"))
    const runtime = ManagedRuntime.make(LocalDiskStorage.layer({ root, baseUrl: BASE_URL }).pipe(Layer.provide(signerLayer)))
    try {
      await runtime.runPromise(Effect.flatMap(DocumentStorage, (storage) => storage.put("o/k/a.pdf", pdf, "application/pdf")))
      expect(await readdir(path.join(root, "o", "k"))).toEqual(["a.pdf"])
    } finally {
      await runtime.dispose()
      await rm(root, { recursive: true, force: true })
    }
  })
})
