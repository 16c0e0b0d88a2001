/** The client address of a request: the socket's peer, or X-Forwarded-For read from the right behind trusted proxies. */
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { clientAddress, noTrustedProxies, normalizeAddress, type TrustedProxies, trustedProxies } from "../../src/platform/ClientAddress.js"

const trusting = (...entries: ReadonlyArray<string>): TrustedProxies => Either.getOrThrow(trustedProxies(entries))

describe("normalizeAddress", () => {
  it.each([
    ["192.0.2.1", "192.0.2.1"],
    [" 192.0.2.1 ", "192.0.2.1"],
    ["192.0.2.1:8080", "192.0.2.1"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["0:0:0:0:0:ffff:192.0.2.1", "192.0.2.1"],
    ["2001:DB8::1", "2001:db8::1"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["[2001:db8::1]:443", "2001:db8::1"],
    ["unknown", undefined],
    ["_hidden", undefined],
    ["", undefined],
    ["192.0.2.256", undefined]
  ])("%j → %j", (text, expected) => {
    expect(normalizeAddress(text)).toBe(expected)
  })
})

describe("trustedProxies", () => {
  it("accepts addresses and CIDR ranges of both families", () => {
    const trusted = trusting("10.0.0.0/8", "192.0.2.7", "fd00::/8", "::1")
    expect(["10.1.2.3", "192.0.2.7", "fd12::1", "::1", "::ffff:10.0.0.1"].map((a) => trusted.trusts(normalizeAddress(a) ?? a))).toEqual([
      true,
      true,
      true,
      true,
      true
    ])
    expect(["11.0.0.1", "192.0.2.8", "fe80::1", "2001:db8::1"].map((a) => trusted.trusts(a))).toEqual([false, false, false, false])
  })

  it.each(["proxy.internal", "10.0.0.0/33", "fd00::/129", "10.0.0.0/8/1", "10.0.0.0/", "10.0.0.0/x"])("refuses %j", (entry) => {
    expect(Either.isLeft(trustedProxies([entry]))).toBe(true)
  })
})

describe("clientAddress", () => {
  it("without a trusted proxy: the socket's peer; X-Forwarded-For is ignored", () => {
    expect(clientAddress("192.0.2.1", "203.0.113.9", noTrustedProxies)).toBe("192.0.2.1")
    expect(clientAddress("::ffff:192.0.2.1", undefined, noTrustedProxies)).toBe("192.0.2.1")
  })

  it("from a peer that is not trusted: the peer, whatever it forwards", () => {
    expect(clientAddress("192.0.2.1", "203.0.113.9", trusting("10.0.0.0/8"))).toBe("192.0.2.1")
  })

  const proxies = trusting("10.0.0.0/8")
  it.each([
    ["203.0.113.9", "203.0.113.9"],
    ["198.51.100.1, 203.0.113.9", "203.0.113.9"],
    ["198.51.100.1, 203.0.113.9, 10.0.0.2", "203.0.113.9"],
    ["garbage, 203.0.113.9", "203.0.113.9"],
    ["10.0.0.3, 10.0.0.2", "10.0.0.3"],
    ["203.0.113.9, garbage", "10.0.0.1"],
    ["", "10.0.0.1"]
  ])("behind a trusted proxy, X-Forwarded-For %j → %j (the right-most untrusted hop)", (forwardedFor, expected) => {
    expect(clientAddress("10.0.0.1", forwardedFor, proxies)).toBe(expected)
  })

  it("behind a trusted proxy without X-Forwarded-For: the proxy", () => {
    expect(clientAddress("10.0.0.1", undefined, proxies)).toBe("10.0.0.1")
  })
})
