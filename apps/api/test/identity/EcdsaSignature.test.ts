/**
 * `EcdsaSignature.derToJose` (the access token's signature, `AccessTokenSigner`): against `node:crypto`'s own
 * `dsaEncoding: "ieee-p1363"` verification and jose's `compactVerify` on signatures node made, and against an
 * independent DER encoding of arbitrary integer pairs (short integers, a high bit that takes a leading 0x00, zero);
 * malformed DER is refused.
 */
import fc from "fast-check"
import { compactVerify } from "jose"
import { generateKeyPairSync, sign, verify } from "node:crypto"
import { describe, expect, it } from "vitest"
import { derToJose } from "../../src/identity/EcdsaSignature.js"

/** A DER INTEGER of the non-negative big-endian `value` (any length, leading zeros allowed), minimally encoded. */
const derInteger = (value: Uint8Array): Buffer => {
  let start = 0
  while (start < value.length - 1 && value[start] === 0) start += 1
  let body = Buffer.from(value.subarray(start))
  if (body.length === 0) body = Buffer.from([0])
  if ((body[0]! & 0x80) !== 0) body = Buffer.concat([Buffer.from([0]), body])
  return Buffer.concat([Buffer.from([0x02, body.length]), body])
}

/** The DER `ECDSA-Sig-Value` of r and s (RFC 3279 2.2.3). */
const derSignature = (r: Uint8Array, s: Uint8Array): Buffer => {
  const content = Buffer.concat([derInteger(r), derInteger(s)])
  const length = content.length < 0x80 ? Buffer.from([content.length]) : Buffer.from([0x81, content.length])
  return Buffer.concat([Buffer.from([0x30]), length, content])
}

const CURVES = [
  { namedCurve: "P-256", size: 32 },
  { namedCurve: "P-384", size: 48 },
  { namedCurve: "P-521", size: 66 }
] as const

/** An integer of the curve's size as bytes, often with leading zero bytes or a high first bit. */
const integerOf = (size: number) =>
  fc.oneof(
    fc.uint8Array({ minLength: size, maxLength: size }),
    fc
      .tuple(fc.integer({ min: 1, max: size }), fc.uint8Array({ minLength: size, maxLength: size }))
      .map(([zeros, bytes]) => Uint8Array.from(bytes, (byte, index) => (index < zeros ? 0 : byte))),
    fc.uint8Array({ minLength: size, maxLength: size }).map((bytes) => Uint8Array.from(bytes, (byte, index) => (index === 0 ? byte | 0x80 : byte)))
  )

describe("derToJose", () => {
  for (const { namedCurve, size } of CURVES) {
    it(`gives r || s, each left-padded to ${size} bytes, for any pair of ${namedCurve}-sized integers`, () => {
      fc.assert(
        fc.property(integerOf(size), integerOf(size), (r, s) => {
          expect(derToJose(derSignature(r, s), size)).toEqual(Buffer.concat([r, s]))
        }),
        { numRuns: 500 }
      )
    })

    it(`turns node's ${namedCurve} signatures into ones node verifies as ieee-p1363`, () => {
      const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve })
      fc.assert(
        fc.property(fc.uint8Array({ maxLength: 300 }), (data) => {
          const der = sign("sha256", data, privateKey)
          const jose = derToJose(der, size)
          expect(jose.length).toBe(2 * size)
          expect(verify("sha256", data, { key: publicKey, dsaEncoding: "ieee-p1363" }, jose)).toBe(true)
        }),
        { numRuns: 300 }
      )
    })
  }

  it("makes ES256 JWSs jose verifies, the same as dsaEncoding ieee-p1363 gives", async () => {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
    const header = Buffer.from(JSON.stringify({ alg: "ES256" })).toString("base64url")
    await fc.assert(
      fc.asyncProperty(fc.string({ maxLength: 200 }), async (text) => {
        const input = `${header}.${Buffer.from(text).toString("base64url")}`
        const ours = derToJose(sign("sha256", Buffer.from(input), privateKey), 32).toString("base64url")
        const node = sign("sha256", Buffer.from(input), { key: privateKey, dsaEncoding: "ieee-p1363" }).toString("base64url")
        for (const signature of [ours, node]) {
          const { payload } = await compactVerify(`${input}.${signature}`, publicKey, { algorithms: ["ES256"] })
          expect(new TextDecoder().decode(payload)).toBe(text)
        }
        expect(ours.length).toBe(node.length)
      }),
      { numRuns: 200 }
    )
  })

  it("refuses DER that is not one SEQUENCE of two non-negative, minimal INTEGERs of the size", () => {
    const one = Uint8Array.from({ length: 32 }, () => 1)
    const valid = derSignature(one, one)
    expect(derToJose(valid, 32)).toEqual(Buffer.concat([one, one]))
    const refused = [
      Buffer.alloc(0),
      Buffer.concat([valid, Buffer.from([0])]), // trailing byte
      valid.subarray(0, valid.length - 1), // truncated
      Buffer.from([0x31, ...valid.subarray(1)]), // a SET
      Buffer.from([0x30, 6, 0x02, 1, 0x80, 0x02, 1, 1]), // negative r
      Buffer.from([0x30, 7, 0x02, 2, 0x00, 0x01, 0x02, 1, 1]), // r not minimal
      Buffer.from([0x30, 6, 0x02, 0, 0x02, 2, 1, 1]), // r empty
      Buffer.from([0x30, 6, 0x02, 1, 1, 0x04, 1, 1]), // s not an INTEGER
      Buffer.from([0x30, 5, 0x02, 1, 1, 0x02, 1]), // s truncated
      Buffer.from([0x30, 0x81, 6, 0x02, 1, 1, 0x02, 1, 1]), // long form of a short length
      derSignature(Uint8Array.from({ length: 33 }, () => 1), one) // r larger than 32 bytes
    ]
    for (const der of refused) expect(() => derToJose(der, 32), der.toString("hex")).toThrow(/ECDSA signature/)
  })
})
