/**
 * Responses whose JSON body a contract encoder (`@propline/contract/JsonEncoder`) already wrote: the handler returns
 * the `HttpServerResponse` itself, so HttpApi sends it as it is instead of encoding the value through the endpoint's
 * Schema. Same status, `Content-Type: application/json` and bytes as the Schema path; used where the value is our own
 * record, known to satisfy the Schema, and the encoding would be most of the request's work (pages of records).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/**
 * A JSON response with `status` (200 unless given), extra `headers`, and a body already written as JSON: the UTF-8
 * bytes a contract encoder wrote (`JsonEncoder.makeBytes`), or text (`JSON.stringify` for the identity host's OAuth
 * bodies and the events). Either is handed to the server as it is (a raw body with its UTF-8 length). Bytes are
 * written to the socket as they are, outside the JavaScript heap; text is written by node:http as UTF-8 itself, so
 * no copy of it is made as a `Uint8Array` first (what `HttpServerResponse.text` does).
 */
export const encodedJson = (
  body: string | Uint8Array,
  status = 200,
  headers?: Readonly<Record<string, string>>
): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.raw(body, {
    status,
    ...(headers === undefined ? {} : { headers }),
    contentType: "application/json",
    contentLength: typeof body === "string" ? Buffer.byteLength(body, "utf8") : body.length
  })
