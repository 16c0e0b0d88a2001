/**
 * Signs the access tokens both grants issue (spec 5.1; decisions 3; RFC 9068): ES256 with `typ: at+jwt` and the
 * active kid (`SigningKeys`), claims from `AccessTokenClaims.buildClaims` (`iss` = `AppConfig.authUrl`, `aud` =
 * `AppConfig.baseUrl`, a random `jti`, `iat` now, `exp` = `iat` + 600 s).
 */
import { ACCESS_TOKEN_TTL_SECONDS, ACCESS_TOKEN_TYPE, buildClaims, type Role } from "@propline/identity/AccessTokenClaims"
import { Effect, FiberRef } from "effect"
import { randomUUID, sign as signBytes } from "node:crypto"
import { AppConfig } from "../platform/AppConfig.js"
import { identifyIn } from "../platform/RequestLog.js"
import { derToJose } from "./EcdsaSignature.js"
import { type ActiveSigningKey, SIGNING_ALGORITHM, SigningKeys } from "./SigningKeys.js"

/** A successful token response's content (spec 5.1): `token_type` is always `Bearer`. */
export interface IssuedToken {
  readonly accessToken: string
  readonly tokenType: "Bearer"
  /** Seconds: `ACCESS_TOKEN_TTL_SECONDS` (600). */
  readonly expiresIn: number
}

/** Who a token is for, once authenticated. */
export interface Grantee {
  /** The token's `sub`: an Application's id, or an installation's id. */
  readonly subject: string
  /** The token's `client_id`, and the rate limit's key: an Application's client_id, or a connector's app id. */
  readonly clientId: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<Role>
  /** Granted operational contexts (each includes its subtree). */
  readonly contexts: ReadonlyArray<string>
}

const base64url = (text: string): string => Buffer.from(text, "utf8").toString("base64url")

/** The size of each of an ES256 signature's integers r and s, in bytes (RFC 7518 3.4). */
const ES256_INTEGER_BYTES = 32

export class AccessTokenSigner extends Effect.Service<AccessTokenSigner>()("@propline/api/identity/AccessTokenSigner", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const signingKeys = yield* SigningKeys
    // The encoded protected header of each kid: the same text for every token that key signs.
    const headers = new Map<string, string>()
    const headerOf = (kid: string): string => {
      let header = headers.get(kid)
      if (header === undefined) {
        header = base64url(JSON.stringify({ alg: SIGNING_ALGORITHM, typ: ACCESS_TOKEN_TYPE, kid }))
        headers.set(kid, header)
      }
      return header
    }

    /** The token for `grantee` at `now`, signed with `key`. */
    const tokenOf = (grantee: Grantee, now: Date, key: ActiveSigningKey): IssuedToken => {
      const claims = buildClaims({
        issuer: config.authUrl,
        audience: config.baseUrl,
        clientId: grantee.clientId,
        subject: grantee.subject,
        organizationId: grantee.organizationId,
        roles: grantee.roles,
        contexts: grantee.contexts,
        jti: randomUUID(),
        now
      })
      const signingInput = `${headerOf(key.kid)}.${base64url(JSON.stringify(claims))}`
      const signature = derToJose(signBytes("sha256", Buffer.from(signingInput), key.keyObject), ES256_INTEGER_BYTES)
      const accessToken = `${signingInput}.${signature.toString("base64url")}`
      return { accessToken, tokenType: "Bearer", expiresIn: ACCESS_TOKEN_TTL_SECONDS }
    }

    return {
      /**
       * The access token for `grantee`, issued at `now`: the compact JWS (RFC 7515 3.1), the protected header
       * `{alg, typ, kid}` and the claims, each JSON in that key order and base64url, signed ES256 with `node:crypto`
       * on this thread, without WebCrypto's promise and worker hop. `sign` is handed the `KeyObject` itself (an
       * options object costs a parse per call) and gives DER, turned into JOSE's raw r || s pair (RFC 7518 3.4) by
       * `EcdsaSignature.derToJose`. Names the grantee in the request's access-log line. Never fails.
       *
       * The key is `SigningKeys`' active key at `now`. One step when the key list is fresh and spans are off
       * (`SigningKeys.cachedAt`: every token but the first after a refresh interval); else through
       * `SigningKeys.current` (its reads, its span).
       */
      sign: (grantee: Grantee, now: Date): Effect.Effect<IssuedToken> =>
        Effect.withFiberRuntime((fiber) => {
          const signed = (key: ActiveSigningKey): IssuedToken => {
            identifyIn(fiber.currentContext, grantee.organizationId, grantee.subject)
            return tokenOf(grantee, now, key)
          }
          const cached = fiber.getFiberRef(FiberRef.currentTracerEnabled) ? undefined : signingKeys.cachedAt(now.getTime())
          return cached === undefined ? Effect.map(signingKeys.current, signed) : Effect.succeed(signed(cached))
        })
    }
  }),
  dependencies: [SigningKeys.Default]
}) {}
