/**
 * Length rules of the free-text fields callers send (spec sections 4.1 and 8). The contract's request schemas
 * apply the same bounds, counted the same way, at the HTTP edge (and also refuse blank text and control
 * characters); the domain uses these for texts that reach it by other paths, such as a credit note's reason.
 *
 * Lengths count Unicode code points, as JSON Schema's `minLength`/`maxLength` do (JSON Schema 2020-12
 * validation section 6.3.1): "å" and "😀" are one character each. JavaScript's `String.prototype.length` counts
 * UTF-16 code units (an emoji is 2), so a schema built on it would refuse text the published OpenAPI document
 * allows; use {@link codePointLength}.
 *
 * @since 0.1.0
 */

/**
 * Fewest characters (code points) in a `reason` (report-failed, reject; spec section 8).
 *
 * @since 0.1.0
 */
export const REASON_MIN_LENGTH = 1

/**
 * Most characters (code points) in a `reason` (report-failed, reject; spec section 8).
 *
 * @since 0.1.0
 */
export const REASON_MAX_LENGTH = 1000

/**
 * Fewest characters (code points) in an `externalReference` (pass; spec section 8).
 *
 * @since 0.1.0
 */
export const EXTERNAL_REFERENCE_MIN_LENGTH = 1

/**
 * Most characters (code points) in an `externalReference` (pass; spec section 8). It must also be unique in the
 * organization, which `ProposalVerification.pass` checks.
 *
 * @since 0.1.0
 */
export const EXTERNAL_REFERENCE_MAX_LENGTH = 200

/**
 * The length of `text` in Unicode code points (a lone surrogate counts as one), as JSON Schema counts.
 *
 * @since 0.1.0
 */
export const codePointLength = (text: string): number => {
  let length = 0
  for (const _codePoint of text) length++
  return length
}

/**
 * Whether `text` is a valid `reason`: 1 to 1000 code points. Whitespace counts like any other character.
 *
 * @since 0.1.0
 */
export const isReasonText = (text: string): boolean => {
  const length = codePointLength(text)
  return length >= REASON_MIN_LENGTH && length <= REASON_MAX_LENGTH
}

/**
 * Whether `text` is a valid `externalReference` length: 1 to 200 code points.
 *
 * @since 0.1.0
 */
export const isExternalReference = (text: string): boolean => {
  const length = codePointLength(text)
  return length >= EXTERNAL_REFERENCE_MIN_LENGTH && length <= EXTERNAL_REFERENCE_MAX_LENGTH
}
