/**
 * The settings each kind's connector reports with `ready` (`POST /v1/integrations/configurations/{id}/ready`),
 * as Effect schemas: the API checks a report's `settings` against its configuration's kind and answers
 * `INTEGRATIONS_CONFIGURATION_INVALID` with one issue per failing field. Members not listed for the kind are
 * refused (a misspelt setting should not pass unnoticed). Texts count Unicode code points and must not be blank
 * or hold control characters.
 *
 * | kind | member | required | meaning |
 * | --- | --- | --- | --- |
 * | billing | `invoiceSeries` | no | The ERP's number series invoices are issued in, 1 to 20 characters. |
 * | billing | `bookkeepingCurrency` | no | The ERP company's accounting currency: SEK, NOK, DKK, EUR, USD or GBP. |
 * | signing | `signatureMethods` | yes | 1 to 4 of `bankid-se`, `bankid-no`, `mitid`, `email-link`, no repeats. |
 * | signing | `documentExpiryDays` | no | Days a document stays open for signature at the e-signing system, 1 to 90. |
 * | booking | `websiteUrl` | yes | The https address of the booking website, at most 2000 characters. |
 * | booking | `brandName` | no | The name the website sells under, 1 to 100 characters. |
 *
 * @since 0.1.0
 */
import { Either, ParseResult, Schema } from "effect"
import type { IntegrationKind, Settings } from "./IntegrationConfiguration.js"
import type { ConfigurationIssue } from "./IntegrationsRefusal.js"
import { pointer, Text, textProblem } from "./internal/text.js"

/**
 * Settings of a `billing` configuration.
 *
 * @since 0.1.0
 */
export const BillingSettings = Schema.Struct({
  invoiceSeries: Schema.optionalWith(Text(1, 20), { exact: true }),
  bookkeepingCurrency: Schema.optionalWith(Schema.Literal("SEK", "NOK", "DKK", "EUR", "USD", "GBP"), { exact: true })
}).annotations({ identifier: "BillingSettings" })

/**
 * The signature methods an e-signing connector can offer.
 *
 * @since 0.1.0
 */
export const SIGNATURE_METHODS = ["bankid-se", "bankid-no", "mitid", "email-link"] as const

/**
 * Settings of a `signing` configuration.
 *
 * @since 0.1.0
 */
export const SigningSettings = Schema.Struct({
  signatureMethods: Schema.Array(Schema.Literal(...SIGNATURE_METHODS)).pipe(
    Schema.minItems(1),
    Schema.maxItems(SIGNATURE_METHODS.length),
    Schema.filter((methods) => new Set(methods).size === methods.length || "must not name a method twice")
  ),
  documentExpiryDays: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, 90)), { exact: true })
}).annotations({ identifier: "SigningSettings" })

// Text first (no control characters: a URL parser would quietly drop or encode them, and PostgreSQL can't store
// U+0000 in jsonb), then an absolute https URL without credentials.
const isHttpsUrl = (value: string) => {
  if (textProblem(value, 1, 2000) !== undefined || !URL.canParse(value)) return false
  const url = new URL(value)
  return url.protocol === "https:" && url.username === "" && url.password === ""
}

/**
 * Settings of a `booking` configuration.
 *
 * @since 0.1.0
 */
export const BookingSettings = Schema.Struct({
  websiteUrl: Schema.String.pipe(
    Schema.filter((value) => isHttpsUrl(value) || "must be an absolute https URL of at most 2000 characters")
  ),
  brandName: Schema.optionalWith(Text(1, 100), { exact: true })
}).annotations({ identifier: "BookingSettings" })

/**
 * Each kind's settings schema.
 *
 * @since 0.1.0
 */
export const KIND_SETTINGS = {
  billing: BillingSettings,
  signing: SigningSettings,
  booking: BookingSettings
} as const satisfies { readonly [Kind in IntegrationKind]: Schema.Schema.Any }

const decoders: { readonly [Kind in IntegrationKind]: (input: unknown) => Either.Either<unknown, ParseResult.ParseError> } = {
  billing: Schema.decodeUnknownEither(BillingSettings, { errors: "all", onExcessProperty: "error" }),
  signing: Schema.decodeUnknownEither(SigningSettings, { errors: "all", onExcessProperty: "error" }),
  booking: Schema.decodeUnknownEither(BookingSettings, { errors: "all", onExcessProperty: "error" })
}

/**
 * Checks `settings` against `kind`'s schema: `Right` with the settings as sent, or `Left` with one issue per
 * failing member, each path under `/settings` (`/settings/signatureMethods/1`).
 *
 * @since 0.1.0
 */
export const checkSettings = (
  kind: IntegrationKind,
  settings: Settings
): Either.Either<Settings, ReadonlyArray<ConfigurationIssue>> =>
  Either.mapBoth(decoders[kind](settings), {
    onLeft: (error) => {
      // One issue per failing member (spec 7.1), the first the decoder reports for it.
      const byPath = new Map<string, string>()
      for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
        const path = `/settings${pointer(issue.path)}`
        if (!byPath.has(path)) byPath.set(path, issue.message)
      }
      return [...byPath].map(([path, message]) => ({ path, message }))
    },
    onRight: () => settings
  })
