/**
 * Problem details (RFC 9457) as the spec's Error record (section 2.3): `type` is always `about:blank`, `title` the
 * HTTP status phrase, `status` the code; `code` names the rule (section 7.3) and `issues` lists failing fields with
 * VALIDATION_FAILED. Sent as `application/problem+json`. One class per status, so the server encodes a failure by
 * its class and the derived client decodes it back by status.
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"
import { ErrorCode, type ErrorCodeValue } from "./ErrorCode.js"

/** One failing field of a VALIDATION_FAILED problem: `path` is a JSON Pointer (RFC 6901) into the input. */
export class ValidationIssue extends Schema.Class<ValidationIssue>("ValidationIssue")({
  path: Schema.String.annotations({
    description: "JSON Pointer (RFC 6901) to the failing member of the body, path or query; \"\" for the whole input."
  }),
  message: Schema.String
}) {}

const fields = (status: number) => ({
  type: Schema.Literal("about:blank"),
  title: Schema.String,
  status: Schema.Literal(status),
  detail: Schema.optional(Schema.String),
  code: Schema.optional(ErrorCode),
  issues: Schema.optional(Schema.Array(ValidationIssue))
})

const annotations = <A>(status: number, description: string): Schema.Annotations.Schema<A> => ({
  ...HttpApiSchema.annotations<A>({ status, description }),
  [HttpApiSchema.AnnotationEncoding]: { kind: "Json", contentType: "application/problem+json" }
})

/** 400: the request is not valid (`VALIDATION_FAILED` with `issues`), or a business rule refused it (`code`). */
export class BadRequest extends Schema.Class<BadRequest>("BadRequest")(
  fields(400),
  annotations(400, "The request is not valid, or a business rule refused it; `code` names the rule.")
) {}

/** 401: the access token is missing, expired or not valid (spec 5). */
export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  fields(401),
  annotations(401, "The access token is missing, expired or not valid.")
) {}

/** 403: the token is valid but lacks the role the operation needs (decisions 2). */
export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  fields(403),
  annotations(403, "The token does not allow this request.")
) {}

/**
 * 404: the record does not exist, or the token cannot see it (another organization or context). The one rule for
 * 404s ({@link NOT_FOUND_RULE}): `detail` names the kind of record; `code` is present exactly where spec 7.3 lists
 * a code for that kind.
 */
export const NOT_FOUND_RULE =
  "The resource does not exist, or the token cannot see it. `detail` names the kind of record that was not " +
  "found; `code` is present exactly where the specification (7.3) lists a code for that kind: " +
  "`INTEGRATIONS_CONFIGURATION_NOT_FOUND` for an integration configuration. Other 404s (a signing attempt, an " +
  "invoice, a booking request, an unknown path …) carry no `code`."

export class NotFound extends Schema.Class<NotFound>("NotFound")(fields(404), annotations(404, NOT_FOUND_RULE)) {}

/** 409: the request conflicts with the current state (decisions 4: `*_ALREADY_USED`, material already invoiced). */
export class Conflict extends Schema.Class<Conflict>("Conflict")(
  fields(409),
  annotations(409, "The request conflicts with the current state of the resource.")
) {}

/** 413: the body is larger than the API host reads (64 KiB). */
export class PayloadTooLarge extends Schema.Class<PayloadTooLarge>("PayloadTooLarge")(
  fields(413),
  annotations(413, "The request body is larger than 64 KiB.")
) {}

/** 415: the signed-PDF upload's body is not sent as `application/pdf`. */
export class UnsupportedMediaType extends Schema.Class<UnsupportedMediaType>("UnsupportedMediaType")(
  fields(415),
  annotations(415, "The body is not of the media type the operation takes; nothing was stored.")
) {}

/** 500: the service failed; nothing a client sent causes this. Carries the request id in `detail`. */
export class InternalServerError extends Schema.Class<InternalServerError>("InternalServerError")(
  fields(500),
  annotations(500, "The service failed; retry later and quote the X-Request-Id header.")
) {}

/**
 * 503: the service can't take the request now — the database gave no connection in time (every one busy), or could
 * not be reached. The request changed nothing; retry after the `Retry-After` header's seconds. No `code`: spec 7.3
 * lists none for this (clients match on the status, as on 500), and `detail` carries the request id.
 */
export const SERVICE_UNAVAILABLE_RULE =
  "The service is temporarily unavailable: its database gave no connection in time (all busy) or could not be " +
  "reached. Nothing was changed; retry after the number of seconds in the `Retry-After` header. No `code` (the " +
  "specification lists none for this); `detail` carries the request id to quote."

export class ServiceUnavailable extends Schema.Class<ServiceUnavailable>("ServiceUnavailable")(
  fields(503),
  annotations(503, SERVICE_UNAVAILABLE_RULE)
) {}

const titles = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Content Too Large",
  415: "Unsupported Media Type",
  500: "Internal Server Error",
  503: "Service Unavailable"
} as const

type Options = { readonly detail?: string; readonly code?: ErrorCodeValue }

const make = <S extends keyof typeof titles>(status: S, options: Options) => ({
  type: "about:blank" as const,
  title: titles[status],
  status,
  ...(options.detail === undefined ? {} : { detail: options.detail }),
  ...(options.code === undefined ? {} : { code: options.code })
})

/** Constructors with the fixed members filled in. */
export const problem = {
  /** A rule's refusal; `issues` when it names failing fields, as `INTEGRATIONS_CONFIGURATION_INVALID` does. */
  badRequest: (
    code: ErrorCodeValue,
    detail: string,
    issues?: ReadonlyArray<{ readonly path: string; readonly message: string }>
  ) =>
    new BadRequest({
      ...make(400, { code, detail }),
      ...(issues === undefined ? {} : { issues: issues.map((issue) => new ValidationIssue(issue)) })
    }),
  validationFailed: (issues: ReadonlyArray<{ readonly path: string; readonly message: string }>, detail?: string) =>
    new BadRequest({
      ...make(400, { code: "VALIDATION_FAILED", detail: detail ?? "The request is not valid; see issues." }),
      issues: issues.map((issue) => new ValidationIssue(issue))
    }),
  unauthorized: (detail: string) => new Unauthorized(make(401, { detail })),
  forbidden: (detail: string) => new Forbidden(make(403, { detail })),
  /** 404; `code` when the operation names what was not found (`INTEGRATIONS_CONFIGURATION_NOT_FOUND`). */
  notFound: (detail: string, code?: ErrorCodeValue) =>
    new NotFound(make(404, code === undefined ? { detail } : { detail, code })),
  conflict: (code: ErrorCodeValue, detail: string) => new Conflict(make(409, { code, detail })),
  payloadTooLarge: (detail: string) => new PayloadTooLarge(make(413, { detail })),
  unsupportedMediaType: (detail: string) => new UnsupportedMediaType(make(415, { detail })),
  internal: (detail: string) => new InternalServerError(make(500, { detail })),
  serviceUnavailable: (detail: string) => new ServiceUnavailable(make(503, { detail }))
}

/** Every problem an operation can answer. */
export type Problem =
  | BadRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | PayloadTooLarge
  | UnsupportedMediaType
  | InternalServerError
  | ServiceUnavailable
