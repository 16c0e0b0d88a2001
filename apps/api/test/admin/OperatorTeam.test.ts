/**
 * The team over HTTP, black box, on PGlite and PostgreSQL (issue 25, item 5): roles the server enforces (a read-only
 * operator gets 403 on EVERY mutating console endpoint, enumerated from the AdminApi contract so a new endpoint is
 * covered without touching this test), single-use expiring invitations, the last owner, removal ending sessions,
 * password change, the operator's sessions, and the TOTP second factor (codes made with `otpauth`) with single-use
 * recovery codes, replay refusal and throttling; every change audited by its actor.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { AdminApi } from "@propline/contract/AdminApi"
import * as Db from "@propline/db/Db"
import * as TestDatabase from "@propline/db/TestDatabase"
import { Effect } from "effect"
import * as OTPAuth from "otpauth"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { FREE_FAILURES } from "../../src/admin/SignInThrottle.js"
import { adminCall, auditCount, type OperatorFixture, operator, type Session, sessionCookieOf, signIn } from "../support/AdminClient.js"
import * as Fixtures from "../support/Fixtures.js"
import { call, start, type TestApp } from "../support/TestApp.js"

const RANDOM_UUID = "00000000-0000-4000-8000-000000000000"

/** Groups whose changes every operator may make (their own account and session) or that need no session. */
const SELF_SERVICE_GROUPS = new Set(["signIn", "session", "account", "invitation"])

/** Every mutating endpoint of the console's contract outside the self-service groups: [group, name, method, path]. */
const mutatingEndpoints = (): ReadonlyArray<readonly [string, string, string, string]> => {
  const found: Array<readonly [string, string, string, string]> = []
  HttpApi.reflect(AdminApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group }) => {
      if (endpoint.method === "GET" || SELF_SERVICE_GROUPS.has(group.identifier)) return
      found.push([group.identifier, endpoint.name, endpoint.method, endpoint.path.replace(/:[A-Za-z]+/g, RANDOM_UUID)])
    }
  })
  return found
}

const codeAt = (secret: string, timestamp: number) =>
  OTPAuth.TOTP.generate({ secret: OTPAuth.Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30, timestamp })

describe.each(TestDatabase.kinds())("the team on %s", (kind) => {
  let app: TestApp
  let org: Fixtures.OrganizationFixture
  let owner: OperatorFixture
  let ownerSession: Session
  const url = (path: string) => `${app.adminUrl}${path}`

  /** A new operator of the organization with `role`, signed in. */
  const member = async (role: "owner" | "admin" | "read_only") => {
    const who = await app.run(operator(org.organizationId, { role }))
    return { who, session: await signIn(app.adminUrl, who) }
  }

  const invite = async (as: Session, email: string, role: string) => adminCall(url("/api/operator-invites"), as, { body: { email, role } })
  const tokenOf = (inviteUrl: string) => new URL(inviteUrl).hash.slice(1)

  beforeAll(async () => {
    app = await start(kind)
    org = await app.run(Fixtures.organization({ name: "Nordhavn" }))
    owner = await app.run(operator(org.organizationId))
    ownerSession = await signIn(app.adminUrl, owner)
  })
  afterAll(async () => {
    await app?.dispose()
  })

  describe("roles", () => {
    it("refuses a read-only operator 403 on every mutating console endpoint, and changes nothing", async () => {
      const endpoints = mutatingEndpoints()
      expect(endpoints.length).toBeGreaterThan(40)
      expect(endpoints.map(([group]) => group)).toEqual(expect.arrayContaining(["team", "billing", "booking", "webhooks", "applications"]))
      const { session } = await member("read_only")
      const before = await app.run(auditCount(org.organizationId))
      const answers = await Promise.all(
        endpoints.map(async ([group, name, method, path]) => {
          const answer = await adminCall(url(path), session, { method, body: {} })
          return `${group}.${name} ${method} ${path} → ${answer.status}`
        })
      )
      expect(answers.filter((line) => !line.endsWith("→ 403"))).toEqual([])
      expect(await app.run(auditCount(org.organizationId))).toBe(before)
    })

    it("lets an owner reach the same endpoints (the 403 is the role's, not the request's)", async () => {
      const answers = await Promise.all(
        mutatingEndpoints().map(async ([group, name, method, path]) => {
          const answer = await adminCall(url(path), ownerSession, { method, body: {} })
          return `${group}.${name} → ${answer.status}`
        })
      )
      expect(answers.filter((line) => line.endsWith("→ 403"))).toEqual([])
    })

    it("lets a read-only operator read, and change their own account and session", async () => {
      const { who, session } = await member("read_only")
      expect((await adminCall(url("/api/operators"), session)).status).toBe(200)
      expect((await adminCall(url("/api/account/sessions"), session)).status).toBe(200)
      const changed = await adminCall(url("/api/account/password"), session, {
        method: "PUT",
        body: { currentPassword: who.password, newPassword: "a new long password" }
      })
      expect(changed.status).toBe(204)
      expect((await adminCall(url("/api/session"), session, { method: "DELETE" })).status).toBe(204)
    })

    it("keeps the last owner: neither demoted nor removed, even by themself", async () => {
      const solo = await app.run(Fixtures.organization({ name: "Solo" }))
      const only = await app.run(operator(solo.organizationId))
      const session = await signIn(app.adminUrl, only)
      const demoted = await adminCall(url(`/api/operators/${only.id}/role`), session, { method: "PUT", body: { role: "admin" } })
      expect(demoted.status).toBe(400)
      expect(demoted.body.code).toBe("VALIDATION_FAILED")
      expect(demoted.body.issues).toEqual([{ path: "/role", message: expect.stringContaining("last owner") }])
      const second = await app.run(operator(solo.organizationId, { role: "admin" }))
      const secondSession = await signIn(app.adminUrl, second)
      expect((await adminCall(url(`/api/operators/${only.id}`), secondSession, { method: "DELETE" })).status).toBe(400)
      // An owner made, the first may step down; concurrent demotions of both owners leave one.
      expect((await adminCall(url(`/api/operators/${second.id}/role`), session, { method: "PUT", body: { role: "owner" } })).status).toBe(200)
      const both = await Promise.all([
        adminCall(url(`/api/operators/${only.id}/role`), session, { method: "PUT", body: { role: "admin" } }),
        adminCall(url(`/api/operators/${second.id}/role`), secondSession, { method: "PUT", body: { role: "admin" } })
      ])
      expect(both.map((answer) => answer.status).sort()).toEqual([200, 400])
      const team = await adminCall(url("/api/operators"), session)
      expect(team.body.operators.filter((row: { role: string }) => row.role === "owner")).toHaveLength(1)
    })

    it("an admin changes admins and read-only operators but no owner, and makes none", async () => {
      const { session } = await member("admin")
      const reader = await member("read_only")
      expect((await adminCall(url(`/api/operators/${reader.who.id}/role`), session, { method: "PUT", body: { role: "admin" } })).status).toBe(200)
      expect((await adminCall(url(`/api/operators/${reader.who.id}/role`), session, { method: "PUT", body: { role: "owner" } })).status).toBe(400)
      expect((await adminCall(url(`/api/operators/${owner.id}/role`), session, { method: "PUT", body: { role: "read_only" } })).status).toBe(400)
      expect((await invite(session, "new-owner@example.com", "owner")).status).toBe(400)
      const other = await app.run(Fixtures.organization({ name: "Elsewhere" }))
      const stranger = await app.run(operator(other.organizationId))
      expect((await adminCall(url(`/api/operators/${stranger.id}/role`), session, { method: "PUT", body: { role: "admin" } })).status).toBe(404)
    })

    it("removing an operator ends their sessions and is audited by the remover", async () => {
      const { who, session } = await member("admin")
      expect((await adminCall(url("/api/session"), session)).status).toBe(200)
      expect((await adminCall(url(`/api/operators/${who.id}`), ownerSession, { method: "DELETE" })).status).toBe(204)
      expect((await adminCall(url("/api/session"), session)).status).toBe(401)
      expect((await call(url("/api/session"), { body: { email: who.email, password: who.password } })).status).toBe(401)
      const entries = await app.run(
        Db.query((db) => db.selectFrom("auditLog").selectAll().where("action", "=", "operator.removed").where("targetId", "=", who.id).execute()).pipe(Effect.orDie)
      )
      expect(entries).toMatchObject([{ actorType: "operator", actorId: owner.id, organizationId: org.organizationId }])
      expect((await adminCall(url(`/api/operators/${owner.id}`), ownerSession, { method: "DELETE" })).status).toBe(400)
    })
  })

  describe("invitations", () => {
    it("a link works once: read, accept, sign in with the invited role; then 404", async () => {
      const made = await invite(ownerSession, "New.Person@Example.com", "admin")
      expect(made.status).toBe(201)
      expect(made.body.url).toMatch(new RegExp(`^${app.adminUrl}/invitation#[A-Za-z0-9_-]{43}$`))
      expect(made.body.invite).toMatchObject({ email: "new.person@example.com", role: "admin", invitedBy: owner.email })
      const token = tokenOf(made.body.url)
      const stored = await app.run(Db.query((db) => db.selectFrom("operatorInvites").select("tokenDigest").where("id", "=", made.body.invite.id).executeTakeFirstOrThrow()).pipe(Effect.orDie))
      expect(stored.tokenDigest).not.toContain(token)
      expect(stored.tokenDigest).toMatch(/^[0-9a-f]{64}$/)

      const read = await call(url("/api/invitation"), { body: { token } })
      expect(read.status).toBe(200)
      expect(read.body).toMatchObject({ email: "new.person@example.com", role: "admin", organization: { name: "Nordhavn" } })
      const short = await call(url("/api/invitation/accept"), { body: { token, name: "New Person", password: "short" } })
      expect(short.status).toBe(400)
      expect(short.body.issues).toEqual([{ path: "/password", message: "must be at least 12 characters" }])

      const accepts = await Promise.all(
        Array.from({ length: 10 }, () => call(url("/api/invitation/accept"), { body: { token, name: "New Person", password: "correct horse battery" } }))
      )
      expect(accepts.map((answer) => answer.status).sort()).toEqual([201, ...Array(9).fill(404)])
      expect((await call(url("/api/invitation"), { body: { token } })).status).toBe(404)
      const session = await call(url("/api/session"), { body: { email: "new.person@example.com", password: "correct horse battery" } })
      expect(session.status).toBe(201)
      expect(session.body.operator).toMatchObject({ role: "admin", name: "New Person" })
      expect(await app.run(auditCount(org.organizationId, "operator.invite_accepted"))).toBeGreaterThanOrEqual(1)
    })

    it("an expired or revoked link is 404; a foreign Origin is 403; a read-only operator can't invite", async () => {
      const expired = await invite(ownerSession, "late@example.com", "read_only")
      await app.run(
        Db.query((db) => db.updateTable("operatorInvites").set({ expiresAt: new Date(Date.now() - 1000) }).where("id", "=", expired.body.invite.id).execute()).pipe(Effect.orDie)
      )
      expect((await call(url("/api/invitation/accept"), { body: { token: tokenOf(expired.body.url), name: "Late", password: "correct horse battery" } })).status).toBe(404)

      const revoked = await invite(ownerSession, "revoked@example.com", "read_only")
      expect((await adminCall(url(`/api/operator-invites/${revoked.body.invite.id}`), ownerSession, { method: "DELETE" })).status).toBe(204)
      expect((await adminCall(url(`/api/operator-invites/${revoked.body.invite.id}`), ownerSession, { method: "DELETE" })).status).toBe(404)
      expect((await call(url("/api/invitation"), { body: { token: tokenOf(revoked.body.url) } })).status).toBe(404)

      const open = await invite(ownerSession, "open@example.com", "read_only")
      const foreign = await call(url("/api/invitation"), { body: { token: tokenOf(open.body.url) }, headers: { origin: "https://evil.example" } })
      expect(foreign.status).toBe(403)
      const team = await adminCall(url("/api/operators"), ownerSession)
      expect(team.body.invites.map((row: { email: string }) => row.email)).toEqual(["open@example.com"])

      const { session } = await member("read_only")
      expect((await invite(session, "x@example.com", "read_only")).status).toBe(403)
      expect((await invite(ownerSession, owner.email, "admin")).body.issues).toEqual([{ path: "/email", message: "This address is already on the team." }])
    })
  })

  describe("the operator's own account", () => {
    it("changing the password needs the current one and ends the other sessions", async () => {
      const { who, session } = await member("admin")
      const other = await signIn(app.adminUrl, who)
      const wrong = await adminCall(url("/api/account/password"), session, { method: "PUT", body: { currentPassword: "nope", newPassword: "another long password" } })
      expect(wrong.status).toBe(400)
      expect(wrong.body.issues).toEqual([{ path: "/currentPassword", message: "The password is wrong." }])
      expect((await adminCall(url("/api/session"), other)).status).toBe(200)
      const changed = await adminCall(url("/api/account/password"), session, {
        method: "PUT",
        body: { currentPassword: who.password, newPassword: "another long password" }
      })
      expect(changed.status).toBe(204)
      expect((await adminCall(url("/api/session"), other)).status).toBe(401)
      expect((await adminCall(url("/api/session"), session)).status).toBe(200)
      expect((await call(url("/api/session"), { body: { email: who.email, password: "another long password" } })).status).toBe(201)
      expect(await app.run(auditCount(org.organizationId, "operator.password_changed"))).toBeGreaterThanOrEqual(1)
    })

    it("lists the operator's sessions and ends one, or all others", async () => {
      const { who, session } = await member("read_only")
      const second = await signIn(app.adminUrl, who)
      const third = await signIn(app.adminUrl, who)
      const listed = await adminCall(url("/api/account/sessions"), session)
      expect(listed.body.items).toHaveLength(3)
      expect(listed.body.items.filter((item: { current: boolean }) => item.current)).toHaveLength(1)
      const secondId = (await adminCall(url("/api/account/sessions"), second)).body.items.find((item: { current: boolean }) => item.current).id
      expect((await adminCall(url(`/api/account/sessions/${secondId}`), session, { method: "DELETE" })).status).toBe(204)
      expect((await adminCall(url("/api/session"), second)).status).toBe(401)
      expect((await adminCall(url(`/api/account/sessions/${secondId}`), session, { method: "DELETE" })).status).toBe(404)
      // Another operator's session is not yours to end.
      const ownerSessionId = (await adminCall(url("/api/account/sessions"), ownerSession)).body.items[0].id
      expect((await adminCall(url(`/api/account/sessions/${ownerSessionId}`), session, { method: "DELETE" })).status).toBe(404)
      expect((await adminCall(url("/api/account/sessions"), session, { method: "DELETE" })).status).toBe(204)
      expect((await adminCall(url("/api/session"), third)).status).toBe(401)
      expect((await adminCall(url("/api/account/sessions"), session)).body.items).toHaveLength(1)
    })
  })

  describe("TOTP second factor", () => {
    const enrol = async (session: Session) => {
      const started = await adminCall(url("/api/account/totp"), session, { method: "POST" })
      expect(started.status).toBe(201)
      expect(started.body.uri).toMatch(/^otpauth:\/\/totp\/Propline:.+\?.*secret=/)
      return started.body.secret as string
    }
    const passwordStep = async (who: OperatorFixture) => {
      const answer = await call(url("/api/session"), { body: { email: who.email, password: who.password } })
      expect(answer.status).toBe(201)
      expect(answer.body).toEqual({ secondFactorRequired: true })
      return sessionCookieOf(answer)
    }
    const secondStep = (cookie: string, code: string) => call(url("/api/session/second-factor"), { body: { code }, headers: { cookie } })

    it("enrols with a confirmed code, then signs in with a code of a step not used before; a replay is refused", async () => {
      const { who, session } = await member("admin")
      const secret = await enrol(session)
      const stored = await app.run(Db.query((db) => db.selectFrom("operators").select(["totpPendingEnvelope"]).where("id", "=", who.id).executeTakeFirstOrThrow()).pipe(Effect.orDie))
      expect(stored.totpPendingEnvelope).not.toContain(secret)
      expect((await adminCall(url("/api/account/totp/confirm"), session, { body: { code: "000000" } })).status).toBe(400)
      const now = Date.now()
      const confirmed = await adminCall(url("/api/account/totp/confirm"), session, { body: { code: codeAt(secret, now) } })
      expect(confirmed.status).toBe(200)
      expect(confirmed.body.codes).toHaveLength(10)
      expect(new Set(confirmed.body.codes).size).toBe(10)
      expect((await adminCall(url("/api/account"), session)).body).toMatchObject({ secondFactor: true, recoveryCodesLeft: 10 })

      const cookie = await passwordStep(who)
      // The waiting session authenticates nothing.
      expect((await call(url("/api/session"), { headers: { cookie } })).status).toBe(401)
      // The step the enrolment used is spent: its code is a replay.
      expect((await secondStep(cookie, codeAt(secret, now))).status).toBe(401)
      const next = codeAt(secret, now + 30_000)
      const signedIn = await secondStep(cookie, next)
      expect(signedIn.status).toBe(201)
      expect(signedIn.body.operator.email).toBe(who.email)
      const fresh = sessionCookieOf(signedIn)
      expect(fresh).not.toBe(cookie)
      expect((await call(url("/api/session"), { headers: { cookie: fresh } })).status).toBe(200)
      expect((await call(url("/api/session"), { headers: { cookie } })).status).toBe(401)
      // The same code again, in a new sign-in: refused.
      expect((await secondStep(await passwordStep(who), next)).status).toBe(401)
    })

    it("a recovery code works once; wrong codes are throttled like sign-in", async () => {
      const { who, session } = await member("read_only")
      const secret = await enrol(session)
      const codes: ReadonlyArray<string> = (await adminCall(url("/api/account/totp/confirm"), session, { body: { code: codeAt(secret, Date.now()) } })).body.codes
      const stored = await app.run(Db.query((db) => db.selectFrom("operatorRecoveryCodes").select("codeDigest").where("operatorId", "=", who.id).execute()).pipe(Effect.orDie))
      expect(stored.map((row) => row.codeDigest).some((digest) => codes.some((code) => digest.includes(code)))).toBe(false)

      expect((await secondStep(await passwordStep(who), codes[0]!.toUpperCase())).status).toBe(201)
      expect((await secondStep(await passwordStep(who), codes[0]!)).status).toBe(401)
      const left = await adminCall(url("/api/account"), session)
      expect(left.body.recoveryCodesLeft).toBe(9)

      const cookie = await passwordStep(who)
      // The used recovery code above was this pair's first failure: FREE_FAILURES more, and the next attempt waits.
      for (let failure = 0; failure < FREE_FAILURES; failure++) expect((await secondStep(cookie, "aaaaa-aaaaa")).status).toBe(401)
      const throttled = await secondStep(cookie, codes[1]!)
      expect(throttled.status).toBe(429)
      expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0)
      expect(await app.run(auditCount(org.organizationId, "operator.second_factor_failed"))).toBeGreaterThanOrEqual(FREE_FAILURES)

      // Turning it off needs the password; then sign-in needs no code.
      expect((await adminCall(url("/api/account/totp/disable"), session, { body: { password: "wrong" } })).status).toBe(400)
      expect((await adminCall(url("/api/account/totp/disable"), session, { body: { password: who.password } })).status).toBe(204)
      const plain = await call(url("/api/session"), { body: { email: who.email, password: who.password } })
      expect(plain.body.operator.email).toBe(who.email)
    })
  })
})
