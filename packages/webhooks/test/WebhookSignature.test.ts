import { describe, expect, it } from "@effect/vitest"
import { Webhook } from "standardwebhooks"
import { lastFour, newSecret, signedHeaders } from "../src/WebhookSignature.js"

describe("WebhookSignature", () => {
  it("makes whsec_ secrets of 32 random bytes", () => {
    const secret = newSecret()
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(secret.slice(6), "base64")).toHaveLength(32)
    expect(newSecret()).not.toBe(secret)
    expect(lastFour(secret)).toBe(secret.slice(-4))
  })

  it("signs as the standardwebhooks reference library verifies, with each secret listed", () => {
    const [current, previous, stranger] = [newSecret(), newSecret(), newSecret()]
    const body = JSON.stringify({ id: "evt", data: { object: { name: "Å ✓" } } })
    const headers = signedHeaders([current, previous], "evt", new Date(), body)
    expect(headers["webhook-signature"]).toMatch(/^v1,\S+ v1,\S+$/)
    expect(new Webhook(current).verify(body, headers)).toEqual(JSON.parse(body))
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body))
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow()
    expect(() => new Webhook(current).verify(body.replace("✓", "x"), headers)).toThrow()
  })

  it("stamps the time in Unix seconds, which the library checks (5 minutes' tolerance)", () => {
    const secret = newSecret()
    const old = signedHeaders([secret], "evt", new Date(Date.now() - 10 * 60_000), "{}")
    expect(() => new Webhook(secret).verify("{}", old)).toThrow()
  })
})
