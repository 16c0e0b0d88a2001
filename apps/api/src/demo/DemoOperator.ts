/**
 * The demo operator (issue 11): one operator of the demo organization, and `DATA_DIR/demo-operator.json` holding
 * exactly `{"email","password","admin_url"}` (mode 0600), the sign-in whose file the start banner names. The password is
 * stored nowhere else (only its argon2id hash is kept), so the file is what lets a restarted development
 * environment sign in with the same password; when the file is missing or its password no longer matches, a new
 * random password is set (audited) and the file written again.
 *
 * The check runs in one transaction holding the operator's row lock, so instances that start together take turns.
 */
import type * as Db from "@propline/db/Db"
import { INVITE_VALID_DAYS } from "@propline/contract/TeamAdmin"
import { Effect, Layer } from "effect"
import { randomBytes, randomUUID } from "node:crypto"
import { join } from "node:path"
import { hashPassword, verifyPassword } from "../admin/Passwords.js"
import { OperatorInviteRepository } from "../identity/OperatorInviteRepository.js"
import { OperatorRepository } from "../identity/OperatorRepository.js"
import * as Audit from "../platform/Audit.js"
import { sha256Hex } from "../platform/Digest.js"
import * as Sql from "../platform/Sql.js"
import { ensureOwnerOnly, readJsonFile, writePrivateFile } from "./PrivateFile.js"

/** The file's name inside DATA_DIR. */
export const DEMO_OPERATOR_FILE = "demo-operator.json"

/** The demo operator's e-mail address (RFC 2606 reserves `example.com`). */
export const DEMO_OPERATOR_EMAIL = "operator@nordhavn.example.com"

/** The file's content: exactly these keys. */
export interface DemoOperatorFile {
  readonly email: string
  /** The only copy of the password. */
  readonly password: string
  /** The admin console's public address, no trailing slash. */
  readonly admin_url: string
}

export interface DemoOperator extends DemoOperatorFile {
  readonly filePath: string
  /** A single-use invitation link for {@link DEMO_INVITE_EMAIL} (issue 25), or undefined when that address is an operator already. */
  readonly inviteUrl?: string | undefined
}

/** The address the demo's invitation link is for: a teammate of the demo operator, invited as an admin. */
export const DEMO_INVITE_EMAIL = "teammate@nordhavn.example.com"

const SYSTEM_ACTOR = { type: "system", id: "demo-operator" } as const

/** The file's content when it is exactly the three string members; otherwise undefined. */
const parseOperatorFile = (parsed: unknown): DemoOperatorFile | undefined => {
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
  const record = parsed as Record<string, unknown>
  const { email, password, admin_url } = record
  return Object.keys(record).length === 3 && typeof email === "string" && typeof password === "string" && typeof admin_url === "string"
    ? { email, password, admin_url }
    : undefined
}

/** The operator row, locked; made (with a placeholder hash that matches no password) when missing. */
const lockOperator = (organizationId: string, now: Date) =>
  Effect.gen(function* () {
    yield* Sql.query((db) =>
      db
        .insertInto("operators")
        .values({
          id: randomUUID(),
          organizationId,
          email: DEMO_OPERATOR_EMAIL,
          name: "Demo Operator",
          passwordHash: "!",
          status: "active",
          role: "owner",
          createdAt: now,
          updatedAt: now
        })
        .onConflict((oc) => oc.column("email").doNothing())
        .execute()
    )
    return yield* Sql.query((db) =>
      db
        .selectFrom("operators")
        .select(["id", "organizationId", "passwordHash"])
        .where("email", "=", DEMO_OPERATOR_EMAIL)
        .forUpdate()
        .executeTakeFirstOrThrow()
    )
  })

/**
 * A fresh invitation link for {@link DEMO_INVITE_EMAIL} (admin), replacing any open one, so the banner can show a
 * link that works: single-use and valid for `INVITE_VALID_DAYS`, its token's SHA-256 kept. None once the address
 * is an operator.
 */
const demoInvite = (operator: { readonly id: string; readonly organizationId: string }, input: { readonly adminUrl: string; readonly now: Date }) =>
  Effect.gen(function* () {
    const operators = yield* OperatorRepository
    const invites = yield* OperatorInviteRepository
    if (yield* operators.emailTaken(DEMO_INVITE_EMAIL)) return undefined
    yield* invites.revokeFor(operator.organizationId, DEMO_INVITE_EMAIL, input.now)
    const token = randomBytes(32).toString("base64url")
    const id = randomUUID()
    yield* invites.insert({
      id,
      organizationId: operator.organizationId,
      email: DEMO_INVITE_EMAIL,
      role: "admin",
      tokenDigest: sha256Hex(token),
      invitedBy: operator.id,
      now: input.now,
      expiresAt: new Date(input.now.getTime() + INVITE_VALID_DAYS * 24 * 60 * 60 * 1000)
    })
    yield* Audit.byActor(operator.organizationId, SYSTEM_ACTOR, {
      action: "operator.invited",
      targetType: "operator_invite",
      targetId: id,
      at: input.now,
      details: { email: DEMO_INVITE_EMAIL, role: "admin" }
    })
    return `${input.adminUrl}/invitation#${token}`
  }).pipe(Effect.provide(Layer.merge(OperatorRepository.Default, OperatorInviteRepository.Default)))

/**
 * Makes sure the demo operator exists in `organizationId` and `dataDir/demo-operator.json` holds a password that
 * signs it in; returns the file's content and path. Database and file-system failures are defects.
 */
export const ensureDemoOperator = (input: {
  readonly dataDir: string
  readonly adminUrl: string
  readonly organizationId: string
  readonly now: Date
}): Effect.Effect<DemoOperator, never, Db.Db> =>
  Sql.transaction(
    Effect.gen(function* () {
      const operator = yield* lockOperator(input.organizationId, input.now)
      const filePath = join(input.dataDir, DEMO_OPERATOR_FILE)
      const existing = yield* Effect.map(readJsonFile(filePath), parseOperatorFile)
      if (
        existing !== undefined &&
        existing.email === DEMO_OPERATOR_EMAIL &&
        (yield* verifyPassword(operator.passwordHash, existing.password))
      ) {
        if (existing.admin_url !== input.adminUrl) {
          yield* writePrivateFile(input.dataDir, filePath, { ...existing, admin_url: input.adminUrl })
        } else {
          yield* ensureOwnerOnly(filePath)
        }
        const inviteUrl = yield* demoInvite(operator, input)
        return { email: existing.email, password: existing.password, admin_url: input.adminUrl, filePath, inviteUrl }
      }
      const password = randomBytes(18).toString("base64url")
      const passwordHash = yield* hashPassword(password)
      yield* Sql.query((db) =>
        db.updateTable("operators").set({ passwordHash, updatedAt: input.now }).where("id", "=", operator.id).execute()
      )
      yield* Audit.byActor(operator.organizationId, SYSTEM_ACTOR, {
        action: "operator.password_set",
        targetType: "operator",
        targetId: operator.id,
        at: input.now
      })
      const content = { email: DEMO_OPERATOR_EMAIL, password, admin_url: input.adminUrl }
      yield* writePrivateFile(input.dataDir, filePath, content)
      return { ...content, filePath, inviteUrl: yield* demoInvite(operator, input) }
    })
  ).pipe(Effect.withSpan("DemoOperator.ensureDemoOperator", { captureStackTrace: false }))

/**
 * The banner's lines for the admin console: its address, the e-mail address to sign in with, the file the
 * password is in (never the password: start-up output ends up in logs), and the demo's invitation link (issue 25:
 * single-use and expiring, so a copy in a log is worth at most one teammate's sign-up, and only until it is used).
 */
export const printOperatorBanner = (operator: DemoOperator): string =>
  [
    "",
    `  Admin console             ${operator.admin_url}`,
    `    sign in as  ${operator.email}`,
    `    password    in ${operator.filePath} (mode 0600)`,
    ...(operator.inviteUrl === undefined
      ? []
      : [`    invite ${DEMO_INVITE_EMAIL} (admin, single use, ${INVITE_VALID_DAYS} days):`, `      ${operator.inviteUrl}`]),
    ""
  ].join("\n")
