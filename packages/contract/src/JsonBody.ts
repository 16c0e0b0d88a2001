/**
 * Request bodies are JSON (spec 4: "All request and response bodies are application/json"). Operations with a
 * body answer 400 VALIDATION_FAILED when `Content-Type` is anything else — checked after authentication, so an
 * unauthenticated caller learns nothing but 401.
 */
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import { BadRequest } from "./Problem.js"

export class JsonBody extends HttpApiMiddleware.Tag<JsonBody>()("@propline/contract/JsonBody", {
  failure: BadRequest
}) {}
