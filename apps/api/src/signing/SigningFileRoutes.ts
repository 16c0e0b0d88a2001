/**
 * The two addresses the API host serves beside the HttpApi, authorized by their signature instead of a token
 * (`FileAddresses`): the signed-PDF upload (`PUT /v1/crm/signed-document-uploads/{uploadId}`, the body is the PDF,
 * read up to its declared size and checked before anything is stored) and, for the local disk, document
 * downloads (`GET /v1/crm/signing-documents/{documentId}/content`). Answers are problem details like the API's.
 *
 * | answer | when |
 * | --- | --- |
 * | 201 `{ uploadId, status: "stored", sizeBytes, sha256, storedAt }` | the PDF passed its checks and is stored |
 * | 400 `CRM_SIGNED_DOCUMENT_REJECTED` | the address expired, was used, or the bytes failed a check |
 * | 400 `CRM_SIGNING_ATTEMPT_ENDED` / `CRM_AGREEMENT_TRANSITION_INVALID` | the attempt is no longer `started` |
 * | 403 | the address is not one this host signed (or names nothing); a download address past its time |
 * | 404 | the upload, its attempt or the document is gone (no `code`: spec 7.3 lists none for them) |
 * | 413 `CRM_SIGNED_DOCUMENT_REJECTED` | the body is longer than declared |
 * | 415 | the PUT's `Content-Type` is not `application/pdf` |
 *
 * Both are in the OpenAPI document (`@propline/contract/SigningFiles`). Upload order: 403 → 415 → 413 → the rule.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { problem } from "@propline/contract/Problem"
import type { SignedDocumentStored } from "@propline/contract/SigningFiles"
import * as Db from "@propline/db/Db"
import { Effect, Schema } from "effect"
import { readBoundedBody } from "../platform/RequestBody.js"
import { toProblem } from "../platform/Problems.js"
import { downloadPath, uploadPath } from "../storage/FileAddresses.js"
import { SigningService } from "./SigningService.js"

const isUuid = Schema.is(Schema.UUID)

const respond = <Body extends { readonly status: number }>(body: Body) =>
  HttpServerResponse.unsafeJson(body, { status: body.status, contentType: "application/problem+json" })

const forbidden = (detail: string) => respond(problem.forbidden(detail))

/** Whether the request's media type (before any parameter, any case) is `application/pdf`. */
const sendsPdf = (request: HttpServerRequest.HttpServerRequest): boolean =>
  (request.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase() === "application/pdf"

const receivedParams = (request: HttpServerRequest.HttpServerRequest) => {
  const query = new URL(request.url, "http://host").searchParams
  return { expires: query.get("expires") ?? undefined, signature: query.get("signature") ?? undefined }
}

const upload = (signing: SigningService) => Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const uploadId = (yield* HttpRouter.params)["uploadId"] ?? ""
  if (!isUuid(uploadId)) return forbidden("The upload address is not valid.")
  const target = yield* Effect.either(signing.uploadFor(uploadId, receivedParams(request)))
  if (target._tag === "Left") {
    const error = target.left
    return error._tag === "AddressInvalid" || error._tag === "AddressExpired"
      ? forbidden("The upload address is not valid.")
      : respond(toProblem(error))
  }
  if (!sendsPdf(request)) {
    return respond(problem.unsupportedMediaType("Send the PDF with Content-Type: application/pdf; nothing was stored."))
  }
  const body = yield* readBoundedBody(request, target.right.declaredSizeBytes)
  if (body._tag === "TooLarge") {
    return respond({
      type: "about:blank",
      title: "Content Too Large",
      status: 413,
      code: "CRM_SIGNED_DOCUMENT_REJECTED",
      detail: "The body is longer than the declared size; nothing was stored."
    })
  }
  if (body._tag === "Unreadable") {
    return respond(problem.validationFailed([{ path: "", message: "The body could not be read to its end." }]))
  }
  const stored = yield* Effect.either(signing.receiveUpload(target.right, body.bytes))
  if (stored._tag === "Left") return respond(toProblem(stored.left))
  const answer: typeof SignedDocumentStored.Encoded = {
    uploadId,
    status: "stored",
    sizeBytes: stored.right.declaredSizeBytes,
    sha256: stored.right.declaredSha256,
    storedAt: (stored.right.storedAt ?? new Date()).toISOString()
  }
  return HttpServerResponse.unsafeJson(answer, { status: 201 })
})

const download = (signing: SigningService) => Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const documentId = (yield* HttpRouter.params)["documentId"] ?? ""
  if (!isUuid(documentId)) return forbidden("The download address is not valid.")
  const found = yield* Effect.either(signing.download(documentId, receivedParams(request)))
  if (found._tag === "Left") {
    const error = found.left
    if (error._tag === "AddressInvalid") return forbidden("The download address is not valid.")
    if (error._tag === "AddressExpired") return forbidden("The download address has expired; read the queue again.")
    return respond(toProblem(error))
  }
  const { bytes, document } = found.right
  return HttpServerResponse.uint8Array(bytes, { status: 200, contentType: document.contentType }).pipe(
    HttpServerResponse.setHeaders({
      "content-disposition": `attachment; filename*=UTF-8''${encodeURIComponent(document.fileName)}`,
      "cache-control": "private, no-store"
    })
  )
})

/** The routes, added to the API host's router. */
export const SigningFileRoutes = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const signing = yield* SigningService
    const database = yield* Db.Db
    const withDatabase = Effect.provideService(Db.Db, database)
    yield* router.put(uploadPath(":uploadId") as HttpRouter.PathInput, withDatabase(upload(signing)))
    yield* router.get(downloadPath(":documentId") as HttpRouter.PathInput, withDatabase(download(signing)))
  })
)
