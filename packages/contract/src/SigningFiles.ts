/**
 * The two signing addresses the API host serves beside the HttpApi (decisions 6), in the OpenAPI document: the
 * signed-PDF upload (`PUT /v1/crm/signed-document-uploads/{uploadId}`, the address `signed-document-upload` gives)
 * and a stored document's download on the local disk (`GET /v1/crm/signing-documents/{documentId}/content`, the
 * address in a signing-queue item). Neither takes a token: the `expires` and `signature` query parameters the
 * address carries (an HMAC over the upload, or the document, and the time) are the permission. Their bodies are a
 * PDF, not JSON, so they are OpenAPI path items written here rather than HttpApi endpoints.
 */
import * as JSONSchema from "effect/JSONSchema"
import { Schema } from "effect"
import {
  BadRequest,
  Forbidden,
  InternalServerError,
  NOT_FOUND_RULE,
  NotFound,
  PayloadTooLarge,
  SERVICE_UNAVAILABLE_RULE,
  ServiceUnavailable,
  UnsupportedMediaType
} from "./Problem.js"
import { MAX_SIGNED_DOCUMENT_BYTES } from "./Signing.js"
import { Timestamp } from "./Values.js"

/** The upload address's path (`{uploadId}` the upload's id). */
export const SIGNED_DOCUMENT_UPLOAD_PATH = "/v1/crm/signed-document-uploads/{uploadId}"
/** The local-disk download address's path (`{documentId}` the document's id). */
export const SIGNING_DOCUMENT_CONTENT_PATH = "/v1/crm/signing-documents/{documentId}/content"

/** 201 of the upload PUT: the PDF passed its checks and is stored. */
export class SignedDocumentStored extends Schema.Class<SignedDocumentStored>("SignedDocumentStored")(
  {
    uploadId: Schema.UUID.annotations({ description: "The upload; name it as `uploadId` when reporting `signed`." }),
    status: Schema.Literal("stored"),
    sizeBytes: Schema.Int.annotations({ description: "The PDF's size in bytes, as declared." }),
    sha256: Schema.String.annotations({ description: "The PDF's SHA-256, lower-case hex, as declared." }),
    storedAt: Timestamp
  },
  { description: "The signed PDF passed its checks and is stored; report `signed` with `uploadId`." }
) {}

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type JsonObject = { readonly [key: string]: Json }

const problemResponse = (ref: JsonObject, description: string): JsonObject => ({
  description,
  content: { "application/problem+json": { schema: ref } }
})

const addressParameters = (idName: string, idDescription: string): ReadonlyArray<JsonObject> => [
  { name: idName, in: "path", required: true, schema: { type: "string", format: "uuid" }, description: idDescription },
  {
    name: "expires",
    in: "query",
    required: true,
    schema: { type: "string" },
    description: "Part of the address as given: when it stops working (seconds since 1970)."
  },
  {
    name: "signature",
    in: "query",
    required: true,
    schema: { type: "string" },
    description: "Part of the address as given: the host's HMAC over the address; a forged one is 403."
  }
]

/**
 * The two path items and the schemas they refer to (added to `components.schemas`), for the OpenAPI document.
 * Shapes: the upload answers 201 {@link SignedDocumentStored}, 400/413 `CRM_SIGNED_DOCUMENT_REJECTED` and the
 * attempt's refusals, 403 a forged or unknown address, 404, 415 a body not sent as `application/pdf`; the
 * download answers 200 with the PDF, 403 a forged or expired address, 404 a document no longer stored.
 */
export const signingFilePaths = (): { readonly paths: JsonObject; readonly schemas: JsonObject } => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const ref = (schema: Schema.Schema.Any): JsonObject =>
    JSONSchema.fromAST(schema.ast, {
      definitions,
      definitionPath: "#/components/schemas/",
      target: "openApi3.1"
    }) as unknown as JsonObject
  const stored = ref(SignedDocumentStored)
  const badRequest = ref(BadRequest)
  const forbidden = ref(Forbidden)
  const notFound = ref(NotFound)
  const tooLarge = ref(PayloadTooLarge)
  const unsupported = ref(UnsupportedMediaType)
  const internal = ref(InternalServerError)
  const failed = problemResponse(internal, "The service failed; retry later and quote the X-Request-Id header.")
  const unavailable = problemResponse(ref(ServiceUnavailable), SERVICE_UNAVAILABLE_RULE)
  const upload: JsonObject = {
    tags: ["crm"],
    operationId: "crm.uploadSignedDocument",
    summary: "Upload the signed PDF to its address",
    description:
      "PUT exactly the bytes declared to `signed-document-upload`, with `Content-Type: application/pdf`, to the " +
      "`url` it gave, before its `expiresAt` (15 minutes). No token: the address is the permission. The PDF is " +
      "checked — the declared size and SHA-256, a `%PDF-` header at byte 0, a closed trailer dictionary, no " +
      "`/Encrypt` in a trailer — off the API's event loop within a time and memory budget, and stored only if it " +
      "passes. Order: 403 (the address) → 415 (the media type) → 413 (longer than declared) → the attempt's " +
      "state → the address's expiry and use → the checks. A refused PUT stores nothing. An address takes one PDF.",
    security: [],
    parameters: addressParameters("uploadId", "The upload's id (the `id` of `signed-document-upload`)."),
    requestBody: {
      required: true,
      description: `The PDF, exactly as declared: 1 to ${MAX_SIGNED_DOCUMENT_BYTES} bytes.`,
      content: { "application/pdf": { schema: { type: "string", format: "binary" } } }
    },
    responses: {
      "201": { description: "Stored.", content: { "application/json": { schema: stored } } },
      "400": problemResponse(
        badRequest,
        "`CRM_SIGNED_DOCUMENT_REJECTED`: the address expired or was used already, or the body failed a check " +
          "(shorter than declared, another SHA-256, not a PDF, no trailer, encrypted, or too complex to check " +
          "within the budget); `CRM_SIGNING_ATTEMPT_ENDED` / `CRM_AGREEMENT_TRANSITION_INVALID`: the attempt is no " +
          "longer `started`; `VALIDATION_FAILED`: the body could not be read to its end."
      ),
      "403": problemResponse(forbidden, "The address is not one this host signed, or names no upload."),
      "404": problemResponse(notFound, `${NOT_FOUND_RULE} Here: the upload or its attempt is gone.`),
      "413": problemResponse(
        tooLarge,
        "`CRM_SIGNED_DOCUMENT_REJECTED`: the body is longer than the declared size; nothing was stored."
      ),
      "415": problemResponse(unsupported, "The body is not sent as `application/pdf`; nothing was stored."),
      "500": failed,
      "503": unavailable
    }
  }
  const download: JsonObject = {
    tags: ["crm"],
    operationId: "crm.downloadSigningDocument",
    summary: "Download a signing document from its address",
    description:
      "The PDF a signing-queue item names (`document.url`) when documents are kept on the local disk (with an " +
      "S3-compatible store the address is the store's presigned one). No token: the address is the permission, " +
      "valid 15 minutes; read the queue again for a fresh one.",
    security: [],
    parameters: addressParameters("documentId", "The document's id."),
    responses: {
      "200": {
        description: "The PDF, as `Content-Disposition: attachment` with its file name.",
        content: { "application/pdf": { schema: { type: "string", format: "binary" } } }
      },
      "403": problemResponse(forbidden, "The address is not one this host signed, or it has expired."),
      "404": problemResponse(notFound, `${NOT_FOUND_RULE} Here: the document is no longer stored.`),
      "500": failed,
      "503": unavailable
    }
  }
  return {
    paths: {
      [SIGNED_DOCUMENT_UPLOAD_PATH]: { put: upload },
      [SIGNING_DOCUMENT_CONTENT_PATH]: { get: download }
    },
    schemas: definitions as unknown as JsonObject
  }
}
