/**
 * Obtains access tokens from the identity host with client_credentials (spec 5.1, 5.2; RFC 6749 section 4.4),
 * authenticating with HTTP Basic (client_secret_basic, credentials form-encoded first as RFC 6749 Appendix B
 * requires). Tokens live 600 seconds; {@link cached} reuses one until 60 seconds before it expires.
 */
import { HttpClient, HttpClientRequest, HttpClientResponse } from "@effect/platform"
import { Clock, Data, Effect, Schema } from "effect"

/** Spec 5.1's success body. */
export const TokenResponse = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.String,
  expires_in: Schema.Number
})
export type TokenResponse = typeof TokenResponse.Type

/** The token endpoint refused: RFC 6749 section 5.2 `error` (spec 7.2), with `retryAfter` seconds on slow_down. */
export class TokenRequestFailed extends Data.TaggedError("TokenRequestFailed")<{
  readonly status: number
  readonly error: string
  readonly errorDescription: string | undefined
  readonly retryAfter: number | undefined
}> {}

const ErrorBody = Schema.Struct({ error: Schema.String, error_description: Schema.optional(Schema.String) })

/** RFC 6749 Appendix B: application/x-www-form-urlencoded encoding of a credential before Basic. */
const formEncode = (value: string): string => new URLSearchParams({ v: value }).toString().slice(2)

export interface Credentials {
  /** {auth_url}, e.g. `http://localhost:4000`. */
  readonly authUrl: string
  readonly clientId: string
  readonly clientSecret: string
}

/** Requests one token. */
export const requestToken = (credentials: Credentials) =>
  Effect.gen(function* () {
    const client = yield* HttpClient.HttpClient
    const basic = Buffer.from(`${formEncode(credentials.clientId)}:${formEncode(credentials.clientSecret)}`).toString(
      "base64"
    )
    const response = yield* client.execute(
      HttpClientRequest.post(`${credentials.authUrl}/oauth/token`).pipe(
        HttpClientRequest.setHeader("authorization", `Basic ${basic}`),
        HttpClientRequest.bodyUrlParams({ grant_type: "client_credentials" })
      )
    )
    if (response.status === 200) return yield* HttpClientResponse.schemaBodyJson(TokenResponse)(response)
    const body = yield* HttpClientResponse.schemaBodyJson(ErrorBody)(response).pipe(
      Effect.orElseSucceed(() => ({ error: "unexpected_response", error_description: undefined }))
    )
    const retryAfter = response.headers["retry-after"]
    return yield* new TokenRequestFailed({
      status: response.status,
      error: body.error,
      errorDescription: body.error_description,
      retryAfter: retryAfter === undefined ? undefined : Number(retryAfter)
    })
  })

/**
 * A token source: build it once, then run the returned effect before each call. It reuses a token until 60 seconds
 * before it expires (`expires_in`, seconds), asks for a new one then, lets one request at a time ask, and never
 * remembers a failure (a 429 `slow_down` is retried on the next use, not replayed).
 */
export const cached = (credentials: Credentials) =>
  Effect.gen(function* () {
    const lock = yield* Effect.makeSemaphore(1)
    let current: { readonly token: string; readonly renewAt: number } | undefined
    return lock.withPermits(1)(
      Effect.gen(function* () {
        const now = yield* Clock.currentTimeMillis
        if (current !== undefined && now < current.renewAt) return current.token
        const issued = yield* requestToken(credentials)
        current = { token: issued.access_token, renewAt: now + Math.max(0, issued.expires_in - 60) * 1000 }
        return issued.access_token
      })
    )
  })
