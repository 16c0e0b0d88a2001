/**
 * One attempt over HTTP (issue 22, items 3 and 4): safe destinations refused at connect time (IP literals before a
 * socket opens, names on the address they resolve to) unless private destinations are allowed; redirects not
 * followed; a slow receiver times out; a big response is read only to its first 1 KB.
 */
import { signedHeaders } from "@propline/webhooks/WebhookSignature"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { attempt, makeAgent, RESPONSE_CAP } from "../../src/webhooks/WebhookHttp.js"
import { type Receiver, receiver } from "./WebhookFixtures.js"

const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
const body = JSON.stringify({ id: "e1", type: "billing.invoice.approved" })
const headers = signedHeaders([secret], "e1", new Date(), body)

describe("webhook attempts", () => {
  let hook: Receiver
  const safe = makeAgent(false, 1000)
  const open = makeAgent(true, 1000)

  beforeAll(async () => {
    hook = await receiver()
  })
  afterAll(async () => {
    await hook.close()
    await safe.close()
    await open.close()
  })

  describe("safe destinations, checked at connect time", () => {
    it.each([
      ["http://127.0.0.1:9/hook", "loopback"],
      ["http://10.1.2.3/hook", "private"],
      ["http://169.254.169.254/latest/meta-data", "linkLocal"],
      ["http://[::1]:9/hook", "loopback"],
      ["http://[::ffff:127.0.0.1]:9/hook", "loopback"],
      ["http://0.0.0.0:9/hook", "unspecified"]
    ])("refuses %s (%s) without connecting", async (url, range) => {
      const outcome = await attempt(safe, url, headers, body, 1000)
      expect(outcome.statusCode).toBeNull()
      expect(outcome.error).toMatch(new RegExp(`^destination_refused: .* is ${range}$`))
    })

    it("refuses a host name that resolves to loopback (the address connected to is checked, not the name)", async () => {
      const port = new URL(hook.url()).port
      const before = hook.received.length
      const outcome = await attempt(safe, `http://localhost:${port}/hook`, headers, body, 1000)
      expect(outcome.error).toMatch(/^destination_refused: (127\.0\.0\.1|::1) is loopback$/)
      expect(hook.received.length).toBe(before)
    })

    it("delivers to a local receiver when private destinations are allowed", async () => {
      hook.answer = () => ({ status: 200, body: "ok" })
      const outcome = await attempt(open, hook.url(), headers, body, 1000)
      expect(outcome).toMatchObject({ statusCode: 200, error: null, responseBody: "ok" })
      expect(hook.received.at(-1)!.body).toBe(body)
      expect(hook.received.at(-1)!.headers["content-type"]).toBe("application/json")
    })
  })

  describe("answers", () => {
    it("does not follow a redirect: a 3xx is a failed attempt and the target is never asked", async () => {
      hook.answer = (request) =>
        request.path === "/moved" ? { status: 302, headers: { location: hook.url("/target") } } : { status: 200, body: "target" }
      const outcome = await attempt(open, hook.url("/moved"), headers, body, 1000)
      expect(outcome).toMatchObject({ statusCode: 302, error: "redirect not followed (status 302)" })
      expect(hook.received.some((request) => request.path === "/target")).toBe(false)
    })

    it("times out a slow receiver at the timeout", async () => {
      hook.answer = () => ({ status: 200, delayMs: 5000 })
      const outcome = await attempt(open, hook.url("/slow"), headers, body, 500)
      expect(outcome).toMatchObject({ statusCode: null, error: "timeout" })
      expect(outcome.latencyMs).toBeGreaterThanOrEqual(450)
      expect(outcome.latencyMs).toBeLessThan(2000)
    })

    it("reads a big response only to its first 1 KB and drops the connection", async () => {
      let written = 0
      let closedEarly = false
      const total = 50 * 1024 * 1024
      hook.answer = (_request, response) => {
        response.writeHead(500, { "content-type": "text/plain" })
        const chunk = Buffer.alloc(64 * 1024, "x")
        const pump = () => {
          while (written < total) {
            written += chunk.length
            if (!response.write(chunk)) return void response.once("drain", pump)
          }
          response.end()
        }
        response.on("close", () => {
          closedEarly = written < total
        })
        pump()
        return "handled"
      }
      const outcome = await attempt(open, hook.url("/big"), headers, body, 5000)
      expect(outcome.statusCode).toBe(500)
      expect(outcome.error).toBe("status 500")
      expect(outcome.responseBody).toBe("x".repeat(RESPONSE_CAP))
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(closedEarly).toBe(true)
      expect(written).toBeLessThan(total)
    })
  })
})
