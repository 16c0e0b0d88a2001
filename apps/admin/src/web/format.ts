/** How the console writes money, dates and times: the operator's locale, amounts from minor units. */

const moneyFormats = new Map<string, Intl.NumberFormat>()

/** `minorUnits` of `currency` as the locale writes money (12345 SEK → "123.45 kr" or "SEK 123.45"). */
export const money = (minorUnits: number, currency: string): string => {
  let format = moneyFormats.get(currency)
  if (format === undefined) {
    format = new Intl.NumberFormat(undefined, { style: "currency", currency })
    moneyFormats.set(currency, format)
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2
  return format.format(minorUnits / 10 ** digits)
}

const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" })

export const dateTime = (value: Date | null | undefined): string => (value == null ? "—" : dateTimeFormat.format(value))

const secondsFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" })

/** A time to the second (the attempts of a delivery, seconds apart). */
export const dateTimeSeconds = (value: Date | null | undefined): string => (value == null ? "—" : secondsFormat.format(value))

/** Basis points as a percentage: 2500 → "25 %". */
export const percent = (basisPoints: number): string => `${basisPoints / 100} %`
