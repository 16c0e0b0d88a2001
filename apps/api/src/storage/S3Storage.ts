/**
 * Document storage in any S3-compatible bucket (AWS S3, MinIO, Ceph, s3rver …) through the AWS SDK v3 S3 client;
 * download addresses are presigned GET addresses (SigV4 query signing) made by the SDK's presigner, so files go
 * from the bucket to the e-signing system without passing through the API host.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  NoSuchKey,
  PutObjectCommand,
  S3Client
} from "@aws-sdk/client-s3"
import { getSignedUrl } from "@aws-sdk/s3-request-presigner"
import { Clock, Effect, Layer, Option } from "effect"
import { DocumentStorage, isStorageKey } from "./DocumentStorage.js"

/**
 * How to reach the bucket. `endpoint` is absent for AWS itself; `forcePathStyle` for most other stores. Without
 * `credentials` the SDK's default chain finds them (environment, profile, instance role).
 */
export interface S3Options {
  readonly bucket: string
  readonly region: string
  readonly endpoint?: string | undefined
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string } | undefined
  readonly forcePathStyle: boolean
}

const checkedKey = (key: string) => {
  if (!isStorageKey(key)) throw new Error(`not a storage key: ${JSON.stringify(key)}`)
  return key
}

// RFC 6266 / RFC 8187: an ASCII fallback and the exact UTF-8 name.
const contentDisposition = (fileName: string) => {
  const fallback = fileName.replace(/[^\x20-\x7e]|["\\]/g, "_")
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeURIComponent(fileName)}`
}

/** The storage layer over one bucket; the client is closed with the layer. */
export const layer = (options: S3Options) =>
  Layer.scoped(
    DocumentStorage,
    Effect.gen(function* () {
      const client = yield* Effect.acquireRelease(
        Effect.sync(
          () =>
            new S3Client({
              region: options.region,
              ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
              forcePathStyle: options.forcePathStyle,
              ...(options.credentials === undefined ? {} : { credentials: { ...options.credentials } }),
              // Checksums only where S3 requires them: many S3-compatible stores don't know the newer headers.
              requestChecksumCalculation: "WHEN_REQUIRED",
              responseChecksumValidation: "WHEN_REQUIRED"
            })
        ),
        (client) => Effect.sync(() => client.destroy())
      )
      const Bucket = options.bucket
      return DocumentStorage.of({
        kind: "s3",
        put: (key, bytes, contentType) =>
          Effect.promise(() =>
            client.send(
              new PutObjectCommand({
                Bucket,
                Key: checkedKey(key),
                Body: bytes,
                ContentType: contentType,
                ContentLength: bytes.length
              })
            )
          ),
        get: (key) =>
          Effect.promise(async () => {
            try {
              const object = await client.send(new GetObjectCommand({ Bucket, Key: checkedKey(key) }))
              if (object.Body === undefined) return Option.none()
              return Option.some(await object.Body.transformToByteArray())
            } catch (error) {
              if (error instanceof NoSuchKey) return Option.none()
              throw error
            }
          }),
        remove: (key) =>
          Effect.promise(() => client.send(new DeleteObjectCommand({ Bucket, Key: checkedKey(key) }))),
        downloadAddress: (target, expiresAt) =>
          Effect.flatMap(Clock.currentTimeMillis, (now) =>
            Effect.promise(() =>
              getSignedUrl(
                client,
                new GetObjectCommand({
                  Bucket,
                  Key: checkedKey(target.key),
                  ResponseContentType: target.contentType,
                  ResponseContentDisposition: contentDisposition(target.fileName)
                }),
                // Signed at the service's clock, so an address's lifetime is counted as everything else's.
                { signingDate: new Date(now), expiresIn: Math.max(1, Math.ceil((expiresAt.getTime() - now) / 1000)) }
              )
            )
          )
      })
    })
  )
