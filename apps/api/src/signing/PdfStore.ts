/**
 * Keeping a PDF: its bytes in the document storage (disk or S3) and its record in `signing_documents` (kind, name,
 * size in bytes, lower-case hex SHA-256), in the caller's transaction. Used for the contract PDF a preparation
 * renders and for the signed PDF an upload brings.
 */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { sha256Hex } from "../platform/Digest.js"
import type { DocumentStorageShape } from "../storage/DocumentStorage.js"
import type { SigningDocumentRepository } from "./SigningDocumentRepository.js"

/**
 * Stores `bytes` under `key` and records the document; returns the new document's id. `sha256` (lower-case hex)
 * when the caller has it already, as an inspected upload does: hashing a 25 MiB body here would hold the event loop.
 */
export const storePdf = (
  storage: DocumentStorageShape,
  documents: SigningDocumentRepository,
  pdf: {
    readonly organizationId: string
    readonly kind: "contract" | "signed"
    readonly key: string
    readonly fileName: string
    readonly bytes: Uint8Array
    readonly sha256?: string
    readonly at: Date
  }
) =>
  Effect.gen(function* () {
    const id = randomUUID()
    yield* storage.put(pdf.key, pdf.bytes, "application/pdf")
    yield* documents.insertDocument({
      id,
      organizationId: pdf.organizationId,
      kind: pdf.kind,
      storageKey: pdf.key,
      fileName: pdf.fileName,
      contentType: "application/pdf",
      sizeBytes: pdf.bytes.length,
      sha256: pdf.sha256 ?? sha256Hex(pdf.bytes),
      createdAt: pdf.at
    })
    return id
  })
