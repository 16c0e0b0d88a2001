/**
 * Responses whose JSON body a contract encoder (`@propline/contract/JsonEncoder`) already wrote: the handler returns
 * the `HttpServerResponse` itself, so HttpApi sends it as it is instead of encoding the value through the endpoint's
 * Schema. Same status, `Content-Type: application/json` and bytes as the Schema path; used where the value is our own
 * record, known to satisfy the Schema, and the encoding would be most of the request's work (pages of records).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/**
 * A JSON response with `status` (200 unless given), extra `headers`, and a body already written as JSON text (by a
 * contract encoder, or `JSON.stringify` for the identity host's OAuth bodies). The text is handed to
 * the server as it is (a raw body with its UTF-8 length): node:http writes it to the socket as UTF-8 itself, so no
 * copy of the page is made as a `Uint8Array` first (what `HttpServerResponse.text` does).
 */
export const encodedJson = (
  body: string,
  status = 200,
  headers?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.raw(body, {
    status,
    ...(headers === undefined ? {} : { headers }),
    contentType: "application/json",
    contentLength: Buffer.byteLength(body, "utf8")
  })
