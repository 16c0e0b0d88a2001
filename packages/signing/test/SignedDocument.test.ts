import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { Either } from "effect"
import * as fc from "fast-check"
import {
  checkDocument,
  hasPdfHeader,
  isEncryptedPdf,
  receiveUpload,
  requestUpload,
  sha256Hex
} from "../src/SignedDocument.js"
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

describe("checkDocument (declared size and SHA-256, %PDF- header, not encrypted)", () => {
  const pdf = bytesOf(PLAIN_PDF)

  it("accepts the declared PDF; the digest may be upper-case hex", () => {
    expect(Either.isRight(checkDocument(pdf, declaredFor(pdf)))).toBe(true)
    expect(Either.isRight(checkDocument(pdf, { ...declaredFor(pdf), sha256: sha256Hex(pdf).toUpperCase() }))).toBe(true)
  })

  const cases: ReadonlyArray<readonly [string, Uint8Array, { sizeBytes: number; sha256: string }, string]> = [
    ["a longer body than declared", pdf, { ...declaredFor(pdf), sizeBytes: pdf.length - 1 }, "size-mismatch"],
    ["a shorter body than declared", pdf, { ...declaredFor(pdf), sizeBytes: pdf.length + 1 }, "size-mismatch"],
    ["another digest", pdf, { ...declaredFor(pdf), sha256: sha256Hex(bytesOf("other")) }, "digest-mismatch"],
    ["a file that is not a PDF", bytesOf("not a pdf"), declaredFor(bytesOf("not a pdf")), "not-pdf"],
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
    const { events, upload: stored } = getRight(receiveUpload({ attempt, upload }, pdf, NOW))
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
    expect(getLeft(receiveUpload({ attempt, upload: expired }, pdf, NOW))).toMatchObject({
      code: "CRM_SIGNED_DOCUMENT_REJECTED",
      reason: "address-expired"
    })
  })

  it("a second PDF through the same address → CRM_SIGNED_DOCUMENT_REJECTED (already-uploaded)", () => {
    const stored = { ...upload, status: "stored" as const, storedAt: EARLIER }
    expect(getLeft(receiveUpload({ attempt, upload: stored }, pdf, NOW))).toMatchObject({ reason: "already-uploaded" })
  })

  it("bytes that fail the checks → CRM_SIGNED_DOCUMENT_REJECTED with the check's reason", () => {
    expect(getLeft(receiveUpload({ attempt, upload }, bytesOf(ENCRYPTED_PDF), NOW))).toMatchObject({
      reason: "size-mismatch"
    })
  })

  it("an attempt that ended meanwhile → CRM_SIGNING_ATTEMPT_ENDED, before anything else", () => {
    const withdrawn = anAttempt({ status: "withdrawn" })
    expect(getLeft(receiveUpload({ attempt: withdrawn, upload: { ...upload, expiresAt: EARLIER } }, pdf, NOW)).code)
      .toBe("CRM_SIGNING_ATTEMPT_ENDED")
  })
})
