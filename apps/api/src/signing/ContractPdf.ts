/**
 * The contract as the PDF sent for signature (issue 9: "a PDF rendered by the service from the contract"), drawn
 * with pdf-lib on A4 pages: title, parties, premises, term, payment terms, the monthly charges with VAT, and one
 * signature block per signatory. The same contract, parties and time give the same bytes, so a document's SHA-256
 * identifies what was signed.
 *
 * Text is set in the standard Helvetica (no font file to ship); a character it can't show (outside Windows-1252,
 * such as "ł" or an emoji) is drawn as "?", so rendering never fails on a name.
 */
import { PDFDocument, type PDFFont, type PDFPage, rgb, StandardFonts } from "pdf-lib"

/** What the document shows: the contract with its parties and signers, as prepared. */
export interface ContractDocument {
  readonly title: string
  readonly contractNumber: string
  readonly organizationName: string
  readonly operationalContextName: string
  readonly customer: {
    readonly name: string
    readonly customerNumber: string
    readonly kind: "company" | "private"
    readonly organisationNumber: string | null
  }
  /** ISO dates; `endsOn` null while open-ended. */
  readonly startsOn: string
  readonly endsOn: string | null
  /** ISO 4217; every accepted currency has two decimals. */
  readonly currency: string
  readonly paymentTermsDays: number
  readonly lines: ReadonlyArray<{
    readonly description: string
    /** Minor units, excluding VAT. */
    readonly monthlyNetMinorUnits: number
    /** Basis points (2500 = 25 %). */
    readonly vatRateBasisPoints: number
  }>
  readonly parties: ReadonlyArray<{
    readonly kind: "customer" | "organization"
    readonly name: string
    readonly signers: ReadonlyArray<{
      readonly name: string
      readonly email: string
      readonly role: "signatory" | "approver" | "viewer"
      readonly signingOrder: number
    }>
  }>
}

const A4 = { width: 595.28, height: 841.89 } as const
const MARGIN = 56
const BODY = 10
const INK = rgb(0.1, 0.1, 0.12)
const MUTED = rgb(0.4, 0.4, 0.45)

const money = (minorUnits: number, currency: string): string => {
  const sign = minorUnits < 0 ? "-" : ""
  const absolute = Math.abs(minorUnits)
  const whole = Math.floor(absolute / 100).toLocaleString("en-US")
  return `${sign}${whole}.${String(absolute % 100).padStart(2, "0")} ${currency}`
}

const percent = (basisPoints: number): string => `${(basisPoints / 100).toFixed(basisPoints % 100 === 0 ? 0 : 2)} %`

/** A page cursor that starts a new page when the next block would not fit. */
class Writer {
  page: PDFPage
  y: number
  constructor(
    private readonly document: PDFDocument,
    readonly regular: PDFFont,
    readonly bold: PDFFont,
    private readonly footer: string
  ) {
    this.page = this.newPage()
    this.y = A4.height - MARGIN
  }

  private newPage(): PDFPage {
    const page = this.document.addPage([A4.width, A4.height])
    const footer = this.safe(this.footer, this.regular)
    page.drawText(footer, { x: MARGIN, y: MARGIN / 2, size: 8, font: this.regular, color: MUTED })
    return page
  }

  /** Text the font can draw: line breaks and tabs become spaces, unknown characters "?". */
  safe(text: string, font: PDFFont): string {
    const known = new Set(font.getCharacterSet())
    let out = ""
    for (const char of text.replace(/[\t\r\n]+/g, " ")) out += known.has(char.codePointAt(0) ?? 0) ? char : "?"
    return out
  }

  ensure(height: number): void {
    if (this.y - height < MARGIN) {
      this.page = this.newPage()
      this.y = A4.height - MARGIN
    }
  }

  /** Lines of `text` no wider than `width` at `size`, broken at spaces (a longer word is cut). */
  wrap(text: string, font: PDFFont, size: number, width: number): ReadonlyArray<string> {
    const lines: Array<string> = []
    let line = ""
    for (const word of this.safe(text, font).split(" ")) {
      const candidate = line === "" ? word : `${line} ${word}`
      if (font.widthOfTextAtSize(candidate, size) <= width) {
        line = candidate
        continue
      }
      if (line !== "") lines.push(line)
      let rest = word
      while (font.widthOfTextAtSize(rest, size) > width) {
        let cut = rest.length - 1
        while (cut > 1 && font.widthOfTextAtSize(rest.slice(0, cut), size) > width) cut--
        lines.push(rest.slice(0, cut))
        rest = rest.slice(cut)
      }
      line = rest
    }
    if (line !== "") lines.push(line)
    return lines.length === 0 ? [""] : lines
  }

  paragraph(text: string, options: { readonly size?: number; readonly bold?: boolean; readonly x?: number } = {}) {
    const size = options.size ?? BODY
    const font = options.bold === true ? this.bold : this.regular
    const x = options.x ?? MARGIN
    for (const line of this.wrap(text, font, size, A4.width - MARGIN - x)) {
      this.ensure(size * 1.4)
      this.y -= size * 1.4
      this.page.drawText(line, { x, y: this.y, size, font, color: INK })
    }
  }

  /** One table row: each cell's text drawn from its x, right-aligned when asked; rows don't wrap. */
  row(cells: ReadonlyArray<{ readonly text: string; readonly x: number; readonly right?: number }>, bold = false) {
    const font = bold ? this.bold : this.regular
    this.ensure(BODY * 1.5)
    this.y -= BODY * 1.5
    for (const cell of cells) {
      const text = this.safe(cell.text, font)
      const x = cell.right === undefined ? cell.x : cell.right - font.widthOfTextAtSize(text, BODY)
      this.page.drawText(text, { x, y: this.y, size: BODY, font, color: INK })
    }
  }

  gap(points: number) {
    this.y -= points
  }

  heading(text: string) {
    this.ensure(BODY * 5)
    this.gap(BODY)
    this.paragraph(text, { size: 12, bold: true })
    this.gap(2)
  }

  rule(x: number, width: number) {
    this.page.drawLine({ start: { x, y: this.y }, end: { x: x + width, y: this.y }, thickness: 0.6, color: MUTED })
  }
}

const ROLE_LABEL = { signatory: "Signatory", approver: "Approver", viewer: "Receives a copy" } as const
const PARTY_LABEL = { organization: "Landlord", customer: "Customer" } as const

/**
 * Renders `document` as a PDF; `renderedAt` becomes the PDF's creation and modification dates. Deterministic: the
 * same input gives the same bytes.
 */
export const renderContractPdf = async (document: ContractDocument, renderedAt: Date): Promise<Uint8Array> => {
  const pdf = await PDFDocument.create({ updateMetadata: false })
  pdf.setTitle(document.title, { showInWindowTitleBar: true })
  pdf.setSubject(`Contract ${document.contractNumber}`)
  pdf.setAuthor(document.organizationName)
  pdf.setCreator("Propline")
  pdf.setProducer("Propline (pdf-lib)")
  pdf.setLanguage("en")
  pdf.setCreationDate(renderedAt)
  pdf.setModificationDate(renderedAt)

  const regular = await pdf.embedFont(StandardFonts.Helvetica)
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold)
  const w = new Writer(pdf, regular, bold, `${document.title} · Contract ${document.contractNumber}`)

  w.paragraph(document.title, { size: 18, bold: true })
  w.paragraph(`Contract ${document.contractNumber}`, { size: 11 })

  w.heading("Parties")
  w.paragraph(`Landlord: ${document.organizationName}`)
  const customer = document.customer
  const registration =
    customer.kind === "company" && customer.organisationNumber !== null
      ? `, organisation number ${customer.organisationNumber}`
      : ""
  w.paragraph(`Customer: ${customer.name} (customer number ${customer.customerNumber}${registration})`)

  w.heading("Premises")
  w.paragraph(document.operationalContextName)

  w.heading("Term")
  w.paragraph(
    document.endsOn === null
      ? `From ${document.startsOn}, until further notice.`
      : `From ${document.startsOn} to ${document.endsOn}.`
  )

  w.heading("Payment")
  w.paragraph(
    `Charges are invoiced monthly in ${document.currency}, ` +
      `payable within ${document.paymentTermsDays} days of the invoice date.`
  )

  w.heading("Monthly charges")
  const right = A4.width - MARGIN
  const columns = { description: MARGIN, net: right - 230, vat: right - 140, gross: right }
  w.row(
    [
      { text: "Description", x: columns.description },
      { text: "Net", x: 0, right: columns.net },
      { text: "VAT", x: 0, right: columns.vat },
      { text: "Total", x: 0, right: columns.gross }
    ],
    true
  )
  let totalNet = 0
  let totalGross = 0
  for (const line of document.lines) {
    const vat = Math.round((line.monthlyNetMinorUnits * line.vatRateBasisPoints) / 10_000)
    const gross = line.monthlyNetMinorUnits + vat
    totalNet += line.monthlyNetMinorUnits
    totalGross += gross
    const description = w.wrap(line.description, regular, BODY, columns.net - 120 - MARGIN)
    w.row([
      { text: description[0] ?? "", x: columns.description },
      { text: money(line.monthlyNetMinorUnits, document.currency), x: 0, right: columns.net },
      { text: percent(line.vatRateBasisPoints), x: 0, right: columns.vat },
      { text: money(gross, document.currency), x: 0, right: columns.gross }
    ])
    for (const more of description.slice(1)) w.row([{ text: more, x: columns.description }])
  }
  if (document.lines.length === 0) w.row([{ text: "No monthly charges.", x: columns.description }])
  w.gap(4)
  w.rule(MARGIN, right - MARGIN)
  w.row(
    [
      { text: "Per month", x: columns.description },
      { text: money(totalNet, document.currency), x: 0, right: columns.net },
      { text: money(totalGross, document.currency), x: 0, right: columns.gross }
    ],
    true
  )

  w.heading("Signatures")
  w.paragraph("The parties sign this contract electronically, in the signing order shown.")
  for (const party of document.parties) {
    w.gap(6)
    w.paragraph(`${PARTY_LABEL[party.kind]}: ${party.name}`, { bold: true })
    for (const signer of party.signers) {
      if (signer.role !== "signatory") {
        w.paragraph(`${ROLE_LABEL[signer.role]}: ${signer.name} <${signer.email}> (order ${signer.signingOrder})`)
        continue
      }
      w.ensure(BODY * 7)
      w.gap(BODY * 3)
      w.rule(MARGIN, 240)
      w.paragraph(`${signer.name} <${signer.email}>`)
      w.paragraph(`Signatory, signing order ${signer.signingOrder}`, { size: 8 })
    }
  }

  return pdf.save({ useObjectStreams: true })
}
