import { describe, expect, it } from "vitest"
import { sha256Hex } from "../../src/platform/Digest.js"

describe("sha256Hex (FIPS 180-4)", () => {
  it("gives the standard's test vectors in lower-case hex", () => {
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it("hashes a string's UTF-8 bytes, the same digest as of those bytes", () => {
    expect(sha256Hex("åäö €")).toBe(sha256Hex(new TextEncoder().encode("åäö €")))
  })
})
