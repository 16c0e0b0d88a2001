/**
 * Black-box helpers for the admin host: an operator written into the database (argon2id hash), sign-in over HTTP
 * returning the session cookie and CSRF token, and requests that carry them.
 */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { hashPassword } from "../../src/admin/Passwords.js"
import { call, type Answer } from "./TestApp.js"

export interface OperatorFixture {
  readonly id: string
  readonly organizationId: string
  readonly email: string
  readonly password: string
}

/** An active operator of `organizationId` with a random password (and, unless given, a random address). */
export const operator = (
  organizationId: string,
  options: { readonly email?: string; readonly status?: "active" | "disabled"; readonly role?: "owner" | "admin" | "read_only" } = {}
) =>
  Effect.gen(function* () {
    const id = randomUUID()
    const email = options.email ?? `operator-${id.slice(0, 8)}@example.com`
    const password = `pw-${randomUUID()}`
    const passwordHash = yield* hashPassword(password)
    const at = new Date()
    yield* Db.query((db) =>
      db
        .insertInto("operators")
        .values({
          id,
          organizationId,
          email,
          name: "Test Operator",
          passwordHash,
          status: options.status ?? "active",
          role: options.role ?? "owner",
          createdAt: at,
          updatedAt: at
        })
        .execute()
    )
    return { id, organizationId, email, password } satisfies OperatorFixture
  }).pipe(Effect.orDie)

export interface Session {
  /** `propline_admin_session=…`, ready for a Cookie header. */
  readonly cookie: string
  readonly csrfToken: string
}

/** The session cookie of a Set-Cookie header, as a Cookie header value. */
export const sessionCookieOf = (answer: Answer): string => {
  const header = answer.headers.get("set-cookie") ?? ""
  const match = /propline_admin_session=([^;]*)/.exec(header)
  if (match === null) throw new Error(`no session cookie in ${header}`)
  return `propline_admin_session=${match[1]}`
}

/** Signs in; throws unless 201. */
export const signIn = async (adminUrl: string, who: { readonly email: string; readonly password: string }): Promise<Session> => {
  const answer = await call(`${adminUrl}/api/session`, { body: { email: who.email, password: who.password } })
  if (answer.status !== 201) throw new Error(`sign-in failed: ${answer.status} ${JSON.stringify(answer.body)}`)
  return { cookie: sessionCookieOf(answer), csrfToken: answer.body.csrfToken }
}

/** A request with the session's cookie and, unless `csrf: false`, its CSRF token. */
export const adminCall = (
  url: string,
  session: Session | undefined,
  options: { readonly method?: string; readonly body?: unknown; readonly csrf?: boolean | string; readonly headers?: Record<string, string> } = {}
) => {
  const headers: Record<string, string> = { ...options.headers }
  if (session !== undefined) headers["cookie"] = session.cookie
  if (session !== undefined && options.csrf !== false) {
    headers["x-csrf-token"] = typeof options.csrf === "string" ? options.csrf : session.csrfToken
  }
  return call(url, {
    ...(options.method === undefined ? {} : { method: options.method }),
    ...(options.body === undefined ? {} : { body: options.body }),
    headers
  })
}

/** The number of audit entries of an organization, optionally of one action. */
export const auditCount = (organizationId: string, action?: string) =>
  Db.query((db) => {
    let query = db.selectFrom("auditLog").select((eb) => eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId)
    if (action !== undefined) query = query.where("action", "=", action)
    return query.executeTakeFirstOrThrow()
  }).pipe(
    Effect.orDie,
    Effect.map((row) => Number(row.n))
  )
