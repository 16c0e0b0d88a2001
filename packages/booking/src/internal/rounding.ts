/**
 * `rate × part / whole` rounded to an integer, halves away from zero, exact (BigInt): the pro-rata price of
 * `part` milliseconds at `rate` per `whole` milliseconds.
 *
 * @internal
 */
export const proRata = (rate: number, part: number, whole: number): number => {
  const numerator = BigInt(rate) * BigInt(part)
  const denominator = BigInt(whole)
  const quotient = numerator / denominator
  const twiceRemainder = (numerator % denominator) * 2n
  const magnitude = twiceRemainder < 0n ? -twiceRemainder : twiceRemainder
  if (magnitude < denominator) return Number(quotient)
  return Number(numerator < 0n ? quotient - 1n : quotient + 1n)
}
