/**
 * Issue 19 at the contract: calendar-checked dates and instants (items 2), strict bodies and integer query
 * parameters (3), readable issues (4). The HTTP behaviour is tested black box in apps/api/test/http.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, ParseResult, Schema, SchemaAST } from "effect"
import { IntegrationApi } from "../src/Api.js"
import { AvailabilityParams, CreateBookingRequest } from "../src/Booking.js"
import { openApiDocument } from "../src/OpenApiDocument.js"
import { body, EmptyRequest } from "../src/Request.js"
import { readableIssues } from "../src/ValidationIssues.js"
import { CalendarDate, Instant } from "../src/Values.js"

const issuesOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown) => {
  const result = Schema.decodeUnknownEither(schema)(input)
  if (Either.isRight(result)) throw new Error(`decoded: ${JSON.stringify(input)}`)
  return readableIssues(ParseResult.ArrayFormatter.formatErrorSync(result.left))
}

describe("CalendarDate", () => {
  it.each(["2028-02-29", "2000-02-29", "1900-01-01", "2999-12-31", "2026-04-30"])("accepts %s", (date) => {
    expect(Schema.decodeUnknownSync(CalendarDate)(date)).toBe(date)
  })
  it.each(["2027-02-29", "1900-02-29", "2027-04-31", "2026-11-31", "2026-00-01", "2026-13-01", "0000-01-01", "1899-12-31", "3000-01-01", "2026-1-5", "20260105", " 2026-01-05", "2026-01-05T00:00:00Z", 20260105])(
    "refuses %s",
    (date) => expect(Either.isLeft(Schema.decodeUnknownEither(CalendarDate)(date))).toBe(true)
  )
})

describe("Instant", () => {
  it.each([
    ["2026-03-24T10:00:00Z", "2026-03-24T10:00:00.000Z"],
    ["2026-03-24T10:00Z", "2026-03-24T10:00:00.000Z"],
    ["2028-02-29T23:30:00+01:00", "2028-02-29T22:30:00.000Z"],
    ["2026-03-24T10:00:00.123000-02:00", "2026-03-24T12:00:00.123Z"],
    ["1900-01-01T00:00:00Z", "1900-01-01T00:00:00.000Z"]
  ])("reads %s as %s", (text, iso) => {
    expect(Schema.decodeUnknownSync(Instant)(text).toISOString()).toBe(iso)
  })
  it.each([
    "2026-11-31T09:00:00Z", "2027-02-29T10:00:00Z", "2026-03-24T24:00:00Z", "2026-03-24T10:60:00Z", "2026-03-24T10:00:60Z",
    "2026-03-24T10:00:00.0001Z", "2026-03-24T10:00:00", "2026-03-24", "0000-01-01T00:00:00Z", "1900-01-01T00:30:00+01:00",
    "2999-12-31T23:30:00-01:00", "+275760-09-13T00:00:00Z", "2026-03-24T10:00:00+24:00", "2026-03-24t10:00:00z", 1
  ])("refuses %s", (text) => expect(Either.isLeft(Schema.decodeUnknownEither(Instant)(text))).toBe(true))
})

describe("integer query parameters", () => {
  const window = { from: "2026-01-01T00:00:00Z", to: "2026-01-02T00:00:00Z" }
  it.each(["0x3c", "6e1", "060", "+60", "60.0", " 60", "60 ", "", "0", "44641", "-1"])("refuses durationMinutes=%s", (text) => {
    expect(issuesOf(AvailabilityParams, { ...window, durationMinutes: text })).toEqual([
      { path: "/durationMinutes", message: "must be an integer from 1 to 44640" }
    ])
  })
  it("reads 60", () => expect(Schema.decodeUnknownSync(AvailabilityParams)({ ...window, durationMinutes: "60" }).durationMinutes).toBe(60))
})

describe("strict bodies", () => {
  const endpoints = Object.values(IntegrationApi.groups).flatMap((group) => Object.values(group.endpoints))

  it("decodes every operation's body with unknown members refused and every failing field reported", () => {
    const bodies = endpoints.filter((endpoint) => endpoint.payloadSchema._tag === "Some")
    expect(bodies.length).toBeGreaterThan(15)
    for (const endpoint of bodies) {
      const schema = endpoint.payloadSchema._tag === "Some" ? endpoint.payloadSchema.value : undefined
      if (schema === EmptyRequest) continue
      const options = SchemaAST.getParseOptionsAnnotation(schema!.ast)
      expect(options._tag === "Some" ? options.value : undefined, endpoint.name).toEqual({ onExcessProperty: "error", errors: "all" })
    }
  })

  it("says so in the document: every JSON request body's schema has additionalProperties false", () => {
    const document = openApiDocument("https://api.example.test", "https://auth.example.test") as unknown as {
      paths: Record<string, Record<string, { requestBody?: { $ref: string } }>>
      components: {
        schemas: Record<string, { $ref?: string }>
        requestBodies: Record<string, { content: { "application/json"?: { schema: { $ref?: string } } } }>
      }
    }
    const schemas = Object.values(document.paths)
      .flatMap((item) => Object.values(item))
      // The signed-PDF upload's body is application/pdf, not JSON.
      .flatMap((operation) => {
        // Request bodies are named components (issue 24).
        const named = operation.requestBody?.$ref.replace("#/components/requestBodies/", "")
        const json = named === undefined ? undefined : document.components.requestBodies[named]?.content["application/json"]
        return json === undefined ? [] : [json.schema]
      })
      .map((schema) => (schema.$ref === undefined ? schema : document.components.schemas[schema.$ref.replace("#/components/schemas/", "")]))
    expect(schemas.length).toBeGreaterThan(15)
    for (const schema of schemas) expect((schema as { additionalProperties?: unknown }).additionalProperties).toBe(false)
  })

  it("names each unknown member once, beside the other failing fields, without an optional member's noise", () => {
    const issues = issuesOf(body(CreateBookingRequest), {
      requestId: "r-1",
      resourceId: "00000000-0000-4000-8000-000000000000",
      period: { start: "2026-11-31T09:00:00Z", end: "2026-12-01T10:00:00Z" },
      addons: [],
      currency: "XXX",
      guest: { name: "A", email: "a@example.se", mail: "a@example.se" }
    })
    expect(issues.map((issue) => issue.path)).toEqual(["/addons", "/period/start", "/currency", "/guest/mail"])
    expect(issues.find((issue) => issue.path === "/currency")?.message).toBe("must be one of: SEK, NOK, DKK, EUR, USD, GBP")
  })

  it("EmptyRequest takes {} or nothing", () => {
    expect(Schema.decodeUnknownSync(EmptyRequest)({})).toEqual({})
    expect(Schema.decodeUnknownSync(EmptyRequest)(undefined)).toBeUndefined()
    for (const input of [[], [1, 2], "s", 1, null, true]) {
      expect(issuesOf(EmptyRequest, input)).toEqual([{ path: "", message: "The body must be an empty JSON object, {}, or absent." }])
    }
    expect(issuesOf(EmptyRequest, { a: 1, b: 2 }).map((issue) => issue.path)).toEqual(["/a", "/b"])
  })
})

describe("readableIssues", () => {
  it("turns the decoder's words into sentences and never echoes the value", () => {
    const long = JSON.stringify(Array.from({ length: 1000 }, (_, index) => index))
    expect(
      readableIssues([
        { _tag: "Type", path: ["a"], message: `Expected string, actual ${long}` },
        { _tag: "Type", path: ["b"], message: `Expected { readonly x: string }, actual ${long}` },
        { _tag: "Type", path: ["c"], message: `Expected ReadonlyArray<string>, actual 1` },
        { _tag: "Refinement", path: ["d"], message: `Expected an array of at most 2 item(s), actual ${long}` },
        { _tag: "Type", path: ["e"], message: `Expected Some description of the field., actual ${long}` },
        { _tag: "Missing", path: ["f"], message: "is missing" },
        { _tag: "Type", path: ["g"], message: "Expected \"x\", actual \"z\"" },
        { _tag: "Type", path: ["g"], message: "Expected \"y\", actual \"z\"" },
        { _tag: "Type", path: ["g"], message: "Expected undefined, actual \"z\"" },
        { _tag: "Type", path: ["h", "i"], message: "must be 1 to 2 characters long" },
        { _tag: "Type", path: ["h"], message: "Expected undefined, actual {}" },
        { _tag: "Type", path: [], message: "Expected ReadyRequest (Encoded side), actual null" },
        { _tag: "Type", path: ["j"], message: "x".repeat(1000) }
      ])
    ).toEqual([
      { path: "/a", message: "must be a string" },
      { path: "/b", message: "must be a JSON object" },
      { path: "/c", message: "must be an array" },
      { path: "/d", message: "must be an array of at most 2 items" },
      { path: "/e", message: "is not valid" },
      { path: "/f", message: "is required" },
      { path: "/g", message: "must be one of: x, y" },
      { path: "/h/i", message: "must be 1 to 2 characters long" },
      { path: "", message: "The body must be a JSON object." },
      { path: "/j", message: `${"x".repeat(299)}…` }
    ])
  })
})
