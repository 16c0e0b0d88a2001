/**
 * The PDF inspector (issue 19 item 1): the upload's digest and structure computed in a worker thread, the same as
 * the pure functions would; a body it can't finish within its budget comes back unfinished, which the rule refuses
 * `too-complex`; the caller's bytes are left as they were.
 */
import { checkDocument, inspectDocument } from "@propline/signing/SignedDocument"
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { DEFAULT_PDF_INSPECTOR_OPTIONS, makePdfInspector, type PdfInspectorOptions } from "../../src/signing/PdfInspector.js"

const PDF = "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer\n<< /Root 1 0 R /Encrypt 2 0 R >>\nstartxref\n9\n%%EOF\n"

const inspect = (bytes: Uint8Array, options: Partial<PdfInspectorOptions> = {}) =>
  Effect.runPromise(
    Effect.flatMap(makePdfInspector({ ...DEFAULT_PDF_INSPECTOR_OPTIONS, ...options }), (inspector) =>
      inspector.inspect(bytes)
    )
  )

describe("PdfInspector.inspect", () => {
  it("finds in a worker what the pure functions find: size, SHA-256, structure", async () => {
    for (const text of [PDF, PDF.replace(" /Encrypt 2 0 R", ""), "not a pdf", `%PDF-1.7\n${" obj<<".repeat(10_000)}`]) {
      const bytes = new TextEncoder().encode(text)
      expect(await inspect(bytes)).toStrictEqual(inspectDocument(bytes))
    }
  })

  it("leaves the caller's bytes as they were, a Buffer from the shared pool included", async () => {
    const bytes = Buffer.from(PDF)
    await inspect(bytes)
    expect(bytes.toString()).toBe(PDF)
  })

  it("a body it can't finish within the budget comes back unfinished: the rule refuses it too-complex", async () => {
    const bytes = new TextEncoder().encode(`%PDF-1.7\n${" obj<<".repeat(1_000_000)}`)
    const inspection = await inspect(bytes, { budgetMillis: 1 })
    expect(inspection.structure).toBeUndefined()
    expect(inspection.sizeBytes).toBe(bytes.length)
    const declared = { sizeBytes: bytes.length, sha256: inspectDocument(bytes).sha256 ?? "" }
    const refusal = Either.getLeft(checkDocument(inspection, declared))
    expect(refusal._tag === "Some" && refusal.value.reason).toBe("too-complex")
  })

  it("runs at most `concurrency` inspections at once: with one, a small body asked second waits for a large one", async () => {
    const large = new TextEncoder().encode(`%PDF-1.7\n${" obj<<".repeat(4_000_000)}`)
    const small = new TextEncoder().encode(PDF)
    const order = async (concurrency: number) => {
      const inspector = await Effect.runPromise(makePdfInspector({ ...DEFAULT_PDF_INSPECTOR_OPTIONS, concurrency }))
      const finished: Array<string> = []
      await Promise.all([
        Effect.runPromise(inspector.inspect(large)).then(() => finished.push("large")),
        Effect.runPromise(inspector.inspect(small)).then(() => finished.push("small"))
      ])
      return finished
    }
    expect(await order(1)).toEqual(["large", "small"])
    expect(await order(2)).toEqual(["small", "large"])
  })
})
