import { describe, expect, it } from "@effect/vitest"
import { checkDocument, inspectDocument, sha256Hex } from "@propline/signing/SignedDocument"
import { Either } from "effect"
import { PDFDocument } from "pdf-lib"
import { type ContractDocument, renderContractPdf } from "../../src/signing/ContractPdf.js"

const RENDERED_AT = new Date("2026-11-23T09:00:00.000Z")

export const aContractDocument = (fields: Partial<ContractDocument> = {}): ContractDocument => ({
  title: "Contract K-1001 – Ångström Fastigheter AB",
  contractNumber: "K-1001",
  organizationName: "Norrsken Kontor AB",
  operationalContextName: "Kungsgatan 12, Stockholm",
  customer: { name: "Ångström Fastigheter AB", customerNumber: "10042", kind: "company", organisationNumber: "5566778899" },
  startsOn: "2026-12-01",
  endsOn: null,
  currency: "SEK",
  paymentTermsDays: 30,
  lines: [
    { description: "Office 4.12, 24 m²", monthlyNetMinorUnits: 1_250_000, vatRateBasisPoints: 2500 },
    { description: "Parking space P7", monthlyNetMinorUnits: 95_000, vatRateBasisPoints: 2500 }
  ],
  parties: [
    {
      kind: "organization",
      name: "Norrsken Kontor AB",
      signers: [{ name: "Olof Berg", email: "olof@norrsken.example", role: "signatory", signingOrder: 1 }]
    },
    {
      kind: "customer",
      name: "Ångström Fastigheter AB",
      signers: [
        { name: "Astrid Lind", email: "astrid@angstrom.example", role: "signatory", signingOrder: 2 },
        { name: "Bo Ek", email: "bo@angstrom.example", role: "viewer", signingOrder: 3 }
      ]
    }
  ],
  ...fields
})

describe("renderContractPdf", () => {
  it("makes a PDF that passes the signed-document checks: %PDF- header, not encrypted", async () => {
    const bytes = await renderContractPdf(aContractDocument(), RENDERED_AT)
    expect(Either.isRight(checkDocument(inspectDocument(bytes), { sizeBytes: bytes.length, sha256: sha256Hex(bytes) }))).toBe(true)
  })

  it("carries the title, subject, author and the rendering time as metadata", async () => {
    const loaded = await PDFDocument.load(await renderContractPdf(aContractDocument(), RENDERED_AT), {
      updateMetadata: false
    })
    expect(loaded.getTitle()).toBe("Contract K-1001 – Ångström Fastigheter AB")
    expect(loaded.getSubject()).toBe("Contract K-1001")
    expect(loaded.getAuthor()).toBe("Norrsken Kontor AB")
    expect(loaded.getCreationDate()).toEqual(RENDERED_AT)
    expect(loaded.getModificationDate()).toEqual(RENDERED_AT)
    expect(loaded.getPageCount()).toBe(1)
  })

  it("gives the same bytes for the same contract and time, and others for another time", async () => {
    const first = sha256Hex(await renderContractPdf(aContractDocument(), RENDERED_AT))
    expect(sha256Hex(await renderContractPdf(aContractDocument(), RENDERED_AT))).toBe(first)
    expect(sha256Hex(await renderContractPdf(aContractDocument(), new Date("2026-11-24T00:00:00.000Z")))).not.toBe(first)
  })

  it("continues on new pages when the charges don't fit on one", async () => {
    const lines = Array.from({ length: 120 }, (_, index) => ({
      description: `Workspace ${index + 1} with a description long enough to wrap onto a second line of the table`,
      monthlyNetMinorUnits: 100_00 * (index + 1),
      vatRateBasisPoints: 2500
    }))
    const loaded = await PDFDocument.load(await renderContractPdf(aContractDocument({ lines }), RENDERED_AT))
    expect(loaded.getPageCount()).toBeGreaterThan(3)
  })

  it("draws characters Helvetica lacks as ?, and never fails on a name", async () => {
    const document = aContractDocument({
      title: "Umowa – Łódź 😀",
      customer: { name: "Zażółć\tgęślą\njaźń", customerNumber: "1", kind: "private", organisationNumber: null },
      lines: []
    })
    const loaded = await PDFDocument.load(await renderContractPdf(document, RENDERED_AT), { updateMetadata: false })
    expect(loaded.getTitle()).toBe("Umowa – Łódź 😀")
    expect(loaded.getPageCount()).toBe(1)
  })
})
