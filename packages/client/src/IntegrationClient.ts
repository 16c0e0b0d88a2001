/**
 * A typed client for the Integration API v1, derived from `@propline/contract`'s HttpApi: every operation,
 * payload, success and problem (spec 2.3) type comes from the same definition the server implements.
 *
 * ```ts
 * const client = yield* IntegrationClient.make({ baseUrl, accessToken })
 * const queue = yield* client.billing.getVerificationQueue({ urlParams: { limit: 50 } })
 * ```
 *
 * Path parameters are put into the URL as given: pass an `externalReference` through `encodeURIComponent`
 * (`reportPaymentByExternalReference({ path: { externalReference: encodeURIComponent(ref) }, … })`) so a `/`,
 * `?`, `#` or `%` in it reaches the server as part of the reference.
 *
 * Failures are the contract's problem classes (`BadRequest`, `Unauthorized`, `Forbidden`, `NotFound`,
 * `Conflict`, ...), matched on their `code` (spec 7.3), plus transport errors from @effect/platform.
 */
import { HttpApiClient, HttpClient, HttpClientRequest } from "@effect/platform"
import { IntegrationApi } from "@propline/contract/Api.js"
import { Effect } from "effect"

/** Options: the API host's address ({base_url}) and a bearer token, or a function giving the current one. */
export interface Options {
  readonly baseUrl: string
  readonly accessToken: string | Effect.Effect<string>
}

/** Builds the client; needs an `HttpClient` (e.g. `FetchHttpClient.layer`). */
export const make = (options: Options) =>
  HttpApiClient.make(IntegrationApi, {
    baseUrl: options.baseUrl,
    transformClient: HttpClient.mapRequestEffect((request) =>
      Effect.map(
        typeof options.accessToken === "string" ? Effect.succeed(options.accessToken) : options.accessToken,
        (token) => HttpClientRequest.bearerToken(request, token)
      )
    )
  })

/** The client's type. */
export type IntegrationClient = Effect.Effect.Success<ReturnType<typeof make>>
