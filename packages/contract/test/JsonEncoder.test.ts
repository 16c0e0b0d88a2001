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

const cases = [
  ["InvoicePage", InvoicePage],
  ["InvoiceProposalPage", ProposalPage],
  ["OperationalContextPage", OperationalContextPage],
  ["Invoice", Invoice],
  ["InvoiceProposal", InvoiceProposal],
  ["PassProposalResponse", PassProposalResponse]
] as const

describe("JsonEncoder.make", () => {
  it.each(cases)("writes %s exactly as the Schema path does", (_name, schema) => {
    const fast = JsonEncoder.make(schema as Schema.Schema<unknown>)
    const slow = viaSchema(schema as Schema.Schema<unknown>)
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(schema as Schema.Schema<unknown>), (value) => {
        expect(fast(value as never)).toBe(slow(value))
        expect(fast(plain(value) as never)).toBe(slow(value))
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
