import { describe, expect, it } from "@effect/vitest"
import { randomBytes } from "node:crypto"
import {
  constantTimeEqual,
  formatSecret,
  isWellFormedSecret,
  SECRET_BODY_LENGTH,
  SECRET_PREFIX,
  SECRET_RANDOM_BYTES
} from "../src/ClientSecret.js"

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
const fromBase62 = (digits: string) => [...digits].reduce((n, digit) => n * 62n + BigInt(BASE62.indexOf(digit)), 0n)
const fromBytes = (bytes: Uint8Array) => [...bytes].reduce((n, byte) => n * 256n + BigInt(byte), 0n)

describe("formatSecret (spec 5.2, decisions 3)", () => {
  it("uses 256 bits in 43 base62 digits", () => {
    expect(SECRET_PREFIX).toBe("service_sk_")
    expect(SECRET_RANDOM_BYTES).toBe(32)
    expect(SECRET_BODY_LENGTH).toBe(43)
    expect(62n ** 43n > 2n ** 256n).toBe(true)
    expect(62n ** 42n > 2n ** 256n).toBe(false)
  })

  // Vectors computed independently (Python int.from_bytes and repeated divmod by 62).
  const vectors: ReadonlyArray<readonly [string, Uint8Array, string]> = [
    ["all zero bytes", new Uint8Array(32), "0".repeat(43)],
    ["the number 1", Uint8Array.from([...new Uint8Array(31), 1]), `${"0".repeat(42)}1`],
    ["bytes 0 to 31", Uint8Array.from({ length: 32 }, (_, i) => i), "003aUlTJC7tjlCTQj2uNU3MFagCXG9LRKRcwGkBIDlf"],
    ["all 0xff bytes, the largest value", new Uint8Array(32).fill(0xff), "yhjskwdA6OZ1AL1YmHWZWm8LLG7HjnuCA2j5rOw8Xp1"]
  ]
  for (const [name, bytes, body] of vectors) {
    it(`encodes ${name}`, () => {
      expect(formatSecret(bytes)).toBe(`${SECRET_PREFIX}${body}`)
    })
  }

  it("is deterministic, fixed-length, well formed and reversible for random bytes", () => {
    for (let i = 0; i < 500; i++) {
      const bytes = new Uint8Array(randomBytes(32))
      const secret = formatSecret(bytes)
      expect(formatSecret(bytes)).toBe(secret)
      expect(secret.length).toBe(SECRET_PREFIX.length + SECRET_BODY_LENGTH)
      expect(isWellFormedSecret(secret)).toBe(true)
      expect(fromBase62(secret.slice(SECRET_PREFIX.length))).toBe(fromBytes(bytes))
    }
  })

  it("uses the first 32 of more bytes", () => {
    const bytes = new Uint8Array(randomBytes(40))
    expect(formatSecret(bytes)).toBe(formatSecret(bytes.subarray(0, 32)))
  })

  for (const length of [0, 16, 31]) {
    it(`refuses ${length} bytes: too few for 256 bits`, () => {
      expect(() => formatSecret(new Uint8Array(length))).toThrow(RangeError)
    })
  }
})

describe("isWellFormedSecret", () => {
  const good = formatSecret(new Uint8Array(32).fill(42))
  const body = good.slice(SECRET_PREFIX.length)
  const malformed: ReadonlyArray<readonly [string, string]> = [
    ["the empty string", ""],
    ["the prefix alone", SECRET_PREFIX],
    ["42 digits", good.slice(0, -1)],
    ["44 digits", `${good}0`],
    ["no prefix", body],
    ["another prefix", `service_pk_${body}`],
    ["the prefix in other case", `Service_sk_${body}`],
    ["a hyphen", `${good.slice(0, -1)}-`],
    ["an underscore in the body", `${good.slice(0, -1)}_`],
    ["a space", `${good.slice(0, -1)} `],
    ["a non-ASCII letter", `${good.slice(0, -1)}é`],
    ["a trailing newline", `${good}\n`],
    ["a leading space", ` ${good}`]
  ]
  for (const [name, secret] of malformed) {
    it(`refuses ${name}`, () => {
      expect(isWellFormedSecret(secret)).toBe(false)
    })
  }

  it("accepts what formatSecret writes", () => {
    expect(isWellFormedSecret(good)).toBe(true)
  })
})

describe("constantTimeEqual", () => {
  const digest = Uint8Array.from({ length: 32 }, (_, i) => i * 7)
  const flipped = (index: number) => {
    const copy = Uint8Array.from(digest)
    copy[index] = (copy[index] as number) ^ 1
    return copy
  }

  it("is true for equal bytes", () => {
    expect(constantTimeEqual(digest, Uint8Array.from(digest))).toBe(true)
    expect(constantTimeEqual(new Uint8Array(0), new Uint8Array(0))).toBe(true)
  })

  for (const index of [0, 15, 31]) {
    it(`is false when byte ${index} differs`, () => {
      expect(constantTimeEqual(digest, flipped(index))).toBe(false)
    })
  }

  it("is false for different lengths", () => {
    expect(constantTimeEqual(digest, digest.subarray(0, 31))).toBe(false)
    expect(constantTimeEqual(digest.subarray(0, 31), digest)).toBe(false)
  })
})
