import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Either } from "effect"
import * as fc from "fast-check"
import { hasPdfHeader, isEncryptedPdf, readPdfStructure } from "../src/PdfStructure.js"
import { checkDocument as check, inspectDocument, receiveUpload, requestUpload, sha256Hex } from "../src/SignedDocument.js"
import { MAX_SIGNED_DOCUMENT_BYTES, UPLOAD_ADDRESS_LIFETIME_SECONDS } from "../src/SignedDocumentUpload.js"
import {
  anAttempt,
  anUpload,
  bytesOf,
  EARLIER,
  ENCRYPTED_PDF,
  ENCRYPTED_XREF_STREAM_PDF,
  getLeft,
  getRight,
  NOW,
  PLAIN_PDF,
  PLAIN_XREF_STREAM_PDF
} from "./fixtures.js"

const declaredFor = (bytes: Uint8Array) => ({ sizeBytes: bytes.length, sha256: sha256Hex(bytes) })

describe("sha256Hex (FIPS 180-4)", () => {
  it("gives the standard test vectors", () => {
    expect(sha256Hex(bytesOf(""))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(sha256Hex(bytesOf("abc"))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })
  it("agrees with node:crypto on any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        expect(sha256Hex(bytes)).toBe(createHash("sha256").update(bytes).digest("hex"))
      })
    )
  })
})

describe("hasPdfHeader (ISO 32000-1 7.5.2)", () => {
  it("accepts a file that begins with %PDF-", () => {
    expect(hasPdfHeader(bytesOf(PLAIN_PDF))).toBe(true)
    expect(hasPdfHeader(bytesOf("%PDF-"))).toBe(true)
  })
  for (const [name, text] of [
    ["empty", ""],
    ["too short", "%PDF"],
    ["lower case", "%pdf-1.7"],
    ["bytes before the header", ` ${PLAIN_PDF}`],
    ["a PNG", "\x89PNG\r\n\x1a\n"],
    ["text", "hello, world"]
  ] as const) {
    it(`refuses ${name}`, () => expect(hasPdfHeader(bytesOf(text))).toBe(false))
  }
})

describe("isEncryptedPdf (ISO 32000-1 7.6.1: an /Encrypt entry in the trailer)", () => {
  it("a classic trailer with /Encrypt", () => expect(isEncryptedPdf(bytesOf(ENCRYPTED_PDF))).toBe(true))
  it("a cross-reference stream with /Encrypt", () =>
    expect(isEncryptedPdf(bytesOf(ENCRYPTED_XREF_STREAM_PDF))).toBe(true))
  it("the name written with #xx escapes", () =>
    expect(isEncryptedPdf(bytesOf(ENCRYPTED_PDF.replace("/Encrypt 5", "/Encr#79pt 5")))).toBe(true))
  it("the trailer on the next line after the keyword", () =>
    expect(isEncryptedPdf(bytesOf(ENCRYPTED_PDF.replace("trailer\n<<", "trailer\r\n\r\n  <<")))).toBe(true))
  it("an incremental update whose last trailer adds /Encrypt", () =>
    expect(isEncryptedPdf(bytesOf(`${PLAIN_PDF}trailer\n<< /Size 6 /Prev 9 /Encrypt 5 0 R >>\n%%EOF\n`))).toBe(true))

  it("not a plain PDF, though /Encrypt appears in a string, a nested dictionary and a content stream", () =>
    expect(isEncryptedPdf(bytesOf(PLAIN_PDF))).toBe(false))
  it("not a plain cross-reference stream", () => expect(isEncryptedPdf(bytesOf(PLAIN_XREF_STREAM_PDF))).toBe(false))
  it("not /Encrypt inside a nested dictionary of the trailer", () =>
    expect(isEncryptedPdf(bytesOf(PLAIN_PDF.replace("/Title (Contract /Encrypt)", "/Encrypt 5 0 R")))).toBe(false))
  it("not a /Type /XRef object without the entry, nor an object stream", () =>
    expect(isEncryptedPdf(bytesOf("%PDF-1.5\n7 0 obj << /Type /ObjStm /Encrypt 1 0 R >> endobj\n"))).toBe(false))
  it("never throws on arbitrary bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2048 }), (bytes) => {
        expect(typeof isEncryptedPdf(bytes)).toBe("boolean")
      })
    )
    expect(isEncryptedPdf(bytesOf("trailer <<"))).toBe(false)
    expect(isEncryptedPdf(bytesOf("trailer << /A (unclosed"))).toBe(false)
  })
})

describe("readPdfStructure (ISO 32000-1 7.5: header, trailer, encryption)", () => {
  it("every fixture: a header and a trailer; encrypted exactly when a trailer names /Encrypt", () => {
    for (const [text, encrypted] of [
      [PLAIN_PDF, false],
      [ENCRYPTED_PDF, true],
      [PLAIN_XREF_STREAM_PDF, false],
      [ENCRYPTED_XREF_STREAM_PDF, true]
    ] as const) {
      expect(readPdfStructure(bytesOf(text))).toStrictEqual({ pdfHeader: true, hasTrailer: true, encrypted })
    }
  })
  for (const [name, text] of [
    ["no trailer at all", "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n"],
    ["an unclosed trailer", "%PDF-1.7\ntrailer << /Size 1\nstartxref\n9\n%%EOF\n"],
    ["a closed dictionary that is not a cross-reference stream", "%PDF-1.7\n1 0 obj << /Type /ObjStm >>\nstartxref 9\n"],
    ["the crafted obj body", `%PDF-1.7\n${" obj<<".repeat(1000)}`],
    ["the crafted trailer body", `%PDF-1.7\n${"trailer<<".repeat(1000)}`]
  ] as const) {
    it(`no trailer: ${name}`, () => expect(readPdfStructure(bytesOf(text)).hasTrailer).toBe(false))
  }
  it("an unclosed << in an earlier object does not hide the trailer", () =>
    expect(readPdfStructure(bytesOf(ENCRYPTED_PDF.replace("/Length 44 >>", "/Length 44 << >>"))).encrypted).toBe(true))
  it("/Encrypt as a value, or inside stream data, is not a key", () => {
    expect(isEncryptedPdf(bytesOf(PLAIN_PDF.replace("/Size 5", "/Size 5 /Filter /Encrypt")))).toBe(false)
    expect(isEncryptedPdf(bytesOf(PLAIN_PDF.replace("(Signed /Encrypt)", "trailer << /Encrypt 5 0 R >>")))).toBe(false)
  })
  it("takes time linear in the length on the crafted bodies (the quadratic scan took 8.7 s for 160 KB)", () => {
    const timed = (text: string) => {
      const bytes = bytesOf(text)
      return Math.min(
        ...[0, 1, 2].map(() => {
          const start = performance.now()
          readPdfStructure(bytes)
          return performance.now() - start
        })
      )
    }
    for (const unit of [" obj<<", "trailer<<", "<<", "[", "1 0 obj (endobj\n", "/a"]) {
      const small = timed(`%PDF-1.7\n${unit.repeat(100_000)}`)
      const large = timed(`%PDF-1.7\n${unit.repeat(400_000)}`)
      // 4 times the bytes: about 4 times the time, far from the 16 times of a quadratic scan (noise allowed for).
      expect(large, unit).toBeLessThan(Math.max(small * 12, 200))
      expect(large, unit).toBeLessThan(2_000)
    }
  })
})

describe("checkDocument (declared size and SHA-256, %PDF- header, trailer, not encrypted)", () => {
  const pdf = bytesOf(PLAIN_PDF)
  const checkDocument = (bytes: Uint8Array, declared: { sizeBytes: number; sha256: string }) =>
    check(inspectDocument(bytes), declared)

  it("accepts the declared PDF; the digest may be upper-case hex", () => {
    expect(Either.isRight(checkDocument(pdf, declaredFor(pdf)))).toBe(true)
    expect(Either.isRight(checkDocument(pdf, { ...declaredFor(pdf), sha256: sha256Hex(pdf).toUpperCase() }))).toBe(true)
  })

  const cases: ReadonlyArray<readonly [string, Uint8Array, { sizeBytes: number; sha256: string }, string]> = [
    ["a longer body than declared", pdf, { ...declaredFor(pdf), sizeBytes: pdf.length - 1 }, "size-mismatch"],
    ["a shorter body than declared", pdf, { ...declaredFor(pdf), sizeBytes: pdf.length + 1 }, "size-mismatch"],
    ["another digest", pdf, { ...declaredFor(pdf), sha256: sha256Hex(bytesOf("other")) }, "digest-mismatch"],
    ["a file that is not a PDF", bytesOf("not a pdf"), declaredFor(bytesOf("not a pdf")), "not-pdf"],
    ["a PDF without a file trailer", bytesOf("%PDF-1.7\n obj<<"), declaredFor(bytesOf("%PDF-1.7\n obj<<")), "unreadable"],
    ["an encrypted PDF", bytesOf(ENCRYPTED_PDF), declaredFor(bytesOf(ENCRYPTED_PDF)), "encrypted"]
  ]
  for (const [name, bytes, declared, reason] of cases) {
    it(`refuses ${name}: CRM_SIGNED_DOCUMENT_REJECTED (${reason})`, () => {
      const refusal = getLeft(checkDocument(bytes, declared))
      expect(refusal).toMatchObject({ code: "CRM_SIGNED_DOCUMENT_REJECTED", status: 400, reason })
    })
  }

  it("checks the size before the digest, and the digest before the content", () => {
    const notPdf = bytesOf("plain text")
    expect(getLeft(checkDocument(notPdf, { sizeBytes: 3, sha256: "00" })).reason).toBe("size-mismatch")
    expect(getLeft(checkDocument(notPdf, { sizeBytes: notPdf.length, sha256: "00" })).reason).toBe("digest-mismatch")
  })

  it("an inspection that could not finish within its budget → too-complex, after the size", () => {
    const declared = declaredFor(pdf)
    expect(getLeft(check({ sizeBytes: pdf.length }, declared)).reason).toBe("too-complex")
    expect(getLeft(check({ sizeBytes: pdf.length, sha256: declared.sha256 }, declared)).reason).toBe("too-complex")
    expect(getLeft(check({ sizeBytes: pdf.length + 1 }, declared)).reason).toBe("size-mismatch")
  })
})

describe("requestUpload (signed-document-upload)", () => {
  const started = anAttempt({ status: "started", startedAt: EARLIER })
  const command = { uploadId: "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a801", sizeBytes: 1234, sha256: "AB".repeat(32) }

  it("gives a pending upload for the declared size and digest, expiring in 15 minutes", () => {
    expect(getRight(requestUpload(started, command, NOW))).toStrictEqual({
      id: command.uploadId,
      attemptId: started.id,
      organizationId: started.organizationId,
      declaredSizeBytes: 1234,
      declaredSha256: "ab".repeat(32),
      status: "pending",
      expiresAt: new Date(NOW.getTime() + 15 * 60 * 1000),
      createdAt: NOW
    })
    expect(UPLOAD_ADDRESS_LIFETIME_SECONDS).toBe(900)
    expect(MAX_SIGNED_DOCUMENT_BYTES).toBe(26_214_400)
  })

  it("on a queued attempt → CRM_AGREEMENT_TRANSITION_INVALID", () => {
    expect(getLeft(requestUpload(anAttempt({ status: "queued" }), command, NOW)).code).toBe(
      "CRM_AGREEMENT_TRANSITION_INVALID"
    )
  })

  for (const status of ["signed", "declined", "expired", "failed", "withdrawn"] as const) {
    it(`on a ${status} attempt → CRM_SIGNING_ATTEMPT_ENDED`, () => {
      expect(getLeft(requestUpload(anAttempt({ status }), command, NOW)).code).toBe("CRM_SIGNING_ATTEMPT_ENDED")
    })
  }
})

describe("receiveUpload (the PUT to the upload address)", () => {
  const attempt = anAttempt({ status: "started", startedAt: EARLIER })
  const pdf = bytesOf(PLAIN_PDF)
  const upload = anUpload({
    attemptId: attempt.id,
    declaredSizeBytes: pdf.length,
    declaredSha256: sha256Hex(pdf),
    expiresAt: new Date(NOW.getTime() + 1)
  })

  it("stores the declared PDF: the upload becomes stored, with its event", () => {
    const { events, upload: stored } = getRight(receiveUpload({ attempt, upload }, inspectDocument(pdf), NOW))
    expect(stored).toStrictEqual({ ...upload, status: "stored", storedAt: NOW })
    expect(events).toStrictEqual([
      {
        _tag: "crm.signing_attempt.signed_document_uploaded",
        attemptId: attempt.id,
        contractId: attempt.contractId,
        organizationId: attempt.organizationId,
        operationalContextId: attempt.operationalContextId,
        uploadId: upload.id,
        at: NOW
      }
    ])
  })

  it("at the expiry instant → CRM_SIGNED_DOCUMENT_REJECTED (address-expired)", () => {
    const expired = { ...upload, expiresAt: NOW }
    expect(getLeft(receiveUpload({ attempt, upload: expired }, inspectDocument(pdf), NOW))).toMatchObject({
      code: "CRM_SIGNED_DOCUMENT_REJECTED",
      reason: "address-expired"
    })
  })

  it("a second PDF through the same address → CRM_SIGNED_DOCUMENT_REJECTED (already-uploaded)", () => {
    const stored = { ...upload, status: "stored" as const, storedAt: EARLIER }
    expect(getLeft(receiveUpload({ attempt, upload: stored }, inspectDocument(pdf), NOW))).toMatchObject({ reason: "already-uploaded" })
  })

  it("bytes that fail the checks → CRM_SIGNED_DOCUMENT_REJECTED with the check's reason", () => {
    expect(getLeft(receiveUpload({ attempt, upload }, inspectDocument(bytesOf(ENCRYPTED_PDF)), NOW))).toMatchObject({
      reason: "size-mismatch"
    })
  })

  it("an attempt that ended meanwhile → CRM_SIGNING_ATTEMPT_ENDED, before anything else", () => {
    const withdrawn = anAttempt({ status: "withdrawn" })
    expect(getLeft(receiveUpload({ attempt: withdrawn, upload: { ...upload, expiresAt: EARLIER } }, inspectDocument(pdf), NOW)).code)
      .toBe("CRM_SIGNING_ATTEMPT_ENDED")
  })
})
