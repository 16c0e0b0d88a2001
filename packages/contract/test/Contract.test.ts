/**
 * The contract itself: the OpenAPI document an integrator reads, the length rules of spec 8 (code points), the
 * pagination query of decisions 4 and the problem details of spec 2.3.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema } from "effect"
import {
  PassProposalRequest,
  ReportFailedRequest,
  ReportPaymentRequest,
  ReportSentRequest
} from "../src/Billing.js"
import { EVENT_CATALOG, EVENT_TYPES } from "../src/Events.js"
import { IntegrationFailedRequest, ReadyRequest, RedeemConnectionReferenceRequest } from "../src/Integrations.js"
import { openApiDocument } from "../src/OpenApiDocument.js"
import { PageParams } from "../src/Page.js"
import { problem } from "../src/Problem.js"

describe("openApiDocument", () => {
  const document = openApiDocument("https://api.example.test", "https://auth.example.test") as unknown as {
    openapi: string
    servers: Array<{ url: string }>
    paths: Record<string, Record<string, { security?: unknown; responses: Record<string, { content?: Record<string, unknown> }> }>>
    components: { schemas: Record<string, unknown> }
  }

  it("is OpenAPI 3.1 with the configured server", () => {
    expect(document.openapi).toMatch(/^3\.1/)
    expect(document.servers).toEqual([{ url: "https://api.example.test", description: "API host" }])
  })

  it("documents every operation of the slice, each behind the oauth2 scheme or a bearer token (the probes aside)", () => {
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => method !== "servers")
        .map(([method, operation]) => ({ key: `${method.toUpperCase()} ${path}`, operation }))
    )
    expect(operations.map((o) => o.key).sort()).toEqual([
      "GET /.well-known/jwks.json",
      "GET /.well-known/oauth-authorization-server",
      "GET /.well-known/openid-configuration",
      "GET /healthz",
      "GET /readyz",
      "GET /v1/billing/send-queue",
      "GET /v1/billing/verification-queue",
      "GET /v1/billing/withdrawal-queue",
      "GET /v1/booking/availability",
      "GET /v1/booking/booking-requests",
      "GET /v1/booking/booking-requests/by-request-id/{requestId}",
      "GET /v1/booking/booking-requests/{bookingId}",
      "GET /v1/booking/resources",
      "GET /v1/booking/resources/{resourceId}",
      "GET /v1/booking/resources/{resourceId}/add-on-products",
      "GET /v1/booking/resources/{resourceId}/availability",
      "GET /v1/crm/signing-documents/{documentId}/content",
      "GET /v1/crm/signing-queue",
      "GET /v1/crm/withdrawal-queue",
      "GET /v1/events",
      "GET /v1/events/{eventId}",
      "GET /v1/integrations/configurations",
      "GET /v1/operational-contexts",
      "POST /oauth/token",
      "POST /v1/billing/invoice-proposals/{proposalId}/pass",
      "POST /v1/billing/invoice-proposals/{proposalId}/reject",
      "POST /v1/billing/invoice-withdrawals/{invoiceId}/report-discarded",
      "POST /v1/billing/invoices/by-external-reference/{externalReference}/report-payment",
      "POST /v1/billing/invoices/by-external-reference/{externalReference}/report-payment-reversed",
      "POST /v1/billing/invoices/{invoiceId}/report-failed",
      "POST /v1/billing/invoices/{invoiceId}/report-payment",
      "POST /v1/billing/invoices/{invoiceId}/report-payment-reversed",
      "POST /v1/billing/invoices/{invoiceId}/report-sent",
      "POST /v1/billing/invoices/{invoiceId}/report-write-off",
      "POST /v1/booking/booking-requests",
      "POST /v1/booking/booking-requests/preview",
      "POST /v1/booking/booking-requests/{bookingId}/cancel",
      "POST /v1/booking/booking-requests/{bookingId}/reschedule",
      "POST /v1/booking/company-lookups",
      "POST /v1/crm/signing-attempts/{attemptId}/declined",
      "POST /v1/crm/signing-attempts/{attemptId}/expired",
      "POST /v1/crm/signing-attempts/{attemptId}/failed",
      "POST /v1/crm/signing-attempts/{attemptId}/signed",
      "POST /v1/crm/signing-attempts/{attemptId}/signed-document-upload",
      "POST /v1/crm/signing-attempts/{attemptId}/started",
      "POST /v1/crm/signing-attempts/{attemptId}/withdrawn",
      "POST /v1/integrations/configurations/{configurationId}/failed",
      "POST /v1/integrations/configurations/{configurationId}/ready",
      "POST /v1/integrations/connection-references/redeem",
      "PUT /v1/crm/signed-document-uploads/{uploadId}"
    ])
    for (const { key, operation } of operations) {
      if (key === "GET /healthz" || key === "GET /readyz") {
        expect(operation.security).toEqual([])
        continue
      }
      if (key.includes("signed-document-uploads") || key.includes("signing-documents") || !key.includes(" /v1/")) continue
      expect(operation.security).toEqual([{ oauth2: [] }, { bearer: [] }])
      for (const status of ["400", "401", "403"]) {
        expect(Object.keys(operation.responses[status]?.content ?? {})).toEqual(["application/problem+json"])
      }
    }
    expect(document.paths["/v1/billing/invoice-proposals/{proposalId}/pass"]?.["post"]?.responses["409"]).toBeDefined()
    expect(document.paths["/v1/billing/invoice-proposals/{proposalId}/pass"]?.["post"]?.responses["201"]).toBeDefined()
    expect(document.paths["/v1/booking/booking-requests"]?.["post"]?.responses["409"]).toBeDefined()
    expect(document.paths["/v1/booking/booking-requests"]?.["post"]?.responses["201"]).toBeDefined()
    for (const outcome of ["started", "signed-document-upload", "signed", "declined", "expired", "withdrawn", "failed"]) {
      const operation = document.paths[`/v1/crm/signing-attempts/{attemptId}/${outcome}`]?.["post"]
      expect(operation?.responses["201"]).toBeDefined()
      expect(operation?.responses["404"]).toBeDefined()
    }
  })

  it("documents the integrations operations with their statuses and codes (spec 4.2, decisions 8)", () => {
    type Operation = { description?: string; responses: Record<string, unknown> }
    const operation = (path: string) => document.paths[path]?.["post"] as unknown as Operation
    const redeem = operation("/v1/integrations/connection-references/redeem")
    const ready = operation("/v1/integrations/configurations/{configurationId}/ready")
    const failed = operation("/v1/integrations/configurations/{configurationId}/failed")
    expect(Object.keys(redeem.responses).sort()).toEqual(["201", "400", "401", "403", "413", "500", "503"])
    expect(Object.keys(ready.responses).sort()).toEqual(["201", "400", "401", "403", "404", "409", "413", "500", "503"])
    expect(Object.keys(failed.responses).sort()).toEqual(["201", "400", "401", "403", "404", "413", "500", "503"])
    expect(redeem.description).toContain("INTEGRATIONS_CONNECTION_REFERENCE_INVALID")
    for (const code of [
      "INTEGRATIONS_CONFIGURATION_INVALID",
      "INTEGRATIONS_CONNECTION_NOT_SUPPORTED",
      "INTEGRATIONS_POINT_ALREADY_FILLED",
      "INTEGRATIONS_CONFIGURATION_NOT_FOUND"
    ]) {
      expect(ready.description).toContain(code)
    }
    expect(failed.description).toContain("INTEGRATIONS_CONNECTION_NOT_SUPPORTED")
    expect(failed.description).toContain("INTEGRATIONS_CONFIGURATION_NOT_FOUND")
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(["IntegrationConfiguration", "IntegrationConfigurationPage", "ReadyRequest"])
    )
    // The choice the specification leaves open: only billing is gated by its configuration.
    expect(JSON.stringify(document.components.schemas["IntegrationConfiguration"])).toContain(
      "The signing and booking operations are not gated"
    )
  })

  it("documents the signed-PDF upload and the document download: addresses, no token, every answer", () => {
    type Operation = { security: unknown; description: string; requestBody?: { content: Record<string, unknown> }; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }
    const upload = document.paths["/v1/crm/signed-document-uploads/{uploadId}"]?.["put"] as unknown as Operation
    const download = document.paths["/v1/crm/signing-documents/{documentId}/content"]?.["get"] as unknown as Operation
    expect(upload.security).toEqual([])
    expect(download.security).toEqual([])
    expect(upload.requestBody).toEqual({ $ref: "#/components/requestBodies/UploadSignedDocumentRequest" })
    expect(Object.keys(upload.responses).sort()).toEqual(["201", "400", "403", "404", "413", "415", "500", "503"])
    expect(upload.responses["201"]?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/SignedDocumentStored" })
    for (const status of ["400", "403", "404", "413", "415", "500", "503"]) {
      expect(Object.keys(upload.responses[status]?.content ?? {})).toEqual(["application/problem+json"])
    }
    expect(upload.description).toContain("403 (the address) → 415 (the media type)")
    expect(Object.keys(download.responses).sort()).toEqual(["200", "403", "404", "500", "503"])
    expect(Object.keys(download.responses["200"]?.content ?? {})).toEqual(["application/pdf"])
    expect(Object.keys(document.components.schemas)).toEqual(
      expect.arrayContaining(["SignedDocumentStored", "UnsupportedMediaType"])
    )
  })

  it("states the one rule for 404 codes in the document and in every 404's description", () => {
    const text = JSON.stringify(document)
    expect(text).toContain("One rule for 404s")
    const notFound = document.components.schemas["NotFound"] as { description?: string }
    expect(notFound.description ?? JSON.stringify(document.paths["/v1/crm/signing-attempts/{attemptId}/signed"])).toContain(
      "INTEGRATIONS_CONFIGURATION_NOT_FOUND"
    )
  })

  it("lists every event type in its webhooks section, each with its envelope and resource", () => {
    const webhooks = (document as unknown as { webhooks: Record<string, { post: { description: string; requestBody: { content: Record<string, { schema: { $ref: string } }> } } }> }).webhooks
    expect(Object.keys(webhooks)).toEqual([...EVENT_TYPES])
    const schemas = document.components.schemas as Record<string, { properties: Record<string, { enum?: ReadonlyArray<string>; properties?: Record<string, unknown> }>; required: ReadonlyArray<string> }>
    for (const type of EVENT_TYPES) {
      const schema = schemas[webhooks[type]!.post.requestBody.content["application/json"]!.schema.$ref.replace("#/components/schemas/", "")]!
      expect(schema.properties["type"]?.enum).toEqual([type])
      expect(schema.required).toEqual(["id", "createdAt", "organizationId", "operationalContextId", "type", "data"])
      const data = schema.properties["data"]!.properties!
      expect(Object.keys(data)).toEqual(["object", ...Object.keys(EVENT_CATALOG[type].fields)])
      expect(webhooks[type]!.post.description).toContain("webhook-id")
    }
    expect(JSON.stringify(schemas["BillingInvoicePaymentRecordedEvent"])).toContain("#/components/schemas/Invoice")
    expect(JSON.stringify(schemas["CrmSigningAttemptSignedEvent"])).toContain("#/components/schemas/SigningAttempt")
  })

  it("leaves out the platform's generic decode error", () => {
    expect(JSON.stringify(document)).not.toContain("HttpApiDecodeError")
    expect(Object.keys(document.components.schemas)).toEqual(expect.arrayContaining(["Invoice", "InvoiceProposal", "BadRequest"]))
  })
})

describe("openApiDocument for generators (issue 24)", () => {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON
  const document = openApiDocument("https://api.example.test", "https://auth.example.test") as any
  const text = JSON.stringify(document)
  const operations = Object.values(document.paths as Record<string, Record<string, unknown>>).flatMap((item) =>
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    Object.entries(item).filter(([key]) => key !== "servers").map(([, operation]) => operation as any)
  )

  it("has an OAuth 2.0 clientCredentials scheme whose token URL is the identity host's token endpoint, described", () => {
    expect(document.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe("https://auth.example.test/oauth/token")
    const token = document.paths["/oauth/token"]
    expect(token.servers).toEqual([{ url: "https://auth.example.test", description: "Identity host" }])
    expect(Object.keys(token.post.requestBody.$ref ? document.components.requestBodies.TokenRequest.content : {})).toEqual([
      "application/x-www-form-urlencoded"
    ])
    expect(Object.keys(token.post.responses).sort()).toEqual(["200", "400", "401", "429", "503"])
    expect(document.paths["/.well-known/jwks.json"].servers[0].url).toBe("https://auth.example.test")
  })

  it("narrows each operation's problems to the codes it can answer", () => {
    const schemaOf = (path: string, method: string, status: string) =>
      document.components.schemas[
        document.paths[path][method].responses[status].content["application/problem+json"].schema.$ref.replace("#/components/schemas/", "")
      ]
    const codes = (path: string, method: string, status: string) => schemaOf(path, method, status).allOf[1].properties.code.enum
    const pass = "/v1/billing/invoice-proposals/{proposalId}/pass"
    expect(codes(pass, "post", "400").sort()).toEqual([
      "BILLING_INTEGRATION_GATE_NOT_DECLARED",
      "BILLING_INTEGRATION_NOT_CONFIGURED",
      "BILLING_PROPOSAL_STATUS_INVALID",
      "VALIDATION_FAILED"
    ])
    const create = "/v1/booking/booking-requests"
    expect(codes(create, "post", "409").sort()).toEqual(["BOOKING_REQUEST_ID_ALREADY_USED", "BOOKING_SLOT_TAKEN"])
    expect(codes(create, "post", "400")).toEqual(expect.arrayContaining(["BOOKING_IN_THE_PAST", "BOOKING_RESOURCE_CURRENCY_MISMATCH"]))
    expect(codes(create, "post", "400")).not.toContain("BOOKING_SLOT_TAKEN")
    expect(codes(pass, "post", "409").sort()).toEqual(["BILLING_EXTERNAL_REFERENCE_ALREADY_USED", "BILLING_PROPOSAL_MATERIAL_ALREADY_INVOICED"])
    expect(schemaOf(pass, "post", "404").allOf[1].properties.code).toBe(false)
    expect(codes("/v1/integrations/configurations/{configurationId}/ready", "post", "404")).toEqual(["INTEGRATIONS_CONFIGURATION_NOT_FOUND"])
    for (const operation of operations) {
      const problem = operation.responses["400"]?.content?.["application/problem+json"]?.schema?.$ref
      if (problem === undefined || problem === "#/components/schemas/BadRequest") continue
      const listed: ReadonlyArray<string> = document.components.schemas[problem.replace("#/components/schemas/", "")].allOf[1].properties.code.enum
      expect(listed.length, operation.operationId).toBeLessThan(40)
      expect(listed, operation.operationId).toContain("VALIDATION_FAILED")
    }
  })

  it("names X-Request-Id on every request and every response", () => {
    for (const operation of operations) {
      expect(operation.parameters, operation.operationId).toContainEqual({ $ref: "#/components/parameters/RequestId" })
      for (const response of Object.values(operation.responses as Record<string, { headers: unknown }>)) {
        expect(response.headers, operation.operationId).toMatchObject({ "X-Request-Id": { $ref: "#/components/headers/RequestId" } })
      }
    }
  })

  it("answers 503 (the database unavailable) on every operation of the API host, with Retry-After", () => {
    const served = operations.filter((operation) => operation.operationId !== "health.readyz" && operation.tags?.[0] !== "identity" && operation.tags?.[0] !== "Operations")
    expect(served.length).toBeGreaterThan(20)
    for (const operation of served) {
      const unavailable = operation.responses["503"]
      expect(unavailable?.headers, operation.operationId).toMatchObject({ "Retry-After": { $ref: "#/components/headers/RetryAfter" } })
      expect(unavailable.description, operation.operationId).toContain("temporarily unavailable")
    }
    expect(document.components.headers.RetryAfter.schema).toEqual({ type: "integer", minimum: 1 })
    expect(document.components.schemas.ServiceUnavailable.properties.status).toMatchObject({ enum: [503] })
    // The probe's 503 is its own body (not ready, draining), without Retry-After.
    expect(document.paths["/readyz"].get.responses["503"].headers).not.toHaveProperty("Retry-After")
  })

  it("names every request body and gives an example with every request and response", () => {
    for (const operation of operations) {
      if (operation.requestBody !== undefined) expect(operation.requestBody.$ref, operation.operationId).toMatch(/^#\/components\/requestBodies\//)
      for (const response of Object.values(operation.responses as Record<string, { content?: Record<string, { example?: unknown }> }>)) {
        for (const media of Object.values(response.content ?? {})) expect(media.example, operation.operationId).toBeDefined()
      }
    }
    for (const body of Object.values(document.components.requestBodies as Record<string, { content: Record<string, { example?: unknown }> }>)) {
      for (const media of Object.values(body.content)) expect(media.example).toBeDefined()
    }
  })

  it("has no schema-generator leftovers, and a license, a contact and a description for every tag", () => {
    expect(text).not.toMatch(/"title":"(between|int|greaterThan|lessThan|minLength|maxLength)/)
    expect(text).not.toContain("/schemas/%7B%7D")
    expect(text).not.toContain("a number between")
    expect(document.info.license).toEqual({ name: "MIT", url: "https://spdx.org/licenses/MIT.html" })
    expect(document.info.contact.url).toBe("https://api.example.test/docs")
    for (const tag of document.tags) expect(tag.description.length, tag.name).toBeGreaterThan(20)
  })
})

describe("report-sent and money-report bodies (decisions 5)", () => {
  const decodeSent = Schema.decodeUnknownEither(ReportSentRequest)
  const decodePayment = Schema.decodeUnknownEither(ReportPaymentRequest)
  const sent = {
    issuedInvoiceNumber: "F-1",
    issuedInvoiceDate: "2024-02-29",
    dueDate: "2024-03-30",
    issuedTotalGrossMinorUnits: 1_250_000,
    paymentReference: "79927398713",
    paymentReferenceType: "ocr",
    documentUrl: "https://erp.example/F-1.pdf"
  }
  const paths = (result: Either.Either<unknown, ParseResult.ParseError>) =>
    Either.isLeft(result)
      ? ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => `/${issue.path.join("/")}`)
      : []

  it("accepts a full report, a leap day included", () => expect(Either.isRight(decodeSent(sent))).toBe(true))

  it.each([
    ["a wrong OCR check digit", { paymentReference: "79927398710" }, "/paymentReference"],
    ["a KID wrong by MOD10 and MOD11", { paymentReferenceType: "kid", paymentReference: "602244" }, "/paymentReference"],
    ["a reference without its type", { paymentReferenceType: undefined }, "/paymentReferenceType"],
    ["an http documentUrl", { documentUrl: "http://erp.example/F-1.pdf" }, "/documentUrl"],
    ["a day that does not exist", { issuedInvoiceDate: "2025-02-29" }, "/issuedInvoiceDate"],
    ["a total beyond 2^53 − 1", { issuedTotalGrossMinorUnits: 2 ** 53 }, "/issuedTotalGrossMinorUnits"]
  ])("refuses %s at %s", (_, change, path) => {
    const body: Record<string, unknown> = { ...sent, ...change }
    for (const [key, value] of Object.entries(change)) if (value === undefined) delete body[key]
    expect(paths(decodeSent(body))).toContain(path)
  })

  it("accepts a KID whose MOD11 check character is '-'", () => {
    expect(Either.isRight(decodeSent({ ...sent, paymentReferenceType: "kid", paymentReference: "23-" }))).toBe(true)
  })

  it.each([
    [{ paymentId: "p", amountMinorUnits: 1, paidOn: "2025-01-31" }, true],
    [{ paymentId: "p", amountMinorUnits: -(2 ** 53 - 1), paidOn: "2025-01-31", currency: "NOK" }, true],
    [{ paymentId: "p", amountMinorUnits: 2 ** 53, paidOn: "2025-01-31" }, false],
    [{ paymentId: "p", amountMinorUnits: 1, paidOn: "2025-04-31" }, false],
    [{ paymentId: "", amountMinorUnits: 1, paidOn: "2025-01-31" }, false],
    [{ paymentId: "p", amountMinorUnits: 1, paidOn: "2025-01-31", currency: "BTC" }, false]
  ])("report-payment %j valid: %s", (body, valid) => {
    expect(Either.isRight(decodePayment(body))).toBe(valid)
  })
})

describe("request bodies (spec 8)", () => {
  const decodePass = Schema.decodeUnknownEither(PassProposalRequest)
  const decodeFailed = Schema.decodeUnknownEither(ReportFailedRequest)

  it.each([
    ["", false],
    ["x", true],
    ["x".repeat(200), true],
    ["x".repeat(201), false],
    ["😀".repeat(200), true],
    ["😀".repeat(201), false],
    ["  \t ", false]
  ])("externalReference %j valid: %s", (externalReference, valid) => {
    expect(Either.isRight(decodePass({ externalReference }))).toBe(valid)
  })

  it.each([
    [0, false],
    [1, true],
    [1000, true],
    [1001, false]
  ])("a reason of %i characters valid: %s", (length, valid) => {
    expect(Either.isRight(decodeFailed({ reason: "r".repeat(length) }))).toBe(valid)
  })
})

describe("PageParams (decisions 4)", () => {
  const decode = Schema.decodeUnknownEither(PageParams)
  it.each([
    [{}, true],
    [{ limit: "1" }, true],
    [{ limit: "100" }, true],
    [{ limit: "0" }, false],
    [{ limit: "101" }, false],
    [{ limit: "2.5" }, false],
    [{ limit: "ten" }, false],
    [{ cursor: "" }, false],
    [{ cursor: "abc" }, true]
  ])("%j valid: %s", (query, valid) => {
    expect(Either.isRight(decode(query))).toBe(valid)
  })
})

describe("problem (spec 2.3)", () => {
  it("fills the fixed members", () => {
    expect({ ...problem.conflict("BILLING_EXTERNAL_REFERENCE_ALREADY_USED", "used") }).toEqual({
      type: "about:blank",
      title: "Conflict",
      status: 409,
      code: "BILLING_EXTERNAL_REFERENCE_ALREADY_USED",
      detail: "used"
    })
    const validation = problem.validationFailed([{ path: "/reason", message: "too long" }])
    expect(validation.code).toBe("VALIDATION_FAILED")
    expect(validation.issues?.map((i) => ({ ...i }))).toEqual([{ path: "/reason", message: "too long" }])
  })
})

describe("integrations request bodies (spec 4.2, 8)", () => {
  const paths = (result: Either.Either<unknown, ParseResult.ParseError>) =>
    Either.isLeft(result)
      ? ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => `/${issue.path.join("/")}`)
      : []
  const decodeReady = Schema.decodeUnknownEither(ReadyRequest, { errors: "all" })
  const decodeFailed = Schema.decodeUnknownEither(IntegrationFailedRequest)
  const decodeRedeem = Schema.decodeUnknownEither(RedeemConnectionReferenceRequest)
  const account = { id: "4711", name: "Nordhavn AB" }

  it.each([
    [{ externalAccount: account }, []],
    [{ externalAccount: account, declaredGates: ["verification"], settings: { invoiceSeries: "A" } }, []],
    [{}, ["/externalAccount"]],
    [{ externalAccount: { id: "", name: "x" } }, ["/externalAccount/id"]],
    [{ externalAccount: { id: "x", name: "y".repeat(201) } }, ["/externalAccount/name"]],
    [{ externalAccount: account, declaredGates: Array.from({ length: 21 }, () => "g") }, ["/declaredGates"]],
    [{ externalAccount: account, declaredGates: [" "] }, ["/declaredGates/0"]],
    [{ externalAccount: account, settings: ["a"] }, ["/settings"]]
  ])("ready %j fails at %j", (body, expected) => {
    const failing = paths(decodeReady(body))
    expect(failing).toEqual(expected.length === 0 ? [] : expect.arrayContaining(expected))
  })

  it.each([
    ["x".repeat(1000), true],
    ["😀".repeat(1000), true],
    ["x".repeat(1001), false],
    ["", false]
  ])("failed reason %#: valid %s", (reason, valid) => {
    expect(Either.isRight(decodeFailed({ reason }))).toBe(valid)
  })

  it("takes any reference text of 1 to 200 characters (unknown ones are the API's refusal, not a schema's)", () => {
    expect(Either.isRight(decodeRedeem({ connectionReference: "not-a-reference" }))).toBe(true)
    expect(Either.isRight(decodeRedeem({ connectionReference: "" }))).toBe(false)
  })
})
