import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import type { AccessTokenRejected } from "../src/AccessTokenClaims.js"
import {
  ACCESS_TOKEN_TTL_SECONDS,
  ACCESS_TOKEN_TYPE,
  AccessTokenClaims,
  buildClaims,
  judgeClaims
} from "../src/AccessTokenClaims.js"

const ISSUER = "https://auth.propline.test"
const AUDIENCE = "https://api.propline.test"
const NOW = new Date("2025-03-01T10:00:00.750Z")
const IAT = Math.floor(NOW.getTime() / 1000)
const ORG = "0b6c3f4e-8d2a-4c1b-9e7f-5a4d3c2b1a09"
const ROOT = "5f0e2d9c-1b3a-4f6e-8d7c-0a1b2c3d4e5f"
const BUILDING = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d"

const claims = buildClaims({
  issuer: ISSUER,
  audience: AUDIENCE,
  clientId: "client_1",
  subject: "client_1",
  organizationId: ORG,
  roles: ["billing", "signing"],
  contexts: [ROOT, BUILDING],
  jti: "tok_1",
  now: NOW
})

const options = { issuer: ISSUER, audience: AUDIENCE, now: NOW }

const reasonOf = (result: Either.Either<AccessTokenClaims, AccessTokenRejected>) =>
  Either.isLeft(result) ? result.left.reason : "accepted"

describe("buildClaims (RFC 9068 2.2, spec 5.1, decisions 3)", () => {
  it("lives 600 seconds and is an at+jwt", () => {
    expect(ACCESS_TOKEN_TTL_SECONDS).toBe(600)
    expect(ACCESS_TOKEN_TYPE).toBe("at+jwt")
  })

  it("writes every claim, iat in whole seconds rounded down and exp 600 s later", () => {
    expect(claims).toStrictEqual({
      iss: ISSUER,
      sub: "client_1",
      aud: AUDIENCE,
      exp: 1740823200 + 600,
      iat: 1740823200,
      jti: "tok_1",
      client_id: "client_1",
      org: ORG,
      roles: ["billing", "signing"],
      ctx: [ROOT, BUILDING]
    })
  })

  it("writes claims the schema accepts", () => {
    expect(Schema.decodeUnknownSync(AccessTokenClaims)(claims)).toStrictEqual(claims)
  })

  it("copies the role and context lists", () => {
    const roles: Array<"booking"> = ["booking"]
    const built = buildClaims({ ...options, clientId: "c", subject: "c", organizationId: ORG, roles, contexts: [], jti: "j" })
    roles.push("booking")
    expect(built.roles).toStrictEqual(["booking"])
  })
})

describe("judgeClaims", () => {
  it("accepts the claims it built, at issuance and until the last millisecond before exp", () => {
    expect(judgeClaims(claims, options)).toStrictEqual(Either.right(claims))
    expect(reasonOf(judgeClaims(claims, { ...options, now: new Date(claims.exp * 1000 - 1) }))).toBe("accepted")
  })

  it("accepts aud as an array that contains the audience (RFC 7519 4.1.3)", () => {
    expect(reasonOf(judgeClaims({ ...claims, aud: [AUDIENCE] }, options))).toBe("accepted")
    expect(reasonOf(judgeClaims({ ...claims, aud: ["https://other.test", AUDIENCE] }, options))).toBe("accepted")
  })

  it("accepts a lifetime of exactly 600 s and a shorter one", () => {
    expect(reasonOf(judgeClaims({ ...claims, exp: IAT + 600 }, options))).toBe("accepted")
    expect(reasonOf(judgeClaims({ ...claims, exp: IAT + 1 }, options))).toBe("accepted")
  })

  const malformed: ReadonlyArray<readonly [string, unknown]> = [
    ["null", null],
    ["a string", "eyJ..."],
    ["an array", [claims]],
    ["no org", { ...claims, org: undefined }],
    ["an org that is not a UUID", { ...claims, org: "org_1" }],
    ["an unknown role", { ...claims, roles: ["billing", "admin"] }],
    ["roles as a string", { ...claims, roles: "billing" }],
    ["ctx missing", { ...claims, ctx: undefined }],
    ["an empty context id", { ...claims, ctx: [""] }],
    ["a context id that is not a UUID", { ...claims, ctx: [ROOT, "ctx_building_7"] }],
    ["a context id with a NUL", { ...claims, ctx: ["\u0000"] }],
    ["ctx as a string", { ...claims, ctx: ROOT }],
    ["exp as a string", { ...claims, exp: String(claims.exp) }],
    ["iat with a fraction", { ...claims, iat: IAT + 0.5 }],
    ["no jti", { ...claims, jti: undefined }],
    ["an empty client_id", { ...claims, client_id: "" }],
    ["aud as a number", { ...claims, aud: 1 }],
    ["aud as an array with a number", { ...claims, aud: [AUDIENCE, 1] }],
    ["an empty aud", { ...claims, aud: "" }]
  ]
  for (const [name, payload] of malformed) {
    it(`refuses ${name} as malformed`, () => {
      expect(reasonOf(judgeClaims(payload, options))).toBe("malformed")
    })
  }

  const refused: ReadonlyArray<readonly [string, unknown, Partial<typeof options> & { leewaySeconds?: number }, string]> = [
    ["another issuer", { ...claims, iss: "https://evil.test" }, {}, "wrong_issuer"],
    ["an issuer with a trailing slash", { ...claims, iss: `${ISSUER}/` }, {}, "wrong_issuer"],
    ["another audience", { ...claims, aud: "https://other.test" }, {}, "wrong_audience"],
    ["an audience array without ours", { ...claims, aud: ["https://other.test"] }, {}, "wrong_audience"],
    ["an empty audience array", { ...claims, aud: [] }, {}, "wrong_audience"],
    ["an audience with a trailing slash", { ...claims, aud: `${AUDIENCE}/` }, {}, "wrong_audience"],
    ["exp 601 s after iat", { ...claims, exp: IAT + 601 }, {}, "lifetime"],
    ["exp a year after iat", { ...claims, exp: IAT + 365 * 86400 }, {}, "lifetime"],
    ["exp equal to iat", { ...claims, exp: IAT }, {}, "lifetime"],
    ["exp before iat", { ...claims, exp: IAT - 1 }, {}, "lifetime"],
    ["a year-long token that is also expired: lifetime first", { ...claims, exp: IAT + 365 * 86400 }, { now: new Date((IAT + 400 * 86400) * 1000) }, "lifetime"],
    ["now at exp", claims, { now: new Date(claims.exp * 1000) }, "expired"],
    ["now long after exp", claims, { now: new Date((claims.exp + 3600) * 1000) }, "expired"],
    ["now at exp + leeway", claims, { now: new Date((claims.exp + 30) * 1000), leewaySeconds: 30 }, "expired"],
    ["iat a second ahead", claims, { now: new Date(IAT * 1000 - 1000) }, "not_yet_valid"],
    ["iat beyond the leeway", claims, { now: new Date((IAT - 31) * 1000), leewaySeconds: 30 }, "not_yet_valid"],
    ["another issuer that is also expired: issuer first", { ...claims, iss: "x" }, { now: new Date(claims.exp * 1000) }, "wrong_issuer"],
    ["another audience that is also expired: audience first", { ...claims, aud: "x" }, { now: new Date(claims.exp * 1000) }, "wrong_audience"]
  ]
  for (const [name, payload, overrides, reason] of refused) {
    it(`refuses ${name} as ${reason}`, () => {
      expect(reasonOf(judgeClaims(payload, { ...options, ...overrides }))).toBe(reason)
    })
  }

  const withinLeeway: ReadonlyArray<readonly [string, Date]> = [
    ["29.999 s after exp", new Date((claims.exp + 30) * 1000 - 1)],
    ["iat 30 s ahead", new Date((IAT - 30) * 1000)]
  ]
  for (const [name, now] of withinLeeway) {
    it(`accepts ${name} with a 30 s leeway, and refuses it without`, () => {
      expect(reasonOf(judgeClaims(claims, { ...options, now, leewaySeconds: 30 }))).toBe("accepted")
      expect(reasonOf(judgeClaims(claims, { ...options, now }))).not.toBe("accepted")
    })
  }
})
