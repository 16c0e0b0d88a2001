import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { ClientAuthenticationMethod, InvalidClientReason, TokenError } from "../src/TokenError.js"
import {
  INVALID_CLIENT_DESCRIPTION,
  InvalidClient,
  InvalidGrant,
  InvalidRequest,
  InvalidScope,
  SlowDown,
  toOAuthErrorBody,
  UnauthorizedClient,
  UnsupportedGrantType,
  wwwAuthenticate
} from "../src/TokenError.js"

const methods: ReadonlyArray<ClientAuthenticationMethod> = [
  "client_secret_basic",
  "client_secret_post",
  "private_key_jwt",
  "none"
]
const reasons: ReadonlyArray<InvalidClientReason> = [
  "credentials_missing",
  "credentials_incomplete",
  "credentials_malformed",
  "method_unsupported",
  "credentials_rejected",
  "assertion_malformed",
  "assertion_subject_mismatch",
  "assertion_client_mismatch",
  "assertion_audience",
  "assertion_lifetime",
  "assertion_expired",
  "assertion_not_yet_valid",
  "assertion_jti",
  "assertion_signature",
  "assertion_replayed"
]

describe("token error codes and statuses (RFC 6749 5.2, spec 7.2)", () => {
  const cases: ReadonlyArray<readonly [TokenError, string, string, number]> = [
    [new InvalidRequest({ errorDescription: "x" }), "InvalidRequest", "invalid_request", 400],
    [new InvalidClient({ authenticationMethod: "none", reason: "credentials_missing" }), "InvalidClient", "invalid_client", 401],
    [new InvalidGrant(), "InvalidGrant", "invalid_grant", 400],
    [new UnauthorizedClient(), "UnauthorizedClient", "unauthorized_client", 400],
    [new UnsupportedGrantType(), "UnsupportedGrantType", "unsupported_grant_type", 400],
    [new InvalidScope(), "InvalidScope", "invalid_scope", 400],
    [new SlowDown({ retryAfterSeconds: 7 }), "SlowDown", "slow_down", 429]
  ]
  for (const [error, tag, code, status] of cases) {
    it(`${tag} is ${code} with status ${status}`, () => {
      expect(error._tag).toBe(tag)
      expect(error.error).toBe(code)
      expect(error.status).toBe(status)
      expect(error.errorDescription.length).toBeGreaterThan(0)
    })
  }

  it("SlowDown carries the seconds to wait", () => {
    expect(new SlowDown({ retryAfterSeconds: 7 }).retryAfterSeconds).toBe(7)
  })

  it("a given description replaces the default", () => {
    expect(new InvalidGrant({ errorDescription: "custom" }).errorDescription).toBe("custom")
    expect(new InvalidRequest({ errorDescription: "The grant_type parameter is missing." }).message)
      .toBe("The grant_type parameter is missing.")
  })

  it.effect("the errors fail an Effect and can be caught by tag", () =>
    Effect.gen(function*() {
      const caught = yield* Effect.fail(new InvalidScope()).pipe(
        Effect.catchTag("InvalidScope", (e) => Effect.succeed(e.error))
      )
      expect(caught).toBe("invalid_scope")
    }))
})

describe("toOAuthErrorBody", () => {
  it("is exactly { error, error_description }", () => {
    expect(toOAuthErrorBody(new InvalidRequest({ errorDescription: "The grant_type parameter is missing." })))
      .toStrictEqual({ error: "invalid_request", error_description: "The grant_type parameter is missing." })
    expect(Object.keys(toOAuthErrorBody(new SlowDown({ retryAfterSeconds: 3 })))).toStrictEqual([
      "error",
      "error_description"
    ])
  })

  it("every invalid_client body is byte-identical, whatever method and check failed (spec 7.2, decisions 3)", () => {
    const expected = JSON.stringify({ error: "invalid_client", error_description: INVALID_CLIENT_DESCRIPTION })
    for (const authenticationMethod of methods) {
      for (const reason of reasons) {
        expect(JSON.stringify(toOAuthErrorBody(new InvalidClient({ authenticationMethod, reason })))).toBe(expected)
      }
    }
  })
})

describe("wwwAuthenticate (RFC 6749 5.2, decisions 3)", () => {
  it("challenges Basic after a failed Basic authentication", () => {
    expect(wwwAuthenticate(new InvalidClient({ authenticationMethod: "client_secret_basic", reason: "credentials_rejected" }), "propline"))
      .toBe(`Basic realm="propline", error="invalid_client"`)
  })

  it("quotes the realm", () => {
    expect(wwwAuthenticate(new InvalidClient({ authenticationMethod: "client_secret_basic", reason: "credentials_rejected" }), `a"b\\c`))
      .toBe(`Basic realm="a\\"b\\\\c", error="invalid_client"`)
  })

  it("is absent for invalid_client without Basic and for every other error", () => {
    for (const authenticationMethod of methods.filter((m) => m !== "client_secret_basic")) {
      expect(wwwAuthenticate(new InvalidClient({ authenticationMethod, reason: "credentials_rejected" }), "r"))
        .toBeUndefined()
    }
    for (const error of [new InvalidRequest({ errorDescription: "x" }), new InvalidScope(), new SlowDown({ retryAfterSeconds: 1 })]) {
      expect(wwwAuthenticate(error, "r")).toBeUndefined()
    }
  })
})
