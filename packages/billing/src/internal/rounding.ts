/**
 * `numerator / denominator` rounded to an integer, halves away from zero (so a credit note's VAT is the exact
 * negative of the matching invoice's). Exact for any size: BigInt, no floating point. `denominator` must be > 0.
 *
 * @internal
 */
export const divideRoundHalfAwayFromZero = (numerator: bigint, denominator: bigint): bigint => {
  const quotient = numerator / denominator // truncates toward zero
  const remainder = numerator % denominator // takes the numerator's sign
  const twiceRemainder = (remainder < 0n ? -remainder : remainder) * 2n
  if (twiceRemainder < denominator) {
    return quotient
  }
  return numerator < 0n ? quotient - 1n : quotient + 1n
}
