/**
 * The short-lived addresses the API host serves itself, and how they are signed (`UrlSigner`):
 *
 * - the signed-PDF upload address, `PUT {base_url}/v1/crm/signed-document-uploads/{uploadId}?expires=…&signature=…`,
 *   valid 15 minutes and bound to the upload's declared size and SHA-256 (decisions 6);
 * - a document download address on the local disk,
 *   `GET {base_url}/v1/crm/signing-documents/{documentId}/content?expires=…&signature=…`.
 *
 * Neither needs an access token: the signature is the permission, as with a presigned S3 address.
 */
import { Effect } from "effect"
import { type SignedParams, UrlSigner } from "./UrlSigner.js"

/** The `expires` and `signature` query parameters as received (absent when missing). */
export interface ReceivedParams {
  readonly expires: string | undefined
  readonly signature: string | undefined
}

/** The path of an upload address, without its query. */
export const uploadPath = (uploadId: string) => `/v1/crm/signed-document-uploads/${uploadId}`

/** The path of a local-disk download address, without its query. */
export const downloadPath = (documentId: string) => `/v1/crm/signing-documents/${documentId}/content`

/** What an upload address is bound to: the upload and the size (bytes) and lower-case hex SHA-256 declared. */
export interface UploadBinding {
  readonly uploadId: string
  readonly sizeBytes: number
  readonly sha256: string
}

const uploadParts = (binding: UploadBinding) => ["PUT", binding.uploadId, String(binding.sizeBytes), binding.sha256]
const downloadParts = (documentId: string) => ["GET", documentId]

const withQuery = (baseUrl: string, path: string, params: SignedParams) =>
  `${baseUrl}${path}?${new URLSearchParams({ expires: params.expires, signature: params.signature }).toString()}`

/** The upload address for `binding`, on `baseUrl`, valid until `expiresAt`. */
export const uploadAddress = (baseUrl: string, binding: UploadBinding, expiresAt: Date) =>
  Effect.map(UrlSigner, (signer) =>
    withQuery(baseUrl, uploadPath(binding.uploadId), signer.sign(uploadParts(binding), expiresAt))
  )

/** Checks a received upload address's query against the upload it names (see `UrlSigner.verify`). */
export const verifyUpload = (binding: UploadBinding, received: ReceivedParams, now: Date) =>
  Effect.map(UrlSigner, (signer) =>
    signer.verify(uploadParts(binding), received, now)
  )

/** The local-disk download address of `documentId`, on `baseUrl`, valid until `expiresAt`. */
export const downloadAddress = (baseUrl: string, documentId: string, expiresAt: Date) =>
  Effect.map(UrlSigner, (signer) =>
    withQuery(baseUrl, downloadPath(documentId), signer.sign(downloadParts(documentId), expiresAt))
  )

/** Checks a received download address's query against the document it names. */
export const verifyDownload = (documentId: string, received: ReceivedParams, now: Date) =>
  Effect.map(UrlSigner, (signer) =>
    signer.verify(downloadParts(documentId), received, now)
  )
