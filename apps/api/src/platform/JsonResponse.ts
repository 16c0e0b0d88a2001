/**
 * Responses whose JSON body a contract encoder (`@propline/contract/JsonEncoder`) already wrote: the handler returns
 * the `HttpServerResponse` itself, so HttpApi sends it as it is instead of encoding the value through the endpoint's
 * Schema. Same status, `Content-Type: application/json` and bytes as the Schema path; used where the value is our own
 * record, known to satisfy the Schema, and the encoding would be most of the request's work (pages of records).
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"

/** A JSON response with `status` (200 unless given) and a body written by a contract encoder. */
export const encodedJson = (body: string, status = 200): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.text(body, { status, contentType: "application/json" })
