import { Either } from "effect"
import type { SignedDocumentUpload } from "../src/SignedDocumentUpload.js"
import type { SigningAttemptRecord } from "../src/SigningAttempt.js"
import type { PreparationState, PrepareCommand } from "../src/SigningPreparation.js"

/** The frozen "now" every transition in the tests is given. */
export const NOW = new Date("2026-11-23T09:26:53.000Z")
/** An earlier instant, for fields set before the transition under test. */
export const EARLIER = new Date("2026-11-20T07:00:00.000Z")

export const CUSTOMER_PARTY_ID = "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c01"
export const ORGANIZATION_PARTY_ID = "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c02"

export const anAttempt = (fields: Partial<SigningAttemptRecord> = {}): SigningAttemptRecord => ({
  id: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c00",
  organizationId: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c03",
  operationalContextId: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c04",
  contractId: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c05",
  status: "queued",
  title: "Contract K-1001 – Ångström Fastigheter AB",
  parties: [
    {
      id: CUSTOMER_PARTY_ID,
      kind: "customer",
      name: "Ångström Fastigheter AB",
      signers: [
        {
          id: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c11",
          name: "Astrid Lind",
          email: "astrid@angstrom.example",
          role: "signatory",
          signingOrder: 1
        }
      ]
    },
    {
      id: ORGANIZATION_PARTY_ID,
      kind: "organization",
      name: "Norrsken Kontor AB",
      signers: [
        {
          id: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c12",
          name: "Olof Berg",
          email: "olof@norrsken.example",
          role: "signatory",
          signingOrder: 2
        }
      ]
    }
  ],
  queuedAt: EARLIER,
  updatedAt: EARLIER,
  ...fields
})

export const aPreparationState = (
  contract: Partial<PreparationState["contract"]> = {},
  liveAttemptId?: string
): PreparationState => ({
  contract: {
    id: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c05",
    organizationId: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c03",
    operationalContextId: "3f1c2a10-8d4e-4b7a-9c61-0a5e2b7d4c04",
    contractNumber: "K-1001",
    status: "active",
    signingStatus: "unsent",
    customerKind: "company",
    customerName: "Ångström Fastigheter AB",
    organizationName: "Norrsken Kontor AB",
    ...contract
  },
  ...(liveAttemptId === undefined ? {} : { liveAttemptId })
})

export const aPrepareCommand = (fields: Partial<PrepareCommand> = {}): PrepareCommand => ({
  attemptId: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c00",
  title: "Contract K-1001 – Ångström Fastigheter AB",
  parties: [
    {
      partyId: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c01",
      kind: "customer",
      signers: [
        {
          signerId: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c11",
          name: "Astrid Lind",
          email: "astrid@angstrom.example",
          role: "signatory",
          signingOrder: 1
        }
      ]
    },
    {
      partyId: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c02",
      kind: "organization",
      signers: [
        {
          signerId: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c12",
          name: "Olof Berg",
          email: "olof@norrsken.example",
          role: "signatory",
          signingOrder: 2
        }
      ]
    }
  ],
  ...fields
})

/** A small, well-formed, unencrypted PDF 1.4 with a classic trailer. */
export const PLAIN_PDF = `%PDF-1.4
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj
3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R >> endobj
4 0 obj << /Length 44 >> stream
BT /F1 12 Tf 72 770 Td (Signed /Encrypt) Tj ET
endstream endobj
xref
0 5
0000000000 65535 f 
trailer
<< /Size 5 /Root 1 0 R /Info << /Title (Contract /Encrypt) >> /ID [<0a1b> <0a1b>] >>
startxref
9
%%EOF
`

/** The same file with an encryption dictionary named in its trailer (ISO 32000-1 7.6.1). */
export const ENCRYPTED_PDF = PLAIN_PDF.replace("/Root 1 0 R", "/Root 1 0 R /Encrypt 5 0 R")

/** A PDF 1.5 whose trailer is a cross-reference stream dictionary that names /Encrypt. */
export const ENCRYPTED_XREF_STREAM_PDF = `%PDF-1.7
1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj
9 0 obj
<< /Type /XRef /Size 10 /W [1 2 1] /Root 1 0 R /Encrypt 8 0 R /ID [<aa> <aa>] /Length 12 >>
stream
............
endstream
endobj
startxref
52
%%EOF
`

/** The same cross-reference stream without /Encrypt. */
export const PLAIN_XREF_STREAM_PDF = ENCRYPTED_XREF_STREAM_PDF.replace(" /Encrypt 8 0 R", "")

export const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text)

export const anUpload = (fields: Partial<SignedDocumentUpload> = {}): SignedDocumentUpload => ({
  id: "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a800",
  attemptId: anAttempt().id,
  organizationId: anAttempt().organizationId,
  declaredSizeBytes: 100,
  declaredSha256: "0".repeat(64),
  status: "pending",
  expiresAt: new Date(NOW.getTime() + 60_000),
  createdAt: EARLIER,
  ...fields
})

/** The Right of `either`; fails the test (with the Left) otherwise. */
export const getRight = <R, L>(either: Either.Either<R, L>): R => {
  if (Either.isLeft(either)) throw new Error(`expected Right, got Left: ${JSON.stringify(either.left)}`)
  return either.right
}

/** The Left of `either`; fails the test (with the Right) otherwise. */
export const getLeft = <R, L>(either: Either.Either<R, L>): L => {
  if (Either.isRight(either)) throw new Error(`expected Left, got Right: ${JSON.stringify(either.right)}`)
  return either.left
}
