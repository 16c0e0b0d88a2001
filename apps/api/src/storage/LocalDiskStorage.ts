/**
 * Document storage on the local disk (the default; decisions 6): each object is a file under one root directory
 * (`DATA_DIR/files`), written to a temporary file and renamed into place, so a reader never sees half a file.
 * Download addresses are signed addresses on the API host (`FileAddresses`), served by it.
 */
import { Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises"
import * as path from "node:path"
import { DocumentStorage, isStorageKey } from "./DocumentStorage.js"
import * as FileAddresses from "./FileAddresses.js"
import { UrlSigner } from "./UrlSigner.js"

const isMissing = (error: unknown) =>
  typeof error === "object" && error !== null && (error as { readonly code?: unknown }).code === "ENOENT"

/** The storage layer over `root` (created when missing); download addresses point at `baseUrl`. */
export const layer = (options: { readonly root: string; readonly baseUrl: string }) =>
  Layer.effect(
    DocumentStorage,
    Effect.gen(function* () {
      const root = path.resolve(options.root)
      const signer = yield* UrlSigner
      yield* Effect.promise(() => mkdir(root, { recursive: true }))
      const fileOf = (key: string) => {
        if (!isStorageKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`)
        return path.join(root, ...key.split("/"))
      }
      return DocumentStorage.of({
        kind: "local-disk",
        put: (key, bytes) =>
          Effect.promise(async () => {
            const file = fileOf(key)
            await mkdir(path.dirname(file), { recursive: true })
            const temporary = `${file}.${randomUUID()}.partial`
            try {
              await writeFile(temporary, bytes, { flag: "wx" })
              await rename(temporary, file)
            } catch (error) {
              await rm(temporary, { force: true })
              throw error
            }
          }),
        get: (key) =>
          Effect.promise(async () => {
            try {
              return Option.some(new Uint8Array(await readFile(fileOf(key))))
            } catch (error) {
              if (isMissing(error)) return Option.none()
              throw error
            }
          }),
        remove: (key) => Effect.promise(() => rm(fileOf(key), { force: true })),
        downloadAddress: (target, expiresAt) =>
          FileAddresses.downloadAddress(options.baseUrl, target.documentId, expiresAt).pipe(
            Effect.provideService(UrlSigner, signer)
          )
      })
    })
  )
