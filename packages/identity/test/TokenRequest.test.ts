import { describe, expect, it } from "@effect/vitest"
import { Either, Option, Redacted } from "effect"
import { inspect } from "node:util"
import { formatSecret } from "../src/ClientSecret.js"
import type { ClientAuthenticationMethod, InvalidClientReason } from "../src/TokenError.js"
import { toOAuthErrorBody, wwwAuthenticate } from "../src/TokenError.js"
import type { TokenRequest, TokenRequestError, TokenRequestInput } from "../src/TokenRequest.js"
import {
  CLIENT_ASSERTION_TYPE_JWT_BEARER,
  ClientCredentialsRequest,
  GRANT_TYPE_INSTALLATION_TOKEN,
  CLIENT_ID_MAX_LENGTH,
  InstallationTokenRequest,
  isWellFormedClientId,
  parseTokenRequest,
  TOKEN_REQUEST_PARAMETERS
} from "../src/TokenRequest.js"

const FORM = "application/x-www-form-urlencoded"
const SECRET = formatSecret(new Uint8Array(32).fill(7))
const OTHER_SECRET = formatSecret(new Uint8Array(32).fill(9))
const ASSERTION = "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJhcHAifQ.c2ln"

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64")
// RFC 6749 2.3.1: client id and secret are form-urlencoded, then joined by a colon and base64-encoded.
const basic = (clientId: string, clientSecret: string) =>
  `Basic ${base64(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`)}`
const encode = (params: Record<string, string>) => new URLSearchParams(params).toString()

const clientCredentials = (extra: Record<string, string> = {}) =>
  encode({ grant_type: "client_credentials", ...extra })
const installationToken = (extra: Record<string, string> = {}) =>
  encode({
    grant_type: GRANT_TYPE_INSTALLATION_TOKEN,
    client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
    client_assertion: ASSERTION,
    installation_id: "inst_1",
    ...extra
  })

const parse = (input: Partial<TokenRequestInput> & { readonly body: string }) =>
  parseTokenRequest({ contentType: FORM, authorization: undefined, ...input })

const expectRequest = (result: Either.Either<TokenRequest, TokenRequestError>): TokenRequest => {
  if (Either.isLeft(result)) throw new Error(`expected a request, got ${result.left.error}: ${result.left.errorDescription}`)
  return result.right
}

const expectRefusal = (
  result: Either.Either<TokenRequest, TokenRequestError>,
  error: TokenRequestError["error"],
  status: number
): TokenRequestError => {
  if (Either.isRight(result)) throw new Error(`expected ${error}, got ${result.right._tag}`)
  expect({ error: result.left.error, status: result.left.status }).toStrictEqual({ error, status })
  return result.left
}

const expectInvalidClient = (
  result: Either.Either<TokenRequest, TokenRequestError>,
  authenticationMethod: ClientAuthenticationMethod,
  reason: InvalidClientReason
) => {
  const refusal = expectRefusal(result, "invalid_client", 401)
  expect(refusal._tag === "InvalidClient" && [refusal.authenticationMethod, refusal.reason]).toStrictEqual([
    authenticationMethod,
    reason
  ])
}

const postCredentials = { client_id: "client_1", client_secret: SECRET }

describe("rule 1: the body is application/x-www-form-urlencoded (spec 5.1, 7.2)", () => {
  const accepted = [
    "application/x-www-form-urlencoded",
    "application/x-www-form-urlencoded; charset=UTF-8",
    "application/x-www-form-urlencoded;charset=utf-8",
    "Application/X-WWW-Form-URLEncoded; Charset=\"UTF-8\"",
    "  application/x-www-form-urlencoded  ; charset=utf-8"
  ]
  for (const contentType of accepted) {
    it(`accepts ${JSON.stringify(contentType)}`, () => {
      expectRequest(parse({ contentType, body: clientCredentials(postCredentials) }))
    })
  }

  const refused: ReadonlyArray<string | undefined> = [
    undefined,
    "",
    "application/json",
    "text/plain",
    "multipart/form-data; boundary=x",
    "application/x-www-form-urlencodedx",
    "application/x-www-form-urlencoded-json",
    "application/x-www-form; urlencoded",
    "form-urlencoded"
  ]
  for (const contentType of refused) {
    it(`refuses ${JSON.stringify(contentType)} with invalid_request 400`, () => {
      expectRefusal(parse({ contentType, body: clientCredentials(postCredentials) }), "invalid_request", 400)
    })
  }
})

describe("rule 2: no parameter is included more than once (RFC 6749 3.2, spec 7.2)", () => {
  const valid: Record<string, string> = { grant_type: "client_credentials", ...postCredentials }
  const without = (name: string) => encode(Object.fromEntries(Object.entries(valid).filter(([key]) => key !== name)))
  for (const name of TOKEN_REQUEST_PARAMETERS) {
    it(`refuses a repeated ${name} with invalid_request 400`, () => {
      const value = encodeURIComponent(valid[name] ?? "x")
      expectRefusal(parse({ body: `${without(name)}&${name}=${value}&${name}=${value}` }), "invalid_request", 400)
    })
    it(`refuses a repeated ${name} even when the copies are empty`, () => {
      expectRefusal(parse({ body: `${without(name)}&${name}=&${name}=` }), "invalid_request", 400)
    })
  }

  it("refuses the same grant_type sent twice", () => {
    const body = `grant_type=client_credentials&grant_type=client_credentials&client_id=client_1&client_secret=${SECRET}`
    expectRefusal(parse({ body }), "invalid_request", 400)
  })

  it("ignores parameters it does not read, repeated or not", () => {
    const body = `${clientCredentials(postCredentials)}&resource=https://a&resource=https://b&foo=1&foo=`
    expect(expectRequest(parse({ body }))._tag).toBe("ClientCredentialsRequest")
  })

  it("reads a leading ? as part of the first name, not as a query prefix", () => {
    expectRefusal(parse({ body: `?${clientCredentials(postCredentials)}` }), "invalid_request", 400)
  })
})

describe("empty values count as omitted (RFC 6749 3.2, decisions 3)", () => {
  it("an empty scope is no scope", () => {
    expectRequest(parse({ body: clientCredentials({ ...postCredentials, scope: "" }) }))
  })

  it("an empty grant_type is a missing grant_type: invalid_request 400", () => {
    expectRefusal(parse({ body: encode({ grant_type: "", ...postCredentials }) }), "invalid_request", 400)
  })

  it("an empty client_secret beside Basic is not a second method", () => {
    const result = parse({ body: clientCredentials({ client_secret: "" }), authorization: basic("client_1", SECRET) })
    expect(expectRequest(result)).toStrictEqual(
      new ClientCredentialsRequest({ clientId: "client_1", clientSecret: Redacted.make(SECRET), method: "client_secret_basic" })
    )
  })

  it("an empty client_assertion beside Basic is not a second method", () => {
    const body = clientCredentials({ client_assertion: "", client_assertion_type: "" })
    expectRequest(parse({ body, authorization: basic("client_1", SECRET) }))
  })

  it("empty client_id and client_secret are no credentials: invalid_client 401", () => {
    expectInvalidClient(parse({ body: clientCredentials({ client_id: "", client_secret: "" }) }), "none", "credentials_missing")
  })

  it("an empty client_secret is a missing one: invalid_client 401", () => {
    expectInvalidClient(
      parse({ body: clientCredentials({ client_id: "client_1", client_secret: "" }) }),
      "client_secret_post",
      "credentials_incomplete"
    )
  })

  for (const name of ["client_assertion_type", "client_assertion", "installation_id"]) {
    it(`an empty ${name} is a missing one: invalid_request 400`, () => {
      expectRefusal(parse({ body: installationToken({ [name]: "" }) }), "invalid_request", 400)
    })
  }
})

describe("rule 3: grant_type (spec 5.2, 5.3, 7.2)", () => {
  it("refuses a request without grant_type with invalid_request 400", () => {
    expectRefusal(parse({ body: encode(postCredentials) }), "invalid_request", 400)
  })

  it("refuses an empty body with invalid_request 400", () => {
    expectRefusal(parse({ body: "" }), "invalid_request", 400)
  })

  const unsupported = [
    "password",
    "authorization_code",
    "refresh_token",
    "implicit",
    "Client_Credentials",
    "client_credentials ",
    "urn:ietf:params:oauth:grant-type:jwt-bearer",
    "urn:ietf:params:oauth:grant-type:token-exchange",
    "urn:service:params:oauth:grant-type:installation-token:v2"
  ]
  for (const grantType of unsupported) {
    it(`refuses grant_type ${JSON.stringify(grantType)} with unsupported_grant_type 400`, () => {
      expectRefusal(parse({ body: encode({ grant_type: grantType, ...postCredentials }) }), "unsupported_grant_type", 400)
    })
  }

  it("accepts both supported grant types", () => {
    expect(expectRequest(parse({ body: clientCredentials(postCredentials) }))._tag).toBe("ClientCredentialsRequest")
    expect(expectRequest(parse({ body: installationToken() }))._tag).toBe("InstallationTokenRequest")
  })
})

describe("rule 4: no scope (spec 5.2, 7.2; decisions 3)", () => {
  for (const scope of ["billing", "openid", " ", "billing signing"]) {
    it(`refuses scope ${JSON.stringify(scope)} with invalid_scope 400 on client_credentials`, () => {
      expectRefusal(parse({ body: clientCredentials({ ...postCredentials, scope }) }), "invalid_scope", 400)
    })
  }

  it("refuses a scope on the installation-token grant with invalid_scope 400", () => {
    expectRefusal(parse({ body: installationToken({ scope: "integrations" }) }), "invalid_scope", 400)
  })
})

describe("client_credentials, method A: HTTP Basic (spec 5.2; RFC 6749 2.3.1)", () => {
  it("reads client_id and secret from the Authorization header", () => {
    const result = parse({ body: clientCredentials(), authorization: basic("client_1", SECRET) })
    const request = expectRequest(result)
    expect(request).toStrictEqual(
      new ClientCredentialsRequest({ clientId: "client_1", clientSecret: Redacted.make(SECRET), method: "client_secret_basic" })
    )
    if (request._tag !== "ClientCredentialsRequest") throw new Error("unreachable")
    expect(Redacted.value(request.clientSecret)).toBe(SECRET)
  })

  // Each raw client id is what the client puts before base64: already form-urlencoded (RFC 6749 Appendix B).
  const decoding: ReadonlyArray<readonly [string, string, string]> = [
    ["%5F becomes _", "my%5Fclient", "my_client"],
    ["+ becomes a space", "my+client", "my client"],
    ["%3A becomes a colon", "tenant%3Aclient", "tenant:client"],
    ["%2B becomes +", "a%2Bb", "a+b"],
    ["%25 becomes %", "100%25", "100%"],
    ["lower-case escapes work", "my%5fclient", "my_client"],
    ["%7E becomes ~", "a%7Eb", "a~b"],
    ["a % not followed by two hex digits stays", "50%off", "50%off"],
    ["plain text stays", "client_1", "client_1"]
  ]
  for (const [name, raw, clientId] of decoding) {
    it(`decodes the client id after base64: ${name}`, () => {
      const result = parse({ body: clientCredentials(), authorization: `Basic ${base64(`${raw}:${SECRET}`)}` })
      const request = expectRequest(result)
      expect(request._tag === "ClientCredentialsRequest" && request.clientId).toBe(clientId)
    })
  }

  it("decodes the secret after base64: service%5Fsk%5F… is service_sk_…", () => {
    const encodedSecret = SECRET.replaceAll("_", "%5F")
    const result = parse({ body: clientCredentials(), authorization: `Basic ${base64(`client_1:${encodedSecret}`)}` })
    const request = expectRequest(result)
    expect(request._tag === "ClientCredentialsRequest" && Redacted.value(request.clientSecret)).toBe(SECRET)
  })

  it("splits at the first colon: an encoded colon belongs to the client id", () => {
    const result = parse({ body: clientCredentials(), authorization: basic("a:b", SECRET) })
    const request = expectRequest(result)
    expect(request._tag === "ClientCredentialsRequest" && request.clientId).toBe("a:b")
  })

  const headers: ReadonlyArray<readonly [string, string]> = [
    ["lower-case scheme", `basic ${base64(`client_1:${SECRET}`)}`],
    ["upper-case scheme", `BASIC ${base64(`client_1:${SECRET}`)}`],
    ["several spaces", `Basic    ${base64(`client_1:${SECRET}`)}`],
    ["surrounding whitespace", `  Basic ${base64(`client_1:${SECRET}`)}  `]
  ]
  for (const [name, authorization] of headers) {
    it(`accepts ${name}`, () => {
      expectRequest(parse({ body: clientCredentials(), authorization }))
    })
  }

  it("accepts base64 without padding", () => {
    const token = base64(`client_12:${SECRET}`)
    expect(token.endsWith("==")).toBe(true)
    expect(expectRequest(parse({ body: clientCredentials(), authorization: `Basic ${token.replace(/=+$/, "")}` })))
      .toMatchObject({ clientId: "client_12" })
  })

  const malformed: ReadonlyArray<readonly [string, string]> = [
    ["the bare scheme", "Basic"],
    ["the scheme and a space", "Basic "],
    ["characters outside base64", "Basic !!!!"],
    ["base64url characters", `Basic ${base64(`client_1:${SECRET}`).replaceAll("+", "-").replaceAll("/", "_")}-_`],
    ["a space inside the token", `Basic ${base64(`client_1:${SECRET}`).slice(0, 8)} ${base64(`client_1:${SECRET}`).slice(8)}`],
    ["a broken padding", "Basic QQ="],
    ["padding in the middle", "Basic QQ==QQ=="],
    ["a length of 4n+1", "Basic QUJDR"],
    ["no colon", `Basic ${base64(`client_1${SECRET}`)}`],
    ["bytes that are not UTF-8", `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0x61]).toString("base64")}`],
    ["an escape that is not UTF-8", `Basic ${base64(`%FF:${SECRET}`)}`]
  ]
  for (const [name, authorization] of malformed) {
    it(`refuses ${name} with invalid_client 401 after Basic`, () => {
      const result = parse({ body: clientCredentials(), authorization })
      expectInvalidClient(result, "client_secret_basic", "credentials_malformed")
      if (Either.isLeft(result)) {
        expect(wwwAuthenticate(result.left, "propline")).toBe(`Basic realm="propline", error="invalid_client"`)
      }
    })
  }

  it("refuses an empty client id with invalid_client 401 after Basic", () => {
    expectInvalidClient(
      parse({ body: clientCredentials(), authorization: `Basic ${base64(`:${SECRET}`)}` }),
      "client_secret_basic",
      "credentials_incomplete"
    )
  })

  it("refuses an empty secret with invalid_client 401 after Basic", () => {
    expectInvalidClient(
      parse({ body: clientCredentials(), authorization: `Basic ${base64("client_1:")}` }),
      "client_secret_basic",
      "credentials_incomplete"
    )
  })

  const badSecrets = ["hunter2", SECRET.slice(0, -1), `${SECRET}0`, SECRET.replace("service_sk_", "service_pk_")]
  for (const secret of badSecrets) {
    it(`refuses the malformed secret ${JSON.stringify(secret.slice(0, 16))}… with invalid_client 401 after Basic`, () => {
      expectInvalidClient(
        parse({ body: clientCredentials(), authorization: basic("client_1", secret) }),
        "client_secret_basic",
        "credentials_malformed"
      )
    })
  }

  it("accepts a client_id form field naming the same client", () => {
    const result = parse({ body: clientCredentials({ client_id: "client_1" }), authorization: basic("client_1", SECRET) })
    expect(expectRequest(result)).toMatchObject({ clientId: "client_1", method: "client_secret_basic" })
  })

  it("refuses a client_id form field naming another client with invalid_request 400", () => {
    const result = parse({ body: clientCredentials({ client_id: "client_2" }), authorization: basic("client_1", SECRET) })
    expectRefusal(result, "invalid_request", 400)
  })
})

describe("client_credentials, method B: form fields (spec 5.2; RFC 6749 2.3.1)", () => {
  it("reads client_id and client_secret from the body", () => {
    const request = expectRequest(parse({ body: clientCredentials(postCredentials) }))
    expect(request).toStrictEqual(
      new ClientCredentialsRequest({ clientId: "client_1", clientSecret: Redacted.make(SECRET), method: "client_secret_post" })
    )
  })

  it("form-decodes the fields", () => {
    const body = `grant_type=client_credentials&client_id=my%5Fclient+1&client_secret=${SECRET.replaceAll("_", "%5F")}`
    expect(expectRequest(parse({ body }))).toStrictEqual(
      new ClientCredentialsRequest({ clientId: "my_client 1", clientSecret: Redacted.make(SECRET), method: "client_secret_post" })
    )
  })

  it("refuses a request without credentials with invalid_client 401 and no Basic challenge", () => {
    const result = parse({ body: clientCredentials() })
    expectInvalidClient(result, "none", "credentials_missing")
    if (Either.isLeft(result)) expect(wwwAuthenticate(result.left, "propline")).toBeUndefined()
  })

  it("refuses client_id without client_secret with invalid_client 401", () => {
    expectInvalidClient(parse({ body: clientCredentials({ client_id: "client_1" }) }), "client_secret_post", "credentials_incomplete")
  })

  it("refuses client_secret without client_id with invalid_client 401", () => {
    expectInvalidClient(parse({ body: clientCredentials({ client_secret: SECRET }) }), "client_secret_post", "credentials_incomplete")
  })

  it("refuses a malformed secret with invalid_client 401, without a database lookup", () => {
    expectInvalidClient(
      parse({ body: clientCredentials({ client_id: "client_1", client_secret: "hunter2" }) }),
      "client_secret_post",
      "credentials_malformed"
    )
  })

  for (const authorization of [`Bearer ${SECRET}`, "Digest username=\"client_1\"", "", "   ", "Basicx abc", "Token abc"]) {
    it(`treats Authorization ${JSON.stringify(authorization)} as no Basic credentials`, () => {
      expect(expectRequest(parse({ body: clientCredentials(postCredentials), authorization })))
        .toMatchObject({ method: "client_secret_post" })
      expectInvalidClient(parse({ body: clientCredentials(), authorization }), "none", "credentials_missing")
    })
  }

  it("keeps the secret out of logs", () => {
    const request = expectRequest(parse({ body: clientCredentials(postCredentials) }))
    expect(JSON.stringify(request)).not.toContain(SECRET)
    expect(inspect(request, { depth: 5 })).not.toContain(SECRET)
  })
})

describe("client_credentials: one authentication method only (spec 5.2, 7.2)", () => {
  const both: ReadonlyArray<readonly [string, Record<string, string>, string | undefined]> = [
    ["Basic and client_secret", { client_secret: SECRET }, basic("client_1", SECRET)],
    ["Basic and client_id with client_secret", postCredentials, basic("client_1", SECRET)],
    ["Basic and a different client's form credentials", { client_id: "client_2", client_secret: OTHER_SECRET }, basic("client_1", SECRET)],
    ["a malformed Basic header and client_secret", postCredentials, "Basic !!!!"],
    ["a bare Basic scheme and client_secret", postCredentials, "Basic"],
    ["Basic and client_assertion", { client_assertion: ASSERTION }, basic("client_1", SECRET)],
    ["client_secret and client_assertion", { ...postCredentials, client_assertion: ASSERTION }, undefined]
  ]
  for (const [name, fields, authorization] of both) {
    it(`refuses ${name} with invalid_request 400`, () => {
      expectRefusal(parse({ body: clientCredentials(fields), authorization }), "invalid_request", 400)
    })
  }

  it("refuses a client assertion alone with invalid_client 401: assertions serve the installation-token grant", () => {
    const body = clientCredentials({ client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER, client_assertion: ASSERTION })
    expectInvalidClient(parse({ body }), "private_key_jwt", "method_unsupported")
  })
})

describe("installation-token grant (spec 5.3)", () => {
  it("reads the assertion and the installation", () => {
    expect(expectRequest(parse({ body: installationToken() }))).toStrictEqual(
      new InstallationTokenRequest({ clientAssertion: ASSERTION, installationId: "inst_1", clientId: Option.none() })
    )
  })

  it("carries a client_id form field for the assertion check", () => {
    expect(expectRequest(parse({ body: installationToken({ client_id: "app_1" }) }))).toStrictEqual(
      new InstallationTokenRequest({ clientAssertion: ASSERTION, installationId: "inst_1", clientId: Option.some("app_1") })
    )
  })

  it("ignores an Authorization header of another scheme", () => {
    expectRequest(parse({ body: installationToken(), authorization: "Bearer abc" }))
  })

  const refused: ReadonlyArray<readonly [string, string, string | undefined]> = [
    ["client_assertion_type missing", encode({ grant_type: GRANT_TYPE_INSTALLATION_TOKEN, client_assertion: ASSERTION, installation_id: "inst_1" }), undefined],
    ["client_assertion_type other than jwt-bearer", installationToken({ client_assertion_type: "urn:ietf:params:oauth:client-assertion-type:saml2-bearer" }), undefined],
    ["client_assertion_type in other case", installationToken({ client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER.toUpperCase() }), undefined],
    ["client_assertion missing", encode({ grant_type: GRANT_TYPE_INSTALLATION_TOKEN, client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER, installation_id: "inst_1" }), undefined],
    ["installation_id missing", encode({ grant_type: GRANT_TYPE_INSTALLATION_TOKEN, client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER, client_assertion: ASSERTION }), undefined],
    ["a client_secret field", installationToken({ client_secret: SECRET }), undefined],
    ["HTTP Basic credentials", installationToken(), basic("client_1", SECRET)],
    ["a malformed Basic header", installationToken(), "Basic !!!!"]
  ]
  for (const [name, body, authorization] of refused) {
    it(`refuses ${name} with invalid_request 400`, () => {
      expectRefusal(parse({ body, authorization }), "invalid_request", 400)
    })
  }
})

describe("client_id is 1 to 255 characters of RFC 6749 VSCHAR (Appendix A.1), checked before any lookup", () => {
  const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join("")
  const wellFormed: ReadonlyArray<readonly [string, string]> = [
    ["one character", "a"],
    ["every printable ASCII character and the space", printable],
    [`${CLIENT_ID_MAX_LENGTH} characters`, "a".repeat(CLIENT_ID_MAX_LENGTH)],
    ["an issued id", "app_01jd8x2k5q7r9t3v6w8y0z2b4c"]
  ]
  const malformed: ReadonlyArray<readonly [string, string]> = [
    ["a NUL", "\u0000abc"],
    ["a NUL in the middle", "a\u0000b"],
    ["a line feed", "client\n1"],
    ["a carriage return", "client\r1"],
    ["a tab", "client\t1"],
    ["U+001F", "client\u001f"],
    ["DEL", "client\u007f"],
    ["U+0080", "client\u0080"],
    ["U+0085 (next line)", "client\u0085"],
    ["a non-ASCII letter", "café"],
    ["an emoji", "client😀"],
    ["U+2028 (line separator)", "client\u2028"],
    [`${CLIENT_ID_MAX_LENGTH + 1} characters`, "a".repeat(CLIENT_ID_MAX_LENGTH + 1)],
    ["4096 characters", "a".repeat(4096)]
  ]

  it("isWellFormedClientId accepts VSCHAR ids of 1 to 255 characters and nothing else", () => {
    for (const [name, clientId] of wellFormed) expect(isWellFormedClientId(clientId), name).toBe(true)
    for (const [name, clientId] of malformed) expect(isWellFormedClientId(clientId), name).toBe(false)
    expect(isWellFormedClientId("")).toBe(false)
  })

  for (const [name, clientId] of wellFormed) {
    it(`accepts ${name}, by Basic and by form`, () => {
      expect(expectRequest(parse({ body: clientCredentials(), authorization: basic(clientId, SECRET) })))
        .toMatchObject({ clientId, method: "client_secret_basic" })
      expect(expectRequest(parse({ body: clientCredentials({ client_id: clientId, client_secret: SECRET }) })))
        .toMatchObject({ clientId, method: "client_secret_post" })
    })
  }

  for (const [name, clientId] of malformed) {
    it(`refuses ${name} with invalid_client 401 after Basic, with the Basic challenge`, () => {
      const result = parse({ body: clientCredentials(), authorization: basic(clientId, SECRET) })
      expectInvalidClient(result, "client_secret_basic", "credentials_malformed")
      if (Either.isLeft(result)) {
        expect(wwwAuthenticate(result.left, "propline")).toBe(`Basic realm="propline", error="invalid_client"`)
      }
    })

    it(`refuses ${name} with invalid_client 401 in the form, without a challenge`, () => {
      const result = parse({ body: clientCredentials({ client_id: clientId, client_secret: SECRET }) })
      expectInvalidClient(result, "client_secret_post", "credentials_malformed")
      if (Either.isLeft(result)) expect(wwwAuthenticate(result.left, "propline")).toBeUndefined()
    })
  }

  it("reads the id after decoding: a percent-encoded NUL is a NUL, in Basic and in the form", () => {
    expectInvalidClient(
      parse({ body: clientCredentials(), authorization: `Basic ${base64(`a%00b:${SECRET}`)}` }),
      "client_secret_basic",
      "credentials_malformed"
    )
    expectInvalidClient(
      parse({ body: `grant_type=client_credentials&client_id=%00abc&client_secret=${SECRET}` }),
      "client_secret_post",
      "credentials_malformed"
    )
    // A raw NUL byte in the Basic user-id, not percent-encoded.
    expectInvalidClient(
      parse({ body: clientCredentials(), authorization: `Basic ${base64(`a\u0000b:${SECRET}`)}` }),
      "client_secret_basic",
      "credentials_malformed"
    )
    // UTF-8 escapes decode to their character, which is not VSCHAR.
    expectInvalidClient(
      parse({ body: clientCredentials(), authorization: `Basic ${base64(`caf%C3%A9:${SECRET}`)}` }),
      "client_secret_basic",
      "credentials_malformed"
    )
  })

  it("refuses a malformed id beside Basic naming the same client as invalid_client after Basic", () => {
    const result = parse({ body: clientCredentials({ client_id: "a\u0000b" }), authorization: basic("a\u0000b", SECRET) })
    expectInvalidClient(result, "client_secret_basic", "credentials_malformed")
  })

  it("refuses a malformed client_id on the installation-token grant with invalid_client 401", () => {
    for (const [name, clientId] of malformed) {
      const result = parse({ body: installationToken({ client_id: clientId }) })
      expectInvalidClient(result, "private_key_jwt", "credentials_malformed")
      if (Either.isLeft(result)) expect(wwwAuthenticate(result.left, "propline"), name).toBeUndefined()
    }
  })
})

describe("the rules apply in their documented order", () => {
  const cases: ReadonlyArray<readonly [string, TokenRequestInput, TokenRequestError["error"]]> = [
    [
      "content type before grant type",
      { contentType: "application/json", body: encode({ grant_type: "password" }), authorization: undefined },
      "invalid_request"
    ],
    [
      "content type before scope",
      { contentType: "application/json", body: clientCredentials({ scope: "x" }), authorization: undefined },
      "invalid_request"
    ],
    [
      "content type before credentials",
      { contentType: "text/plain", body: clientCredentials(), authorization: undefined },
      "invalid_request"
    ],
    [
      "repeats before grant type",
      { contentType: FORM, body: "grant_type=password&scope=a&scope=b", authorization: undefined },
      "invalid_request"
    ],
    [
      "repeats before credentials",
      { contentType: FORM, body: "grant_type=client_credentials&client_id=a&client_id=b", authorization: undefined },
      "invalid_request"
    ],
    [
      "grant type before scope",
      { contentType: FORM, body: encode({ grant_type: "password", scope: "x" }), authorization: undefined },
      "unsupported_grant_type"
    ],
    [
      "missing grant type before scope",
      { contentType: FORM, body: encode({ scope: "x" }), authorization: undefined },
      "invalid_request"
    ],
    [
      "grant type before credentials",
      { contentType: FORM, body: encode({ grant_type: "password" }), authorization: "Basic !!!!" },
      "unsupported_grant_type"
    ],
    [
      "scope before missing credentials",
      { contentType: FORM, body: clientCredentials({ scope: "x" }), authorization: undefined },
      "invalid_scope"
    ],
    [
      "scope before a malformed Basic header",
      { contentType: FORM, body: clientCredentials({ scope: "x" }), authorization: "Basic !!!!" },
      "invalid_scope"
    ],
    [
      "scope before both methods",
      { contentType: FORM, body: clientCredentials({ scope: "x", client_secret: SECRET }), authorization: basic("c", SECRET) },
      "invalid_scope"
    ],
    [
      "both methods before a malformed Basic header",
      { contentType: FORM, body: clientCredentials(postCredentials), authorization: "Basic !!!!" },
      "invalid_request"
    ],
    [
      "both methods before a malformed secret",
      { contentType: FORM, body: clientCredentials({ client_secret: "bad" }), authorization: basic("c", "bad") },
      "invalid_request"
    ],
    [
      "both methods before a malformed client id",
      { contentType: FORM, body: clientCredentials({ client_id: "a\u0000", client_secret: SECRET }), authorization: basic("a\u0000", SECRET) },
      "invalid_request"
    ],
    [
      "a form client_id naming another client than Basic before a malformed client id",
      { contentType: FORM, body: clientCredentials({ client_id: "client_1" }), authorization: basic("a\u0000", SECRET) },
      "invalid_request"
    ],
    [
      "scope before a malformed client id",
      { contentType: FORM, body: clientCredentials({ scope: "x", client_id: "a\u0000", client_secret: SECRET }), authorization: undefined },
      "invalid_scope"
    ],
    [
      "a missing installation_id before a malformed client id",
      {
        contentType: FORM,
        body: encode({
          grant_type: GRANT_TYPE_INSTALLATION_TOKEN,
          client_assertion_type: CLIENT_ASSERTION_TYPE_JWT_BEARER,
          client_assertion: ASSERTION,
          client_id: "a\u0000"
        }),
        authorization: undefined
      },
      "invalid_request"
    ]
  ]
  for (const [name, input, error] of cases) {
    it(`${name}: ${error}`, () => {
      const result = parseTokenRequest(input)
      expect(Either.isLeft(result) && result.left.error).toBe(error)
    })
  }
})

describe("invalid_client answers are indistinguishable (spec 7.2, decisions 3)", () => {
  it("every invalid_client from parsing has the same body", () => {
    const inputs: ReadonlyArray<Partial<TokenRequestInput> & { readonly body: string }> = [
      { body: clientCredentials() },
      { body: clientCredentials({ client_id: "client_1" }) },
      { body: clientCredentials({ client_id: "client_1", client_secret: "hunter2" }) },
      { body: clientCredentials(), authorization: "Basic !!!!" },
      { body: clientCredentials(), authorization: basic("client_1", "hunter2") },
      { body: clientCredentials(), authorization: `Basic ${base64("client_1:")}` },
      { body: clientCredentials({ client_assertion: ASSERTION }) },
      { body: clientCredentials({ client_id: "\u0000abc", client_secret: SECRET }) },
      { body: clientCredentials(), authorization: basic("a\u0000b", SECRET) },
      { body: clientCredentials({ client_id: "a".repeat(256), client_secret: SECRET }) },
      { body: installationToken({ client_id: "a\u0000b" }) }
    ]
    const bodies = new Set(
      inputs.map((input) => {
        const refusal = expectRefusal(parse(input), "invalid_client", 401)
        return JSON.stringify(toOAuthErrorBody(refusal))
      })
    )
    expect(bodies.size).toBe(1)
  })
})
