/**
 * Amounts of money from minor units (the API's `…MinorUnits` integers) as the machine-readable value beside the
 * locale's text (issue 25: "SEK 7,582.50" beside ISO dates; the console shows the locale's text and this value on
 * hover, as `ui/Time.tsx` does for dates).
 */

const exponents = new Map<string, number>()

/**
 * The digits after the decimal point of `currency` (ISO 4217 code): the minor units per major unit are
 * 10^exponent (SEK, NOK, EUR 2; JPY, ISK 0; KWD 3). Read from the platform's currency data (CLDR), the same the
 * console formats with, so the value on hover always matches the text. Throws RangeError for a code that is no
 * well-formed currency code.
 */
export const currencyExponent = (currency: string): number => {
  let exponent = exponents.get(currency)
  if (exponent === undefined) {
    exponent = new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
    exponents.set(currency, exponent)
  }
  return exponent
}

/**
 * `minorUnits` (an integer) of `currency` as a decimal in major units with exactly the currency's exponent of
 * digits, no grouping, a `.` for the point and `-` for a negative amount: 758250 SEK → "7582.50", 5 SEK → "0.05",
 * -1200 NOK → "-12.00", 1200 JPY → "1200". Computed on digits, not by floating division.
 */
export const decimalAmount = (minorUnits: number, currency: string): string => {
  const exponent = currencyExponent(currency)
  const digits = Math.abs(Math.trunc(minorUnits)).toString().padStart(exponent + 1, "0")
  const whole = digits.slice(0, digits.length - exponent)
  const fraction = digits.slice(digits.length - exponent)
  return `${minorUnits < 0 ? "-" : ""}${whole}${exponent === 0 ? "" : `.${fraction}`}`
}

/** The ISO value of an amount, decimal then currency code: 758250 SEK → "7582.50 SEK" (the `title` of money shown). */
export const isoMoney = (minorUnits: number, currency: string): string => `${decimalAmount(minorUnits, currency)} ${currency}`
