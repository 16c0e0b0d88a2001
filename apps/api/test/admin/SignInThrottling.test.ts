/**
 * The sign-in throttle over HTTP, black box, on PGlite and PostgreSQL (issue 19, item 6): failures are counted per
 * (e-mail address, client address) with growing waits, so a guesser at one address never stops the operator at
 * another; a success forgets the pair's failures; concurrent guesses are counted exactly and can't get past a wait;
 * an unknown address is answered exactly as a known one; failed and throttled attempts are in the audit log.
 *
 * The admin host trusts the loopback proxy, so each request names its client address in X-Forwarded-For (the case
 * without a trusted proxy is in AdminApi.test.ts). The hosts' clock stands still until a test moves it.
 */
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { delaySeconds, FIRST_DELAY_SECONDS, FREE_FAILURES, MAX_DELAY_SECONDS } from "../../src/admin/SignInThrottle.js"
import { adminCall, type OperatorFixture, operator, sessionCookieOf } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { type Answer, call, start, type TestApp } from "../support/TestApp.js"
import { ControlledClock, FROZEN_AT } from "../identity/IdentityTestHost.js"

const ATTACKER = "198.51.100.66"
const OFFICE = "203.0.113.10"

describe.each(TestDatabase.kinds())("sign-in throttling on %s", (kind) => {
  const clock = new ControlledClock(FROZEN_AT)
  let app: TestApp
  let org: Fixtures.OrganizationFixture

  beforeAll(async () => {
    app = await start(kind, { clock, trustedProxies: ["127.0.0.1", "::1"] })
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
  })
  afterAll(async () => {
    await app?.dispose()
  })
  beforeEach(() => clock.set(FROZEN_AT))

  const newOperator = () => app.run(operator(org.organizationId))
  /** A sign-in from `from` (the client address the trusted proxy reports). */
  const attempt = (from: string, email: string, password: string, forwardedFor = from): Promise<Answer> =>
    call(`${app.adminUrl}/api/session`, { body: { email, password }, headers: { "x-forwarded-for": forwardedFor } })
  const guess = (from: string, who: { readonly email: string }) => attempt(from, who.email, "wrong guess")
  const signIn = (from: string, who: OperatorFixture) => attempt(from, who.email, who.password)
  const retryAfter = (answer: Answer) => Number(answer.headers.get("retry-after"))
  /** Guesses until the pair waits: the free failures and one more, each answered 401. */
  const exhaustFreeFailures = async (from: string, who: { readonly email: string }) => {
    for (let failure = 1; failure <= FREE_FAILURES + 1; failure++) expect((await guess(from, who)).status).toBe(401)
  }
  const pairRow = (email: string, clientAddress: string) =>
    app.run(
      Db.query((db) =>
        db
          .selectFrom("operatorSignInFailures")
          .select(["failureCount", "blockedUntil"])
          .where("email", "=", email)
          .where("clientAddress", "=", clientAddress)
          .executeTakeFirst()
      ).pipe(Effect.orDie)
    )
  const auditEntries = (action: string, targetId: string) =>
    app.run(
      Db.query((db) =>
        db
          .selectFrom("auditLog")
          .selectAll()
          .where("action", "=", action)
          .where("targetId", "=", targetId)
          .orderBy("occurredAt")
          .execute()
      ).pipe(Effect.orDie)
    )

  describe("a guesser at one address never stops the operator at another", () => {
    it("however long it keeps guessing, through every wait, the operator signs in from elsewhere at once", async () => {
      const victim = await newOperator()
      await exhaustFreeFailures(ATTACKER, victim)
      expect((await signIn(ATTACKER, victim)).status).toBe(429)
      expect((await signIn(OFFICE, victim)).status).toBe(201)
      // The guesser waits out every delay up to the longest and guesses again each time.
      for (let failures = FREE_FAILURES + 1; delaySeconds(failures) < MAX_DELAY_SECONDS; failures++) {
        clock.advance(`${delaySeconds(failures)} seconds`)
        expect((await guess(ATTACKER, victim)).status).toBe(401)
        expect((await attempt(ATTACKER, victim.email, victim.password)).status).toBe(429)
        const operatorAnswer = await signIn(OFFICE, victim)
        expect(operatorAnswer.status).toBe(201)
      }
      // A typo at the office costs nothing more than it would have without the guesser.
      expect((await guess(OFFICE, victim)).status).toBe(401)
      expect((await signIn(OFFICE, victim)).status).toBe(201)
    })

    it("an operator's success elsewhere does not forgive the guesser's pair", async () => {
      const victim = await newOperator()
      await exhaustFreeFailures(ATTACKER, victim)
      expect((await signIn(OFFICE, victim)).status).toBe(201)
      expect((await signIn(ATTACKER, victim)).status).toBe(429)
    })

    it("a guesser behind the trusted proxy can't escape its address by prefixing X-Forwarded-For (the right-most untrusted hop counts)", async () => {
      const victim = await newOperator()
      for (let failure = 1; failure <= FREE_FAILURES + 1; failure++) {
        const spoofed = await attempt(ATTACKER, victim.email, "wrong guess", `192.0.2.${failure}, ${ATTACKER}`)
        expect(spoofed.status).toBe(401)
      }
      expect((await attempt(ATTACKER, victim.email, victim.password, `203.0.113.99, ${ATTACKER}, 127.0.0.1`)).status).toBe(429)
      const failed = await auditEntries("operator.sign_in_failed", victim.id)
      expect(failed.map((entry) => entry.actorId)).toEqual(Array(FREE_FAILURES + 1).fill(ATTACKER))
    })
  })

  describe("growing waits for one pair", () => {
    it(`${FREE_FAILURES} failures are free; then ${FIRST_DELAY_SECONDS} s, doubling with each failure, at most ${MAX_DELAY_SECONDS} s`, async () => {
      const me = await newOperator()
      for (let failure = 1; failure <= FREE_FAILURES; failure++) {
        expect((await guess(OFFICE, me)).status).toBe(401)
        expect(delaySeconds(failure)).toBe(0)
      }
      const seen: Array<number> = []
      for (let failure = FREE_FAILURES + 1; seen.filter((wait) => wait === MAX_DELAY_SECONDS).length < 2; failure++) {
        expect((await guess(OFFICE, me)).status).toBe(401)
        // Even the right password is refused while the pair waits, and a refused attempt doesn't lengthen the wait.
        const refused = await signIn(OFFICE, me)
        expect(refused.status).toBe(429)
        seen.push(retryAfter(refused))
        clock.advance(`${retryAfter(refused) - 1} seconds`)
        const stillWaiting = await signIn(OFFICE, me)
        expect(stillWaiting.status).toBe(429)
        expect(retryAfter(stillWaiting)).toBe(1)
        expect(stillWaiting.body.retryAfterSeconds).toBe(1)
        clock.advance("1 second")
      }
      expect(seen).toEqual([30, 60, 120, 240, 480, 960, 1920, 3600, 3600])
    })

    it("answers 429 as problem details with Retry-After and the wait in words", async () => {
      const me = await newOperator()
      await exhaustFreeFailures(OFFICE, me)
      const refused = await signIn(OFFICE, me)
      expect(refused.status).toBe(429)
      expect(refused.headers.get("content-type")).toContain("application/problem+json")
      expect(refused.headers.get("retry-after")).toBe(String(FIRST_DELAY_SECONDS))
      expect(refused.headers.get("set-cookie")).toBeNull()
      expect(refused.body).toEqual({
        type: "about:blank",
        title: "Too Many Requests",
        status: 429,
        detail: "Too many failed sign-ins for this e-mail address from your network address. Try again in 30 seconds.",
        retryAfterSeconds: FIRST_DELAY_SECONDS
      })
    })
  })

  describe("a success forgets the pair's failures", () => {
    it("after a wait, the right password signs in, and the free failures are whole again", async () => {
      const me = await newOperator()
      await exhaustFreeFailures(OFFICE, me)
      clock.advance(`${FIRST_DELAY_SECONDS} seconds`)
      expect((await signIn(OFFICE, me)).status).toBe(201)
      expect(await pairRow(me.email, OFFICE)).toBeUndefined()
      for (let failure = 1; failure <= FREE_FAILURES; failure++) expect((await guess(OFFICE, me)).status).toBe(401)
      expect((await signIn(OFFICE, me)).status).toBe(201)
    })
  })

  describe("concurrent guesses", () => {
    it("20 concurrent wrong attempts of one pair: exactly the free failures and one more check a password, the rest wait", async () => {
      const me = await newOperator()
      const answers = await Promise.all(Array.from({ length: 20 }, () => guess(ATTACKER, me)))
      const statuses = answers.map((answer) => answer.status)
      expect(statuses.filter((status) => status === 401)).toHaveLength(FREE_FAILURES + 1)
      expect(statuses.filter((status) => status === 429)).toHaveLength(20 - (FREE_FAILURES + 1))
      expect(await pairRow(me.email, ATTACKER)).toMatchObject({ failureCount: FREE_FAILURES + 1 })
      expect(await auditEntries("operator.sign_in_failed", me.id)).toHaveLength(FREE_FAILURES + 1)
      expect(await auditEntries("operator.sign_in_throttled", me.id)).toHaveLength(20 - (FREE_FAILURES + 1))
      const refused = answers.find((answer) => answer.status === 429)
      expect(refused === undefined ? undefined : retryAfter(refused)).toBe(FIRST_DELAY_SECONDS)
    })

    it("20 concurrent wrong attempts from 20 addresses each count once against their own pair", async () => {
      const me = await newOperator()
      const addresses = Array.from({ length: 20 }, (_, index) => `192.0.2.${100 + index}`)
      const answers = await Promise.all(addresses.map((address) => guess(address, me)))
      expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(401))
      for (const address of addresses) expect(await pairRow(me.email, address)).toMatchObject({ failureCount: 1 })
    })
  })

  describe("no account enumeration", () => {
    it("an unknown address is counted, refused and answered exactly as a known one", async () => {
      const known = await newOperator()
      const unknownEmail = "nobody-here@example.com"
      for (let failure = 1; failure <= FREE_FAILURES + 1; failure++) {
        const a = await guess(ATTACKER, known)
        const b = await guess(ATTACKER, { email: unknownEmail })
        expect([a.status, b.status]).toEqual([401, 401])
        expect(b.body).toEqual(a.body)
      }
      const knownRefused = await guess(ATTACKER, known)
      const unknownRefused = await guess(ATTACKER, { email: unknownEmail })
      expect([knownRefused.status, unknownRefused.status]).toEqual([429, 429])
      expect(unknownRefused.body).toEqual(knownRefused.body)
      expect(unknownRefused.headers.get("retry-after")).toBe(knownRefused.headers.get("retry-after"))
    })
  })

  describe("the audit log", () => {
    it("records failed and throttled sign-ins with the client address and request id, never the password; the console lists them", async () => {
      const victim = await newOperator()
      const failed = await attempt(ATTACKER, victim.email.toUpperCase(), "hunter2-secret-guess")
      expect(failed.status).toBe(401)
      for (let failure = 2; failure <= FREE_FAILURES + 1; failure++) await guess(ATTACKER, victim)
      const throttled = await guess(ATTACKER, victim)
      expect(throttled.status).toBe(429)

      const viewer = await newOperator()
      const signedIn = await signIn(OFFICE, viewer)
      const session = { cookie: sessionCookieOf(signedIn), csrfToken: signedIn.body.csrfToken as string }
      const listed = await adminCall(
        `${app.adminUrl}/api/audit-log?action=operator.sign_in_&targetId=${victim.id}&limit=100`,
        session
      )
      expect(listed.status).toBe(200)
      const items: ReadonlyArray<Record<string, unknown>> = listed.body.items
      expect(items.map((item) => item["action"]).sort()).toEqual([
        ...Array(FREE_FAILURES + 1).fill("operator.sign_in_failed"),
        "operator.sign_in_throttled"
      ])
      const first = items.find((item) => item["requestId"] === failed.headers.get("x-request-id"))
      expect(first).toMatchObject({
        actorType: "client",
        actorId: ATTACKER,
        action: "operator.sign_in_failed",
        targetType: "operator",
        targetId: victim.id,
        details: { email: victim.email, clientAddress: ATTACKER, reason: "wrong_password", failureCount: 1 }
      })
      expect(items.find((item) => item["requestId"] === throttled.headers.get("x-request-id"))).toMatchObject({
        actorType: "client",
        actorId: ATTACKER,
        action: "operator.sign_in_throttled",
        details: { email: victim.email, clientAddress: ATTACKER, retryAfterSeconds: FIRST_DELAY_SECONDS }
      })
      expect(JSON.stringify(listed.body)).not.toContain("hunter2-secret-guess")
      // The console can filter for them.
      const byClient = await adminCall(`${app.adminUrl}/api/audit-log?actorType=client&targetId=${victim.id}`, session)
      expect(byClient.body.items).toHaveLength(FREE_FAILURES + 2)
    })

    it("records a failed sign-in of an unknown address in no organization, by the address typed", async () => {
      const failed = await guess(OFFICE, { email: "Ghost@Example.com" })
      expect(failed.status).toBe(401)
      const [entry] = await auditEntries("operator.sign_in_failed", "ghost@example.com")
      expect(entry).toMatchObject({
        organizationId: null,
        actorType: "client",
        actorId: OFFICE,
        targetType: "operator_email",
        requestId: failed.headers.get("x-request-id"),
        details: { email: "ghost@example.com", clientAddress: OFFICE, reason: "unknown_email", failureCount: 1 }
      })
    })
  })
})
