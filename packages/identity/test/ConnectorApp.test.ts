import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { ConnectorAppRecord, RegisterApp } from "../src/ConnectorApp.js"
import { addKey, APP_ID_PATTERN, checkPublicJwk, MAX_APP_KEYS, registerApp, retireKey } from "../src/ConnectorApp.js"

const NOW = new Date("2026-11-23T08:00:00.000Z")
const LATER = new Date("2026-11-23T09:00:00.000Z")

// Two real P-256 public keys.
const KEY_1 = {
  kty: "EC",
  crv: "P-256",
  x: "x4vAQnFR8lwruP7yCbLWxWlWFVBF9nPw7aF9PzzrdZA",
  y: "MLiHt_4FL5oowCH93mdjpaJPfMpej3UY4zg7dtWW0O4",
  kid: "key-1"
}
const KEY_2 = {
  kty: "EC",
  crv: "P-256",
  x: "mr9fahjmVsV57z-3UFDMLck5fi3CYZ5ZMLtuIXiI-7E",
  y: "UaoHmWUEWTBU8MGMhSQfIgIGp1UODe2tys5cSDpYZ6M",
  kid: "key-2"
}

const registration: RegisterApp = {
  appId: "acme-erp",
  name: "Acme ERP",
  setupUrl: "https://acme.example/propline/setup",
  keys: [KEY_1]
}

const ruleOf = <A>(result: Either.Either<A, { readonly _tag: string; readonly rule?: string }>) =>
  Either.isLeft(result) ? (result.left.rule ?? result.left._tag) : "accepted"

const registered = (keys: ReadonlyArray<unknown> = [KEY_1]): ConnectorAppRecord =>
  Either.getOrThrow(registerApp(false, { ...registration, keys }, NOW)).record

describe("APP_ID_PATTERN", () => {
  it.each(["acme-erp", "fortnox2", "abc", "a1-b2-c3", "a".repeat(64)])("accepts %s", (appId) => {
    expect(APP_ID_PATTERN.test(appId)).toBe(true)
  })
  it.each(["ab", "a".repeat(65), "Acme", "1acme", "acme-", "-acme", "ac--me", "app_123", "acme erp", "acmé", ""])(
    "refuses %j",
    (appId) => {
      expect(APP_ID_PATTERN.test(appId)).toBe(false)
    }
  )
})

describe("checkPublicJwk", () => {
  it("keeps an ES256 public key and adds alg and use", () => {
    expect(checkPublicJwk({ ...KEY_1, x5c: ["ignored"], ext: true })).toStrictEqual(
      Either.right({ ...KEY_1, alg: "ES256", use: "sig" })
    )
    expect(Either.isRight(checkPublicJwk({ ...KEY_1, alg: "ES256", use: "sig", key_ops: ["verify"] }))).toBe(true)
  })

  const refused: ReadonlyArray<readonly [string, unknown]> = [
    ["not an object", "key"],
    ["an array", [KEY_1]],
    ["an RSA key", { ...KEY_1, kty: "RSA" }],
    ["a P-384 key", { ...KEY_1, crv: "P-384" }],
    ["a private key (d)", { ...KEY_1, d: "x4vAQnFR8lwruP7yCbLWxWlWFVBF9nPw7aF9PzzrdZA" }],
    ["a symmetric key", { kty: "oct", k: "c2VjcmV0", kid: "key-1" }],
    ["x missing", { ...KEY_1, x: undefined }],
    ["x too short", { ...KEY_1, x: KEY_1.x.slice(1) }],
    ["x not canonical base64url", { ...KEY_1, x: `${KEY_1.x.slice(0, 42)}B` }],
    ["y with padding", { ...KEY_1, y: `${KEY_1.y}=` }],
    ["kid missing", { ...KEY_1, kid: undefined }],
    ["kid empty", { ...KEY_1, kid: "" }],
    ["kid with a space", { ...KEY_1, kid: "key 1" }],
    ["kid of 201 characters", { ...KEY_1, kid: "k".repeat(201) }],
    ["alg RS256", { ...KEY_1, alg: "RS256" }],
    ["alg HS256", { ...KEY_1, alg: "HS256" }],
    ["use enc", { ...KEY_1, use: "enc" }],
    ["key_ops sign", { ...KEY_1, key_ops: ["sign"] }]
  ]
  for (const [name, jwk] of refused) {
    it(`refuses ${name} (INTEGRATIONS_APP_INVALID, key)`, () => {
      const result = checkPublicJwk(jwk)
      if (Either.isRight(result)) throw new Error("expected a refusal")
      expect([result.left.code, result.left.status, result.left.rule]).toStrictEqual(["INTEGRATIONS_APP_INVALID", 400, "key"])
    })
  }
})

describe("registerApp", () => {
  it("registers an app with its keys active", () => {
    const result = registerApp(false, { ...registration, keys: [KEY_1, KEY_2] }, NOW)
    expect(result).toStrictEqual(
      Either.right({
        record: {
          id: "acme-erp",
          name: "Acme ERP",
          setupUrl: "https://acme.example/propline/setup",
          keys: [
            { kid: "key-1", publicJwk: { ...KEY_1, alg: "ES256", use: "sig" }, status: "active", addedAt: NOW, retiredAt: null },
            { kid: "key-2", publicJwk: { ...KEY_2, alg: "ES256", use: "sig" }, status: "active", addedAt: NOW, retiredAt: null }
          ],
          createdAt: NOW,
          updatedAt: NOW
        }
      })
    )
  })

  const refused: ReadonlyArray<readonly [string, Partial<RegisterApp>, string]> = [
    ["an app id that is not a slug", { appId: "Acme_ERP" }, "app_id"],
    ["a blank name", { name: "  " }, "name"],
    ["a name of 201 characters", { name: "n".repeat(201) }, "name"],
    ["a name with a control character", { name: "Acme\u0000" }, "name"],
    ["a name with a C1 control character", { name: "Acme\u009B" }, "name"],
    ["an http setup URL", { setupUrl: "http://acme.example/setup" }, "setup_url"],
    ["a relative setup URL", { setupUrl: "/setup" }, "setup_url"],
    ["a setup URL with credentials", { setupUrl: "https://user:pw@acme.example/setup" }, "setup_url"],
    ["a setup URL with a fragment", { setupUrl: "https://acme.example/setup#x" }, "setup_url"],
    ["a setup URL with an empty fragment", { setupUrl: "https://acme.example/setup#" }, "setup_url"],
    ["a setup URL over 2000 characters", { setupUrl: `https://acme.example/${"a".repeat(2000)}` }, "setup_url"],
    ["no key", { keys: [] }, "no_keys"],
    ["11 keys", { keys: Array.from({ length: MAX_APP_KEYS + 1 }, (_, i) => ({ ...KEY_1, kid: `k${i}` })) }, "no_keys"],
    ["a private key", { keys: [{ ...KEY_1, d: "abc" }] }, "key"],
    ["two keys with one kid", { keys: [KEY_1, { ...KEY_2, kid: "key-1" }] }, "kid_taken"],
    ["a taken app id and a bad name: the name first", { name: "" }, "name"]
  ]
  for (const [name, overrides, rule] of refused) {
    it(`refuses ${name} (INTEGRATIONS_APP_INVALID, ${rule})`, () => {
      expect(ruleOf(registerApp(name.includes("taken app id"), { ...registration, ...overrides }, NOW))).toBe(rule)
    })
  }

  it("refuses an app id already registered (INTEGRATIONS_APP_ALREADY_EXISTS, 409)", () => {
    const result = registerApp(true, registration, NOW)
    if (Either.isRight(result)) throw new Error("expected a refusal")
    expect(result.left._tag === "AppAlreadyExists" && [result.left.code, result.left.status, result.left.appId]).toStrictEqual([
      "INTEGRATIONS_APP_ALREADY_EXISTS",
      409,
      "acme-erp"
    ])
  })
})

describe("addKey", () => {
  it("adds an active key", () => {
    const { key, record } = Either.getOrThrow(addKey(registered(), { jwk: KEY_2 }, LATER))
    expect(key).toStrictEqual({ kid: "key-2", publicJwk: { ...KEY_2, alg: "ES256", use: "sig" }, status: "active", addedAt: LATER, retiredAt: null })
    expect(record.keys.map((k) => [k.kid, k.status])).toStrictEqual([["key-1", "active"], ["key-2", "active"]])
    expect(record.updatedAt).toBe(LATER)
  })

  it("refuses a kid the app used before, even for a retired key (kid_taken)", () => {
    const withTwo = Either.getOrThrow(addKey(registered(), { jwk: KEY_2 }, NOW)).record
    const retired = Either.getOrThrow(retireKey(withTwo, { kid: "key-1" }, LATER)).record
    expect(ruleOf(addKey(retired, { jwk: { ...KEY_2, kid: "key-1" } }, LATER))).toBe("kid_taken")
    expect(ruleOf(addKey(retired, { jwk: KEY_2 }, LATER))).toBe("kid_taken")
  })

  it("refuses a key that is not an ES256 public JWK (key)", () => {
    expect(ruleOf(addKey(registered(), { jwk: { ...KEY_2, crv: "P-521" } }, LATER))).toBe("key")
  })

  it("refuses an 11th active key (no_keys)", () => {
    const full = registered(Array.from({ length: MAX_APP_KEYS }, (_, i) => ({ ...KEY_1, kid: `k${i}` })))
    expect(ruleOf(addKey(full, { jwk: KEY_2 }, LATER))).toBe("no_keys")
  })
})

describe("retireKey", () => {
  const twoKeys = () => Either.getOrThrow(addKey(registered(), { jwk: KEY_2 }, NOW)).record

  it("retires an active key", () => {
    const { changed, record } = Either.getOrThrow(retireKey(twoKeys(), { kid: "key-1" }, LATER))
    expect(changed).toBe(true)
    expect(record.keys.map((k) => [k.kid, k.status, k.retiredAt])).toStrictEqual([
      ["key-1", "retired", LATER],
      ["key-2", "active", null]
    ])
  })

  it("changes nothing for a retired key", () => {
    const retired = Either.getOrThrow(retireKey(twoKeys(), { kid: "key-1" }, LATER)).record
    expect(retireKey(retired, { kid: "key-1" }, new Date(LATER.getTime() + 1))).toStrictEqual(
      Either.right({ record: retired, changed: false })
    )
  })

  it("refuses an unknown kid (kid_unknown)", () => {
    expect(ruleOf(retireKey(twoKeys(), { kid: "key-9" }, LATER))).toBe("kid_unknown")
  })

  it("refuses the only active key (last_key)", () => {
    expect(ruleOf(retireKey(registered(), { kid: "key-1" }, LATER))).toBe("last_key")
  })
})
