/**
 * The compiled JSON encoder writes exactly what the Schema path writes (`JSON.stringify` of `Schema.encodeSync`),
 * for generated values of every response schema the API encodes with it, and for the loose shapes the server holds
 * (plain objects, database rows with null in absent optional fields).
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck, Schema } from "effect"
import { InvoicePage, PassProposalResponse, ProposalPage } from "../src/Billing.js"
import { Invoice } from "../src/Invoice.js"
import { InvoiceProposal } from "../src/InvoiceProposal.js"
import * as JsonEncoder from "../src/JsonEncoder.js"
import { OperationalContextPage } from "../src/OperationalContexts.js"

/** What the Schema path sends. */
const viaSchema = <A, I>(schema: Schema.Schema<A, I>) => {
  const encode = Schema.encodeSync(schema)
  return (value: A): string => JSON.stringify(encode(value))
}

/** A plain-object copy of a generated value (no Schema classes), as the server builds its records. */
const plain = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(plain)
  if (value instanceof Date || typeof value !== "object" || value === null) return value
  const copy: Record<string, unknown> = {}
  for (const [key, member] of Object.entries(value)) copy[key] = plain(member)
  return copy
}

const withNulls = (fields: ReadonlyArray<string>, value: Record<string, unknown>): Record<string, unknown> => {
  const row = { ...value }
  for (const field of fields) if (!(field in row)) row[field] = null
  return row
}

const optionalFields = (schema: { readonly fields: Schema.Struct.Fields }): ReadonlyArray<string> =>
  Object.entries(schema.fields).flatMap(([name, field]) => (Schema.isPropertySignature(field) ? [name] : []))

/** The bytes as hex, to compare with what node writes to the socket for a text (`Buffer.from(text, "utf8")`). */
const hex = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex")
const utf8Of = (text: string): string => Buffer.from(text, "utf8").toString("hex")

const cases = [
  ["InvoicePage", InvoicePage],
  ["InvoiceProposalPage", ProposalPage],
  ["OperationalContextPage", OperationalContextPage],
  ["Invoice", Invoice],
  ["InvoiceProposal", InvoiceProposal],
  ["PassProposalResponse", PassProposalResponse]
] as const

describe("JsonEncoder.make", () => {
  it.each(cases)("writes %s exactly as the Schema path does, as text and as its UTF-8 bytes", (_name, schema) => {
    const fast = JsonEncoder.make(schema as Schema.Schema<unknown>)
    const bytes = JsonEncoder.makeBytes(schema as Schema.Schema<unknown>)
    const slow = viaSchema(schema as Schema.Schema<unknown>)
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(schema as Schema.Schema<unknown>), (value) => {
        expect(fast(value as never)).toBe(slow(value))
        expect(fast(plain(value) as never)).toBe(slow(value))
        expect(hex(bytes(plain(value) as never))).toBe(utf8Of(slow(value)))
      }),
      { numRuns: 300 }
    )
  })

  it("leaves out an optional field given as null or undefined, as when it is absent", () => {
    const fast = JsonEncoder.make(Invoice)
    const slow = viaSchema(Invoice)
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(Invoice), (invoice) => {
        const row = withNulls(optionalFields(Invoice), { ...invoice })
        expect(fast(row as never)).toBe(slow(invoice))
        const undefinedRow = Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v === null ? undefined : v]))
        expect(fast(undefinedRow as never)).toBe(slow(invoice))
      }),
      { numRuns: 200 }
    )
  })

  it("writes null in a NullOr field and escapes text", () => {
    const schema = Schema.Struct({ parentId: Schema.NullOr(Schema.String), name: Schema.String })
    const fast = JsonEncoder.make(schema)
    expect(fast({ parentId: null, name: 'a "quoted"\n\u2028 name' })).toBe(
      JSON.stringify({ parentId: null, name: 'a "quoted"\n\u2028 name' })
    )
  })

  it.each([
    ["a record", Schema.Record({ key: Schema.String, value: Schema.Number })],
    ["a tuple", Schema.Tuple(Schema.String, Schema.Number)],
    ["a transformation it does not know", Schema.NumberFromString],
    ["a union of different kinds", Schema.Union(Schema.String, Schema.Number)],
    ["a bigint", Schema.BigIntFromSelf]
  ])("refuses %s when it is made, not when it runs", (_what, schema) => {
    expect(() => JsonEncoder.make(schema as Schema.Schema<unknown>)).toThrow(/JsonEncoder/)
  })
})

describe("JsonEncoder.make on refinements it writes without escaping", () => {
  it.each([
    ["a UUID", Schema.UUID, "0f8fad5b-d9cb-469f-a165-70867728950e"],
    ["a branded UUID", Schema.UUID.pipe(Schema.brand("Id")), "0f8fad5b-d9cb-469f-a165-70867728950e"],
    ["an ISO date", Schema.String.pipe(Schema.pattern(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/)), "2026-11-23"],
    ["a literal", Schema.Literal("written-off"), "written-off"]
  ])("writes %s as JSON.stringify does", (_what, schema, value) => {
    expect(JsonEncoder.make(schema as Schema.Schema<unknown>)(value as never)).toBe(JSON.stringify(value))
  })

  it.each([
    ["a pattern that admits any character", Schema.String.pipe(Schema.pattern(/^.+$/))],
    ["a negated character class", Schema.String.pipe(Schema.pattern(/^[^0-9]$/))],
    ["a literal with a quote", Schema.Literal('say "hi"')]
  ])("escapes %s", (_what, schema) => {
    const value = schema.ast._tag === "Literal" ? 'say "hi"' : '"'
    expect(JsonEncoder.make(schema as Schema.Schema<unknown>)(value as never)).toBe(JSON.stringify(value))
  })
})

describe("JsonEncoder.makeBytes", () => {
  it("writes any number as JSON.stringify does (NaN and the infinities as null, -0 as 0, fractions, exponents)", () => {
    const schema = Schema.Struct({ n: Schema.Number })
    const text = JsonEncoder.make(schema)
    const bytes = JsonEncoder.makeBytes(schema)
    const check = (n: number) => {
      expect(text({ n })).toBe(JSON.stringify({ n }))
      expect(hex(bytes({ n }))).toBe(utf8Of(JSON.stringify({ n })))
    }
    for (const n of [0, -0, 1, -1, 9, 10, 99, 100, -10, 1e21, 1e-7, 0.1, -2.5, NaN, Infinity, -Infinity]) check(n)
    for (const n of [Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, 2 ** 53, -(2 ** 53), Number.MAX_VALUE]) check(n)
    FastCheck.assert(FastCheck.property(FastCheck.double(), (n) => check(n)), { numRuns: 2000 })
    FastCheck.assert(FastCheck.property(FastCheck.integer({ min: -(2 ** 53) + 1, max: 2 ** 53 - 1 }), (n) => check(n)), {
      numRuns: 2000
    })
  })

  it("writes any date as toISOString does, extended years included, and refuses an invalid one as the Schema path", () => {
    const schema = Schema.Struct({ at: Schema.Date })
    const text = JsonEncoder.make(schema)
    const bytes = JsonEncoder.makeBytes(schema)
    const check = (at: Date) => {
      expect(text({ at })).toBe(JSON.stringify({ at: at.toISOString() }))
      expect(hex(bytes({ at }))).toBe(utf8Of(JSON.stringify({ at: at.toISOString() })))
    }
    for (const at of ["0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "1970-01-01T00:00:00.000Z"]) check(new Date(at))
    for (const time of [-62167219200001, 253402300800000, 8.64e15, -8.64e15]) check(new Date(time))
    FastCheck.assert(FastCheck.property(FastCheck.date({ noInvalidDate: true }), (at) => check(at)), { numRuns: 3000 })
    expect(() => text({ at: new Date(Number.NaN) })).toThrow(RangeError)
    expect(() => Schema.encodeSync(schema)({ at: new Date(Number.NaN) })).toThrow()
    // The scratch buffer is reset after a throw: the next encoding is whole.
    check(new Date(0))
  })

  it("writes any text as UTF-8, escaped as JSON.stringify escapes it (lone surrogates, pairs, controls)", () => {
    const schema = Schema.Struct({ name: Schema.String, id: Schema.UUID })
    const text = JsonEncoder.make(schema)
    const bytes = JsonEncoder.makeBytes(schema)
    const id = "0f8fad5b-d9cb-469f-a165-70867728950e"
    const check = (name: string) => {
      expect(text({ name, id })).toBe(JSON.stringify({ name, id }))
      expect(hex(bytes({ name, id }))).toBe(utf8Of(JSON.stringify({ name, id })))
    }
    for (const name of ["", "é", "€", "😀", "\ud800", "\udc00x", "a\u0000b\u001f", "\u2028\u2029", '"\\']) check(name)
    FastCheck.assert(FastCheck.property(FastCheck.string({ unit: "binary" }), (name) => check(name)), { numRuns: 3000 })
  })

  it("writes a trusted unescaped string's characters as node would (any UTF-16, lone surrogates as U+FFFD)", () => {
    const bytes = JsonEncoder.makeBytes(Schema.UUID)
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ unit: "binary" }), (value) => {
        expect(hex(bytes(value))).toBe(utf8Of(`"${value}"`))
      }),
      { numRuns: 2000 }
    )
  })

  it("encodes a value larger than its scratch buffer, and the next value after it, whole", () => {
    const schema = Schema.Array(Schema.String)
    const bytes = JsonEncoder.makeBytes(schema)
    const text = JsonEncoder.make(schema)
    const large = Array.from({ length: 40_000 }, (_, index) => `entry ${index} with some text, é and 😀`)
    expect(hex(bytes(large))).toBe(utf8Of(JSON.stringify(large)))
    expect(text(large)).toBe(JSON.stringify(large))
    expect(text(["small"])).toBe('["small"]')
    const first = bytes(["a"])
    bytes(["b"])
    expect(hex(first)).toBe(utf8Of('["a"]'))
  })
})
