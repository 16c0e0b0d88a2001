/**
 * How the console writes money, dates and times: in the organization's locale (issue 25: a Swedish or Norwegian
 * operator read US 12-hour times and "SEK 7,582.50"), amounts from minor units. The locale follows the
 * organization's country ({@link localeFor}); the console sets it at sign-in ({@link setLocale}). Times are shown in
 * the browser's time zone; `ui/Time.tsx` puts the ISO value on hover, `ui/Money.tsx` money's ("7582.50 SEK").
 */
import { currencyExponent } from "../Money.js"

/** The locale of each country the console knows; any other country writes as en-GB (24-hour, day before month). */
const LOCALES: Readonly<Record<string, string>> = {
  SE: "sv-SE",
  NO: "nb-NO",
  DK: "da-DK",
  FI: "fi-FI",
  IS: "is-IS",
  DE: "de-DE",
  NL: "nl-NL",
  FR: "fr-FR",
  IE: "en-IE",
  GB: "en-GB",
  US: "en-US"
}

/** The locale of an organization in `country` (ISO 3166-1 alpha-2): SE → sv-SE, NO → nb-NO, else en-GB. */
export const localeFor = (country: string): string => LOCALES[country.trim().toUpperCase()] ?? "en-GB"

let locale = "en-GB"
const moneyFormats = new Map<string, Intl.NumberFormat>()
let dateTimeFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" })
let secondsFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium" })
let dayFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" })

/** Writes from now on as `next` does (a BCP 47 tag); the console renders again after it. */
export const setLocale = (next: string): void => {
  if (next === locale) return
  locale = next
  moneyFormats.clear()
  dateTimeFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short" })
  secondsFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "medium" })
  dayFormat = new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: "UTC" })
}

/** The locale the console writes in. */
export const currentLocale = (): string => locale

/**
 * `minorUnits` of `currency` as the locale writes money (12345 SEK → "123,45 kr" in sv-SE, "SEK 123.45" in en-GB).
 * A page shows it with its ISO value on hover through `ui/Money.tsx`; this text alone only where no element can
 * carry one (a chart's axis).
 */
export const money = (minorUnits: number, currency: string): string => {
  let format = moneyFormats.get(currency)
  if (format === undefined) {
    format = new Intl.NumberFormat(locale, { style: "currency", currency })
    moneyFormats.set(currency, format)
  }
  return format.format(minorUnits / 10 ** currencyExponent(currency))
}

export const dateTime = (value: Date | null | undefined): string => (value == null ? "—" : dateTimeFormat.format(value))

/** A time to the second (the attempts of a delivery, seconds apart). */
export const dateTimeSeconds = (value: Date | null | undefined): string => (value == null ? "—" : secondsFormat.format(value))

/** A calendar date (`YYYY-MM-DD`, a period's first day) as the locale writes it; text that is no date as it is. */
export const calendarDay = (iso: string): string => {
  const at = new Date(`${iso}T00:00:00.000Z`)
  return /^\d{4}-\d{2}-\d{2}$/.test(iso) && !Number.isNaN(at.getTime()) ? dayFormat.format(at) : iso
}

/** Basis points as a percentage: 2500 → "25 %". */
export const percent = (basisPoints: number): string => `${(basisPoints / 100).toLocaleString(locale)} %`
