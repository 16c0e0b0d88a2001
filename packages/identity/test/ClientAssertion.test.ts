import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { AssertionClaimsOptions } from "../src/ClientAssertion.js"
import {
  ASSERTION_LEEWAY_SECONDS,
  ASSERTION_MAX_LIFETIME_SECONDS,
  judgeAssertionClaims,
  judgeAssertionHeader
} from "../src/ClientAssertion.js"
import { INVALID_CLIENT_DESCRIPTION, toOAuthErrorBody } from "../src/TokenError.js"

const ISSUER = "https://auth.propline.test"
const TOKEN_ENDPOINT = `${ISSUER}/oauth/token`
const NOW = new Date("2025-03-01T10:00:00.000Z")
const T = NOW.getTime() / 1000

const valid = { iss: "app_1", sub: "app_1", aud: TOKEN_ENDPOINT, iat: T, exp: T + 300, jti: "jti_1" }
const options: AssertionClaimsOptions = { tokenEndpoint: TOKEN_ENDPOINT, issuer: ISSUER, now: NOW }
const seconds = (offset: number) => new Date((T + offset) * 1000)

const judge = (claims: unknown, overrides: Partial<AssertionClaimsOptions> = {}) =>
  judgeAssertionClaims(claims, { ...options, ...overrides })
const reasonOf = (claims: unknown, overrides: Partial<AssertionClaimsOptions> = {}) => {
  const result = judge(claims, overrides)
  return Either.isLeft(result) ? result.left.reason : "accepted"
}

describe("assertion limits (spec 5.3, 8; decisions 3)", () => {
  it("allow 300 s of life and 30 s of clock leeway", () => {
    expect(ASSERTION_MAX_LIFETIME_SECONDS).toBe(300)
    expect(ASSERTION_LEEWAY_SECONDS).toBe(30)
  })
})

describe("judgeAssertionClaims: accepted assertions", () => {
  it("yields the app id, the jti to consume and exp", () => {
    expect(judge(valid)).toStrictEqual(Either.right({ appId: "app_1", jti: "jti_1", exp: T + 300 }))
  })

  const accepted: ReadonlyArray<readonly [string, unknown, Partial<AssertionClaimsOptions>]> = [
    ["aud as the issuer identifier", { ...valid, aud: ISSUER }, {}],
    ["aud as a one-element array with the token endpoint", { ...valid, aud: [TOKEN_ENDPOINT] }, {}],
    ["aud as a one-element array with the issuer", { ...valid, aud: [ISSUER] }, {}],
    ["a lifetime of 1 s", { ...valid, exp: T + 1 }, {}],
    ["iat 30 s ahead", { ...valid, iat: T + 30, exp: T + 60 }, {}],
    ["29.999 s after exp", valid, { now: new Date((T + 330) * 1000 - 1) }],
    ["nbf now", { ...valid, nbf: T }, {}],
    ["nbf 30 s ahead", { ...valid, nbf: T + 30 }, {}],
    ["the app id matching iss", valid, { appId: "app_1" }],
    ["the client_id form field matching iss", valid, { clientId: "app_1" }],
    ["extra claims", { ...valid, kid: "k1", foo: [1] }, {}],
    ["fractional NumericDates", { ...valid, iat: T + 0.5, exp: T + 300.5 }, {}],
    ["a jti of 255 characters", { ...valid, jti: "j".repeat(255) }, {}]
  ]
  for (const [name, claims, overrides] of accepted) {
    it(`accepts ${name}`, () => {
      expect(reasonOf(claims, overrides)).toBe("accepted")
    })
  }
})

describe("judgeAssertionClaims: refused assertions are invalid_client 401 (spec 7.2)", () => {
  const refused: ReadonlyArray<readonly [string, unknown, Partial<AssertionClaimsOptions>, string]> = [
    ["null", null, {}, "assertion_malformed"],
    ["a string", "eyJ...", {}, "assertion_malformed"],
    ["an array", [valid], {}, "assertion_malformed"],
    ["iss missing", { ...valid, iss: undefined }, {}, "assertion_malformed"],
    ["iss empty", { ...valid, iss: "", sub: "" }, {}, "assertion_malformed"],
    ["iss a number", { ...valid, iss: 1, sub: 1 }, {}, "assertion_malformed"],
    ["sub missing", { ...valid, sub: undefined }, {}, "assertion_malformed"],
    ["sub other than iss", { ...valid, sub: "app_2" }, {}, "assertion_subject_mismatch"],
    ["iss other than the app whose key verified", valid, { appId: "app_2" }, "assertion_client_mismatch"],
    ["iss other than the client_id form field", valid, { clientId: "app_2" }, "assertion_client_mismatch"],
    ["aud missing", { ...valid, aud: undefined }, {}, "assertion_audience"],
    ["aud another host", { ...valid, aud: "https://evil.test/oauth/token" }, {}, "assertion_audience"],
    ["aud with a trailing slash", { ...valid, aud: `${TOKEN_ENDPOINT}/` }, {}, "assertion_audience"],
    ["aud the API host", { ...valid, aud: "https://api.propline.test" }, {}, "assertion_audience"],
    ["aud an empty array", { ...valid, aud: [] }, {}, "assertion_audience"],
    ["aud a two-element array", { ...valid, aud: [TOKEN_ENDPOINT, ISSUER] }, {}, "assertion_audience"],
    ["exp missing", { ...valid, exp: undefined }, {}, "assertion_malformed"],
    ["exp a string", { ...valid, exp: String(T + 300) }, {}, "assertion_malformed"],
    ["iat missing", { ...valid, iat: undefined }, {}, "assertion_malformed"],
    ["iat not finite", { ...valid, iat: Number.NaN }, {}, "assertion_malformed"],
    ["exp 301 s after iat", { ...valid, exp: T + 301 }, {}, "assertion_lifetime"],
    ["exp 300.001 s after iat", { ...valid, exp: T + 300.001 }, {}, "assertion_lifetime"],
    ["exp equal to iat", { ...valid, exp: T }, {}, "assertion_lifetime"],
    ["exp before iat", { ...valid, iat: T + 10, exp: T + 5 }, {}, "assertion_lifetime"],
    ["now at exp + 30 s", valid, { now: seconds(330) }, "assertion_expired"],
    ["now at exp without leeway", valid, { now: seconds(300), leewaySeconds: 0 }, "assertion_expired"],
    ["iat 31 s ahead", { ...valid, iat: T + 31, exp: T + 60 }, {}, "assertion_not_yet_valid"],
    ["iat 1 s ahead without leeway", { ...valid, iat: T + 1, exp: T + 60 }, { leewaySeconds: 0 }, "assertion_not_yet_valid"],
    ["nbf 31 s ahead", { ...valid, nbf: T + 31 }, {}, "assertion_not_yet_valid"],
    ["nbf a string", { ...valid, nbf: "soon" }, {}, "assertion_malformed"],
    ["jti missing", { ...valid, jti: undefined }, {}, "assertion_jti"],
    ["jti empty", { ...valid, jti: "" }, {}, "assertion_jti"],
    ["jti a number", { ...valid, jti: 7 }, {}, "assertion_jti"],
    ["jti of 256 characters", { ...valid, jti: "j".repeat(256) }, {}, "assertion_jti"],
    ["jti with a NUL", { ...valid, jti: "a\u0000b" }, {}, "assertion_jti"],
    ["jti with a C1 control", { ...valid, jti: "a\u009Bb" }, {}, "assertion_jti"],
    ["iss an object", { ...valid, iss: { id: "app_1" }, sub: { id: "app_1" } }, {}, "assertion_malformed"],
    ["aud a number", { ...valid, aud: 1 }, {}, "assertion_audience"],
    ["aud an object", { ...valid, aud: { aud: TOKEN_ENDPOINT } }, {}, "assertion_audience"],
    ["exp a boolean", { ...valid, exp: true }, {}, "assertion_malformed"],
    ["sub other than iss and aud wrong: subject first", { ...valid, sub: "x", aud: "x" }, {}, "assertion_subject_mismatch"],
    ["aud wrong and expired: audience first", { ...valid, aud: "x" }, { now: seconds(400) }, "assertion_audience"],
    ["too long and expired: lifetime first", { ...valid, exp: T + 400 }, { now: seconds(500) }, "assertion_lifetime"]
  ]
  for (const [name, claims, overrides, reason] of refused) {
    it(`refuses ${name} (${reason})`, () => {
      const result = judge(claims, overrides)
      if (Either.isRight(result)) throw new Error("expected a refusal")
      expect([result.left.error, result.left.status, result.left.authenticationMethod, result.left.reason]).toStrictEqual([
        "invalid_client",
        401,
        "private_key_jwt",
        reason
      ])
      expect(toOAuthErrorBody(result.left)).toStrictEqual({
        error: "invalid_client",
        error_description: INVALID_CLIENT_DESCRIPTION
      })
    })
  }
})

describe("judgeAssertionHeader (decisions 3; RFC 7515 4.1)", () => {
  const header = { alg: "ES256", kid: "key-1", typ: "JWT" }

  it("accepts ES256 with a kid and yields the kid; typ and other harmless members are allowed", () => {
    expect(judgeAssertionHeader(header)).toStrictEqual(Either.right({ kid: "key-1" }))
    expect(judgeAssertionHeader({ alg: "ES256", kid: "k" })).toStrictEqual(Either.right({ kid: "k" }))
    expect(judgeAssertionHeader({ ...header, x5t: "abc", cty: "x" })).toStrictEqual(Either.right({ kid: "key-1" }))
    expect(judgeAssertionHeader({ ...header, kid: "k".repeat(200) })).toStrictEqual(Either.right({ kid: "k".repeat(200) }))
  })

  const refused: ReadonlyArray<readonly [string, unknown]> = [
    ["not an object", "ES256"],
    ["an array", [header]],
    ["null", null],
    ["alg none", { ...header, alg: "none" }],
    ["alg HS256", { ...header, alg: "HS256" }],
    ["alg RS256", { ...header, alg: "RS256" }],
    ["alg ES384", { ...header, alg: "ES384" }],
    ["alg es256 (case matters)", { ...header, alg: "es256" }],
    ["alg missing", { kid: "key-1" }],
    ["kid missing", { alg: "ES256" }],
    ["kid empty", { ...header, kid: "" }],
    ["kid a number", { ...header, kid: 1 }],
    ["kid of 201 characters", { ...header, kid: "k".repeat(201) }],
    ["kid with a NUL", { ...header, kid: "k\u0000" }],
    ["kid with a space", { ...header, kid: "key 1" }],
    ["kid not ASCII", { ...header, kid: "nyckel-å" }],
    ["an embedded jwk", { ...header, jwk: { kty: "EC" } }],
    ["a jku", { ...header, jku: "https://evil.test/jwks.json" }],
    ["an x5u", { ...header, x5u: "https://evil.test/cert.pem" }],
    ["an x5c", { ...header, x5c: ["MIIB"] }],
    ["a crit header", { ...header, crit: ["exp"], exp: 1 }],
    ["an empty crit", { ...header, crit: [] }],
    ["b64", { ...header, b64: false }]
  ]
  for (const [name, value] of refused) {
    it(`refuses ${name} (invalid_client, assertion_header)`, () => {
      const result = judgeAssertionHeader(value)
      if (Either.isRight(result)) throw new Error("expected a refusal")
      expect([result.left.error, result.left.authenticationMethod, result.left.reason]).toStrictEqual([
        "invalid_client",
        "private_key_jwt",
        "assertion_header"
      ])
    })
  }
})
