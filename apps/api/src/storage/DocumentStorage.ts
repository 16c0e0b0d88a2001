/**
 * Where document bytes live (decisions 6: "Storage is the local disk by default and any S3-compatible store when
 * configured"): the contract PDFs sent for signature and the signed PDFs that come back. One interface, two
 * implementations — `LocalDiskStorage` (files under `DATA_DIR/files`) and `S3Storage` (a bucket, through the AWS
 * SDK v3 S3 client and presigner) — chosen by `StorageConfig`.
 *
 * Bytes reach storage only after they passed their checks (the signed-PDF upload is received and checked by the
 * API host itself, see `FileAddresses`), so storage never holds a refused file. Storage failures are defects: a
 * caller can't act on them, and the request answers 500 with its request id.
 */
import { Context, type Effect, type Option } from "effect"

/**
 * A stored object's key: `/`-separated segments of lower-case letters, digits, `.`, `_` and `-`, never `.` or `..`
 * (so a disk implementation can't be led outside its root). Keys are made by the service, never by a caller.
 */
export const isStorageKey = (key: string): boolean =>
  key.length > 0 &&
  key.length <= 512 &&
  key.split("/").every((segment) => /^[a-z0-9._-]+$/.test(segment) && segment !== "." && segment !== "..")

/** What a download address names: the stored object, the document's id, and the file name to suggest. */
export interface DownloadTarget {
  readonly key: string
  readonly documentId: string
  readonly fileName: string
  readonly contentType: string
}

export interface DocumentStorageShape {
  /** `local-disk` or `s3`, for logs and the start-up banner. */
  readonly kind: "local-disk" | "s3"
  /** Stores `bytes` under `key`, replacing what was there. Written whole or not at all. */
  readonly put: (key: string, bytes: Uint8Array, contentType: string) => Effect.Effect<void>
  /** The bytes under `key`, or none. */
  readonly get: (key: string) => Effect.Effect<Option.Option<Uint8Array>>
  /** Removes `key`; removing a missing key is not an error. */
  readonly remove: (key: string) => Effect.Effect<void>
  /**
   * A GET address for the object that works without a token until `expiresAt` (at most 7 days ahead, S3's limit
   * for presigned addresses): a presigned S3 address, or a signed address on the API host for the local disk.
   */
  readonly downloadAddress: (target: DownloadTarget, expiresAt: Date) => Effect.Effect<string>
}

export class DocumentStorage extends Context.Tag("@propline/api/DocumentStorage")<
  DocumentStorage,
  DocumentStorageShape
>() {}
