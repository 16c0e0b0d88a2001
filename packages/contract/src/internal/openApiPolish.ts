/**
 * What the generated OpenAPI document needs before generators and linters take it (issue 24):
 *
 * - each operation's problems narrowed to the codes it can answer ({@link operationCodes}: the codes its description
 *   names, by the status written before them, and `VALIDATION_FAILED` on every 400), as named schemas
 *   (`<operationId>.BadRequest`, `.Conflict`, `.NotFound`);
 * - `X-Request-Id` on every request (optional) and every response, `Retry-After` on every 503 problem;
 * - request bodies as named components (`components.requestBodies`, named after their schema);
 * - an example on every request body and response ({@link exampleOf}: an example or enum value the schema gives,
 *   else one built from its type, format and bounds);
 * - no schema-generator leftovers: titles such as `between(0, 9007199254740991)` and `$id`s such as
 *   `/schemas/%7B%7D` go;
 * - tag descriptions.
 */
import { ERROR_CODES } from "@propline/refusal/ErrorCode"
import type { JsonObject } from "./openApiClean.js"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"] as const

/** Every operation of `paths` (or `webhooks`) with its path and method. */
export const operationsOf = (paths: JsonObject): ReadonlyArray<{ path: string; method: string; operation: JsonObject }> =>
  Object.entries(paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = (item as JsonObject)[method]
      return isObject(operation) ? [{ path, method, operation }] : []
    })
  )

const KNOWN_CODES = new Set<string>(ERROR_CODES)
/** A problem status a code can be answered with. */
export type CodeStatus = "400" | "404" | "409"

/**
 * The codes an operation can answer, by status, read from its description: a code in backticks belongs to the status
 * written before it in the same clause (`400 \`A\` or \`B\`; 409 \`C\``), or to the one in parentheses right after
 * it (`\`D\` (409)`); a clause (up to `;` or the end of a sentence) with no status is 400. Every operation can answer
 * 400 `VALIDATION_FAILED` (a malformed path, query or body).
 */
export const operationCodes = (description: string): Record<CodeStatus, ReadonlyArray<string>> => {
  const codes: Record<CodeStatus, Set<string>> = { "400": new Set(["VALIDATION_FAILED"]), "404": new Set(), "409": new Set() }
  let status: CodeStatus = "400"
  const tokens = /`([A-Z][A-Z0-9_]+)`(?:\s*\((400|404|409)\))?|\b(400|404|409)\b|(;|\.\s)/g
  for (const match of description.matchAll(tokens)) {
    const [, code, postfix, prefix, boundary] = match
    if (boundary !== undefined) status = "400"
    else if (prefix !== undefined) status = prefix as CodeStatus
    else if (code !== undefined && KNOWN_CODES.has(code)) codes[(postfix as CodeStatus | undefined) ?? status].add(code)
  }
  return { "400": [...codes["400"]], "404": [...codes["404"]], "409": [...codes["409"]] }
}

const TITLES: Record<number, string> = { 400: "Bad Request", 404: "Not Found", 409: "Conflict" }

const problemExample = (status: number, code: string | undefined): JsonObject => ({
  type: "about:blank",
  title: TITLES[status] ?? "Bad Request",
  status,
  ...(code === "VALIDATION_FAILED"
    ? { detail: "The request is not valid; see issues.", code, issues: [{ path: "/externalReference", message: "is required" }] }
    : code === undefined
    ? { detail: "The record was not found." }
    : { detail: "A business rule refused the request.", code })
})

const PROBLEM_SCHEMAS: Record<CodeStatus, string> = { "400": "BadRequest", "404": "NotFound", "409": "Conflict" }

/** The operation's 400/404/409 answers narrowed to its codes, as named schemas added to `schemas`. */
const narrowProblems = (operation: JsonObject, schemas: Record<string, Json>): JsonObject => {
  const operationId = String(operation["operationId"])
  const codes = operationCodes(String(operation["description"] ?? ""))
  const responses: Record<string, Json> = { ...(operation["responses"] as JsonObject) }
  for (const status of ["400", "404", "409"] as const) {
    const response = responses[status]
    const base = PROBLEM_SCHEMAS[status]
    if (!isObject(response) || !JSON.stringify(response).includes(`"#/components/schemas/${base}"`)) continue
    const name = `${operationId}.${base}`
    const list = codes[status]
    schemas[name] = {
      description: list.length === 0
        ? `A ${status} of \`${operationId}\`: no \`code\`.`
        : `A ${status} of \`${operationId}\`: \`code\` is one of ${list.map((code) => `\`${code}\``).join(", ")}.`,
      allOf: [
        { $ref: `#/components/schemas/${base}` },
        list.length === 0
          ? { type: "object", properties: { code: false } }
          : { type: "object", properties: { code: { type: "string", enum: list } } }
      ],
      examples: [problemExample(Number(status), list[0])]
    }
    responses[status] = {
      ...response,
      content: { "application/problem+json": { schema: { $ref: `#/components/schemas/${name}` } } }
    }
  }
  return { ...operation, responses }
}

/** The `X-Request-Id` header (decisions 4), as a request parameter and a response header. */
const REQUEST_ID_PARAMETER = {
  name: "X-Request-Id",
  in: "header",
  required: false,
  description:
    "Your own correlation id (1 to 128 of `A-Z a-z 0-9 . _ : -`); kept and echoed when well formed, replaced " +
    "with a fresh UUID otherwise. It is written to the audit log.",
  schema: { type: "string", pattern: "^[A-Za-z0-9._:-]{1,128}$" },
  example: "erp-run-2026-11-26-0001"
}
const REQUEST_ID_HEADER = {
  description: "The request's id: the one sent when well formed, else a fresh UUID. Quote it when asking for support.",
  required: true,
  schema: { type: "string" },
  example: "erp-run-2026-11-26-0001"
}

const RETRY_AFTER_HEADER = {
  description: "Whole seconds to wait before sending the request again (RFC 9110 10.2.3).",
  required: true,
  schema: { type: "integer", minimum: 1 },
  example: 1
}

/** A 503 answered as a problem (the database unavailable, `Problem.ServiceUnavailable`), not a probe's 503. */
const isUnavailableProblem = (status: string, response: JsonObject): boolean =>
  status === "503" && isObject(response["content"]) && response["content"]["application/problem+json"] !== undefined

/**
 * Descriptions of parameters whose schema's description the generator loses (a description annotation on a filtered
 * string is replaced by the filter's).
 */
const PARAMETER_DESCRIPTIONS: Record<string, string> = {
  externalReference: "The caller's own id for the invoice (attached by pass or report-sent), percent-encoded.",
  requestId: "The requestId the website sent with its booking request, percent-encoded.",
  types:
    "Only these event types: a comma-separated list (`billing.invoice.approved,billing.invoice.paid`); every type " +
    "when absent."
}

const described = (parameter: Json): Json => {
  if (!isObject(parameter) || parameter["$ref"] !== undefined || parameter["description"] !== undefined) return parameter
  const fromSchema = isObject(parameter["schema"]) ? parameter["schema"]["description"] : undefined
  const description = fromSchema ?? PARAMETER_DESCRIPTIONS[String(parameter["name"])]
  return description === undefined ? parameter : { ...parameter, description }
}

const withRequestId = (operation: JsonObject): JsonObject => {
  const parameters = [
    ...((operation["parameters"] as ReadonlyArray<Json> | undefined) ?? []).map(described),
    { $ref: "#/components/parameters/RequestId" }
  ]
  const responses: Record<string, Json> = {}
  for (const [status, response] of Object.entries(operation["responses"] as JsonObject)) {
    const record = response as JsonObject
    responses[status] = {
      ...record,
      headers: {
        ...(record["headers"] as JsonObject | undefined),
        "X-Request-Id": { $ref: "#/components/headers/RequestId" },
        ...(isUnavailableProblem(status, record) ? { "Retry-After": { $ref: "#/components/headers/RetryAfter" } } : {})
      }
    }
  }
  return { ...operation, parameters, responses }
}

const refName = (schema: Json | undefined): string | undefined =>
  isObject(schema) && typeof schema["$ref"] === "string" ? schema["$ref"].replace("#/components/schemas/", "") : undefined

const upperFirst = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

/** The request body moved to `components.requestBodies`, named after its schema (or the operation). */
const namedRequestBody = (operation: JsonObject, bodies: Record<string, Json>): JsonObject => {
  const body = operation["requestBody"]
  if (!isObject(body) || typeof body["$ref"] === "string") return operation
  const content = body["content"] as JsonObject
  const first = Object.values(content)[0] as JsonObject | undefined
  const operationId = String(operation["operationId"])
  const name = refName(first?.["schema"]) ?? `${upperFirst(operationId.split(".").pop() ?? operationId)}Request`
  const existing = bodies[name]
  const key = existing === undefined || JSON.stringify(existing) === JSON.stringify(body) ? name : `${name}.${operationId}`
  bodies[key] = { description: `The body of \`${operationId}\`.`, ...body }
  return { ...operation, requestBody: { $ref: `#/components/requestBodies/${key}` } }
}

// ---- examples -------------------------------------------------------------------------------------------------

const EXAMPLE_BY_FORMAT: Record<string, Json> = {
  uuid: "3f2b6c1e-8a4d-4c3e-9b7a-2d5e6f708192",
  date: "2026-11-26",
  "date-time": "2026-11-26T09:00:00.000Z",
  uri: "https://erp.example.com/invoices/10042.pdf",
  email: "billing@example.com",
  binary: "%PDF-1.7 …"
}

const EXAMPLE_BY_NAME: Record<string, Json> = {
  externalReference: "ERP-INV-10042",
  issuedInvoiceNumber: "10042",
  paymentId: "BANK-2026-11-26-0007",
  writeOffId: "WO-2026-0003",
  reason: "The customer's address is missing.",
  currency: "SEK",
  cursor: "eyJhdCI6IjIwMjYtMTEtMjZUMDk6MDA6MDBaIn0",
  nextCursor: null,
  path: "/externalReference",
  message: "is required",
  name: "Main office",
  email: "guest@example.com",
  phone: "+46701234567",
  organisationNumber: "5560360793",
  organizationNumber: "5560360793",
  paymentReference: "1234567897",
  sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
}

/** Values tried, in order, against a string schema's `pattern`. */
const PATTERNED: ReadonlyArray<string> = [
  "2026-11-26",
  "09:00",
  "2026-11-26T09:00:00.000Z",
  "3f2b6c1e-8a4d-4c3e-9b7a-2d5e6f708192",
  "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
  "https://erp.example.com/invoices/10042.pdf",
  "erp-run-2026-11-26-0001",
  "1234567897"
]

const resolve = (schema: Json, schemas: JsonObject): Json => {
  const name = refName(schema)
  return name === undefined ? schema : resolve(schemas[name] ?? {}, schemas)
}

const satisfiesPattern = (pattern: Json | undefined, value: string) =>
  typeof pattern !== "string" || new RegExp(pattern, "u").test(value)

const stringExample = (schema: JsonObject, name: string | undefined): Json => {
  const format = typeof schema["format"] === "string" ? schema["format"] : undefined
  const candidates: Array<Json | undefined> = [
    name === undefined ? undefined : EXAMPLE_BY_NAME[name],
    format === undefined ? undefined : EXAMPLE_BY_FORMAT[format]
  ]
  const min = typeof schema["minLength"] === "number" ? schema["minLength"] : 0
  const max = typeof schema["maxLength"] === "number" ? schema["maxLength"] : Number.POSITIVE_INFINITY
  for (const candidate of candidates) {
    if (candidate === null && name !== undefined) continue
    if (typeof candidate === "string" && [...candidate].length >= min && [...candidate].length <= max &&
      satisfiesPattern(schema["pattern"], candidate)) return candidate
  }
  if (typeof schema["pattern"] === "string") {
    const fits = PATTERNED.find((candidate) => satisfiesPattern(schema["pattern"], candidate))
    if (fits !== undefined) return fits
  }
  const text = name === undefined ? "text" : name
  const padded = text.length >= min ? text : text.padEnd(min, "x")
  return Number.isFinite(max) ? padded.slice(0, Math.max(max, 1)) : padded
}

/**
 * An example of `schema`: its own `examples`/`example`/`const`/`default`/first `enum` value when it has one, else
 * one built from its type, format and bounds (objects with every property, arrays with one item).
 */
export const exampleOf = (schema: Json, schemas: JsonObject, name?: string, depth = 0): Json => {
  const resolved = resolve(schema, schemas)
  if (!isObject(resolved) || depth > 12) return null
  const examples = resolved["examples"]
  if (Array.isArray(examples) && examples.length > 0) return examples[0] as Json
  if (resolved["example"] !== undefined) return resolved["example"]
  if (resolved["const"] !== undefined) return resolved["const"]
  if (Array.isArray(resolved["enum"]) && resolved["enum"].length > 0) return resolved["enum"][0] as Json
  const allOf = resolved["allOf"]
  if (Array.isArray(allOf)) {
    return allOf.reduce<Json>((merged, part) => {
      const value = exampleOf(part as Json, schemas, name, depth + 1)
      return isObject(merged) && isObject(value) ? { ...merged, ...value } : value ?? merged
    }, null)
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = resolved[key]
    if (Array.isArray(options) && options.length > 0) {
      const chosen = options.find((option) => (resolve(option as Json, schemas) as JsonObject)["type"] !== "null")
      return exampleOf((chosen ?? options[0]) as Json, schemas, name, depth + 1)
    }
  }
  if (resolved["default"] !== undefined) return resolved["default"]
  const type = Array.isArray(resolved["type"]) ? resolved["type"].find((t) => t !== "null") : resolved["type"]
  switch (type) {
    case "string":
      return stringExample(resolved, name)
    case "integer":
    case "number": {
      const minimum = typeof resolved["minimum"] === "number" ? resolved["minimum"] : undefined
      const maximum = typeof resolved["maximum"] === "number" ? resolved["maximum"] : undefined
      const preferred = 12500
      if (minimum !== undefined && preferred < minimum) return minimum
      if (maximum !== undefined && preferred > maximum) return maximum
      return preferred
    }
    case "boolean":
      return true
    case "null":
      return null
    case "array": {
      const item = exampleOf((resolved["items"] ?? {}) as Json, schemas, undefined, depth + 1)
      const minItems = typeof resolved["minItems"] === "number" ? resolved["minItems"] : 1
      return Array.from({ length: Math.max(minItems, 1) }, () => item)
    }
    default: {
      const properties = resolved["properties"]
      if (!isObject(properties)) return {}
      const example: Record<string, Json> = {}
      for (const [key, property] of Object.entries(properties)) example[key] = exampleOf(property, schemas, key, depth + 1)
      return example
    }
  }
}

/** Every media type of the request body and responses given an `example` (unless it has one). */
const withExamples = (operation: JsonObject, components: JsonObject): JsonObject => {
  const schemas = components["schemas"] as JsonObject
  const exampled = (content: Json | undefined): Json | undefined => {
    if (!isObject(content)) return content
    const result: Record<string, Json> = {}
    for (const [type, media] of Object.entries(content)) {
      const record = media as JsonObject
      result[type] = record["example"] !== undefined || record["examples"] !== undefined || record["schema"] === undefined
        ? record
        : { ...record, example: exampleOf(record["schema"], schemas) }
    }
    return result
  }
  const responses: Record<string, Json> = {}
  for (const [status, response] of Object.entries(operation["responses"] as JsonObject)) {
    const record = response as JsonObject
    responses[status] = record["content"] === undefined ? record : { ...record, content: exampled(record["content"]) ?? null }
  }
  const body = operation["requestBody"]
  return {
    ...operation,
    responses,
    ...(isObject(body) && body["content"] !== undefined ? { requestBody: { ...body, content: exampled(body["content"]) ?? null } } : {})
  }
}

// ---- leftovers ------------------------------------------------------------------------------------------------

/** A title the schema generator wrote from a filter or a refinement (`between(0, 9007199254740991)`, `int`). */
const generatedTitle = (title: string) => /^[a-zA-Z]+(\(.*\))?$/.test(title) && !/^[A-Z]/.test(title)

/** A description the generator wrote for a filter (`a number between 0 and 9007199254740991`, `an integer`). */
const generatedDescription = (description: string) =>
  /^an? .*(between|at most|at least|greater than|less than|character\(s\)|item\(s\))/.test(description) ||
  description === "an integer"

/** `$id`s the generator writes for anonymous schemas and the titles it writes for filters, gone everywhere. */
export const withoutLeftovers = (value: Json): Json => {
  if (Array.isArray(value)) return value.map(withoutLeftovers)
  if (!isObject(value)) return value
  const result: Record<string, Json> = {}
  for (const [key, item] of Object.entries(value)) {
    if (key === "$id" && typeof item === "string" && item.startsWith("/schemas/")) continue
    if (key === "title" && typeof item === "string" && generatedTitle(item)) continue
    if (key === "description" && typeof item === "string" && generatedDescription(item)) continue
    result[key] = key === "example" || key === "examples" || key === "const" || key === "enum" ? item : withoutLeftovers(item)
  }
  return result
}

/** The tags' descriptions, one per group. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  operationalContexts: "The operational contexts (sites, buildings, units of business) the token can act in.",
  billing:
    "Invoice proposals to verify, invoices to send, money that arrived or was taken back, write-offs and deleted " +
    "invoices to discard (spec 4.1, 4.2; decisions 4, 5). The `billing` role.",
  booking:
    "Resources, free time, extras, prices and booking requests for a booking website (spec 4.4). The `booking` role.",
  crm: "Contracts to send for signature and the outcome of each signing attempt (spec 4.3; decisions 6). The `signing` role.",
  integrations:
    "The organization's integration configurations: their settings, readiness and failures (spec 4.5). The " +
    "`integrations` role.",
  events:
    "The feed of every state change (decisions 9), the same bodies as webhook deliveries; kept 30 days.",
  identity:
    "The identity host ({auth_url}): the token endpoint, its authorization server metadata and its signing keys.",
  Operations:
    "The probes every host (API, identity, admin console) answers outside /v1 and without authentication: " +
    "liveness (/healthz) and readiness (/readyz)."
}

/** Everything above, applied to a document whose components are complete. */
export const polish = (spec: JsonObject): JsonObject => {
  const cleaned = withoutLeftovers(spec) as JsonObject
  const components = cleaned["components"] as JsonObject
  const schemas: Record<string, Json> = { ...(components["schemas"] as JsonObject) }
  const requestBodies: Record<string, Json> = {}
  const paths: Record<string, Json> = {}
  for (const [path, item] of Object.entries(cleaned["paths"] as JsonObject)) {
    const record: Record<string, Json> = { ...(item as JsonObject) }
    for (const method of METHODS) {
      const operation = record[method]
      if (!isObject(operation)) continue
      const narrowed = narrowProblems(withRequestId(operation), schemas)
      record[method] = namedRequestBody(withExamples(narrowed, { ...components, schemas }), requestBodies)
    }
    paths[path] = record
  }
  const webhooks: Record<string, Json> = {}
  for (const [name, item] of Object.entries((cleaned["webhooks"] as JsonObject | undefined) ?? {})) {
    const record: Record<string, Json> = { ...(item as JsonObject) }
    for (const method of METHODS) {
      const operation = record[method]
      if (isObject(operation)) record[method] = withExamples(operation, { ...components, schemas })
    }
    webhooks[name] = record
  }
  const tags = ((cleaned["tags"] as ReadonlyArray<JsonObject> | undefined) ?? [])
    .map((tag): JsonObject => ({
      ...tag,
      description: TAG_DESCRIPTIONS[String(tag["name"])] ?? tag["description"] ?? String(tag["name"])
    }))
    .sort((a, b) => String(a["name"]).localeCompare(String(b["name"])))
  return {
    ...cleaned,
    tags,
    paths,
    ...(cleaned["webhooks"] === undefined ? {} : { webhooks }),
    components: {
      ...components,
      schemas,
      requestBodies,
      parameters: { ...(components["parameters"] as JsonObject | undefined), RequestId: REQUEST_ID_PARAMETER },
      headers: { ...(components["headers"] as JsonObject | undefined), RequestId: REQUEST_ID_HEADER, RetryAfter: RETRY_AFTER_HEADER }
    }
  }
}
