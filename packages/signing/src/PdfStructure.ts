/**
 * What the signed-document check reads from a PDF's bytes (ISO 32000-1 sections 7.5 and 7.6.1): the header, a
 * trailer dictionary, and whether a trailer names an encryption dictionary. Pure functions, linear in the length and
 * constant in memory whatever the bytes, and free of other imports, so the API host can load this module alone
 * into the worker thread that runs the check within a time and memory budget.
 *
 * @since 0.2.0
 */
import { scanTrailers } from "./internal/pdf.js"

const PDF_HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d] // "%PDF-"

/**
 * Whether `bytes` begin with the PDF header `%PDF-` (ISO 32000-1 section 7.5.2). Readers tolerate bytes before
 * it; a signed document to archive is held to the standard, so the header must be first.
 *
 * @since 0.2.0
 */
export const hasPdfHeader = (bytes: Uint8Array): boolean =>
  bytes.length >= PDF_HEADER.length && PDF_HEADER.every((byte, index) => bytes[index] === byte)

/**
 * Whether the PDF is encrypted: one of its trailer dictionaries (the classic `trailer`, or a cross-reference
 * stream's) has an `/Encrypt` key at its top level (ISO 32000-1 section 7.6.1). Names written with `#xx` escapes
 * count; `/Encrypt` in a string, a stream, a nested dictionary or as a value does not. Linear time in
 * `bytes.length` and constant memory, whatever the bytes.
 *
 * @since 0.2.0
 */
export const isEncryptedPdf = (bytes: Uint8Array): boolean => scanTrailers(bytes).encrypted

/**
 * What the document check reads from a PDF's bytes (ISO 32000-1 section 7.5): whether it begins with `%PDF-`
 * (`pdfHeader`), has a trailer (`hasTrailer`: a closed trailer dictionary, classic or a cross-reference
 * stream's, section 7.5.5), and is encrypted (`encrypted`, {@link isEncryptedPdf}).
 *
 * @since 0.2.0
 */
export interface PdfStructure {
  readonly pdfHeader: boolean
  readonly hasTrailer: boolean
  readonly encrypted: boolean
}

/**
 * The {@link PdfStructure} of `bytes`, in one pass: linear time in `bytes.length`, constant memory, never throws.
 *
 * @since 0.2.0
 */
export const readPdfStructure = (bytes: Uint8Array): PdfStructure => ({
  pdfHeader: hasPdfHeader(bytes),
  ...scanTrailers(bytes)
})
