/**
 * The demo Application's credentials on disk: `DATA_DIR/demo-credentials.json`, the interface the README, the
 * harness and the scripts read. It holds exactly `{"client_id","client_secret","auth_url","base_url"}`, mode 0600.
 *
 * The secret itself is stored nowhere else (decisions 3: only its SHA-256 digest is kept), so the file is what
 * lets a restarted development environment keep working with the same credentials. A file whose secret is no
 * longer active (revoked, another database, deleted) is replaced by a fresh secret.
 */
import * as Db from "@propline/db/Db"
import { constantTimeEqual } from "@propline/identity/ClientSecret"
import { Effect } from "effect"
import { join, resolve } from "node:path"
import { MAX_ACTIVE_SECRETS } from "@propline/identity/Application"
import { ApplicationService, secretDigest } from "../identity/ApplicationService.js"
import type { DemoTenant } from "./DemoData.js"
import { ensureOwnerOnly, readJsonFile, writePrivateFile } from "./PrivateFile.js"

/** The file's name inside DATA_DIR. */
export const DEMO_CREDENTIALS_FILE = "demo-credentials.json"

/** The file's content: exactly these four keys (snake_case, as OAuth 2.0 names them). */
export interface DemoCredentialsFile {
  readonly client_id: string
  /** `service_sk_…`; the only copy of the secret. */
  readonly client_secret: string
  /** {auth_url}: the identity host, no trailing slash. */
  readonly auth_url: string
  /** {base_url}: the API host, no trailing slash. */
  readonly base_url: string
}

/** The credentials and where they were written (`filePath` is not part of the file). */
export interface DemoCredentials extends DemoCredentialsFile {
  readonly filePath: string
}

const SYSTEM_ACTOR = { type: "system", id: "demo-credentials" } as const

/** The file's content, or undefined when it is missing, unreadable or not exactly the four string keys. */
const readCredentialsFile = (path: string) =>
  Effect.map(readJsonFile(path), (parsed): DemoCredentialsFile | undefined => {
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
    const record = parsed as Record<string, unknown>
    const keys = ["client_id", "client_secret", "auth_url", "base_url"] as const
    if (Object.keys(record).length !== keys.length || keys.some((key) => typeof record[key] !== "string")) {
      return undefined
    }
    return {
      client_id: record["client_id"] as string,
      client_secret: record["client_secret"] as string,
      auth_url: record["auth_url"] as string,
      base_url: record["base_url"] as string
    }
  })

/** Writes the file (mode 0600, atomically), its keys in the documented order. */
const writeCredentialsFile = (dataDir: string, path: string, content: DemoCredentialsFile) =>
  writePrivateFile(dataDir, path, {
    client_id: content.client_id,
    client_secret: content.client_secret,
    auth_url: content.auth_url,
    base_url: content.base_url
  })

/** Whether `secret` is an active secret of the Application (its digest compared in constant time). */
const isActiveSecret = (applicationId: string, secret: string) =>
  Effect.gen(function* () {
    const active = yield* Db.query((db) =>
      db
        .selectFrom("applicationSecrets")
        .select("secretDigest")
        .where("applicationId", "=", applicationId)
        .where("revokedAt", "is", null)
        .execute()
    )
    const digest = Buffer.from(secretDigest(secret), "hex")
    return active.some((row) => constantTimeEqual(Buffer.from(row.secretDigest, "hex"), digest))
  })

/**
 * A new secret for the demo Application. When it already holds {@link MAX_ACTIVE_SECRETS} active secrets, the
 * oldest is revoked first (audited, actor `system`). Runs in the caller's transaction.
 */
const freshSecret = (applicationId: string) =>
  Effect.gen(function* () {
    const applications = yield* ApplicationService
    const active = yield* Db.query((db) =>
      db
        .selectFrom("applicationSecrets")
        .select("id")
        .where("applicationId", "=", applicationId)
        .where("revokedAt", "is", null)
        .orderBy("createdAt")
        .orderBy("id")
        .execute()
    )
    for (const secret of active.slice(0, Math.max(0, active.length - (MAX_ACTIVE_SECRETS - 1)))) {
      yield* applications.revokeSecret(applicationId, secret.id, SYSTEM_ACTOR).pipe(Effect.orDie)
    }
    return yield* applications.issueSecret(applicationId, SYSTEM_ACTOR).pipe(Effect.orDie)
  })

/**
 * Makes sure `dataDir/demo-credentials.json` holds working credentials of the demo Application `seed`, and
 * returns them with the file's path.
 *
 * - The file exists, names `seed.clientId`, and its secret's digest matches an ACTIVE secret of the Application:
 *   kept; rewritten only when `authUrl` or `baseUrl` changed.
 * - Otherwise (missing, malformed, another client, a revoked or unknown secret): a new secret is issued, revoking
 *   the oldest active one first when the Application holds 2, and the file is written (mode 0600, `dataDir`
 *   created when missing, atomically through a temporary file and a rename).
 *
 * The whole check runs in one transaction holding the Application's row lock, so instances that start together
 * take turns: the first writes the file, the others find it valid and keep it.
 *
 * Database and file-system failures are defects: start-up can't go on without the credentials it announces.
 */
export const ensureDemoCredentials = (input: {
  readonly dataDir: string
  readonly authUrl: string
  readonly baseUrl: string
  readonly seed: Pick<DemoTenant, "applicationId" | "clientId">
}): Effect.Effect<DemoCredentials, never, Db.Db> =>
  Db.transaction(
    Effect.gen(function* () {
      yield* Db.query((db) =>
        db
          .selectFrom("applications")
          .select("id")
          .where("id", "=", input.seed.applicationId)
          .forUpdate()
          .executeTakeFirstOrThrow()
      )
      const filePath = join(input.dataDir, DEMO_CREDENTIALS_FILE)
      const existing = yield* readCredentialsFile(filePath)
      const urls = { auth_url: input.authUrl, base_url: input.baseUrl }
      if (
        existing !== undefined &&
        existing.client_id === input.seed.clientId &&
        (yield* isActiveSecret(input.seed.applicationId, existing.client_secret))
      ) {
        const current = { ...existing, ...urls }
        if (existing.auth_url !== input.authUrl || existing.base_url !== input.baseUrl) {
          yield* writeCredentialsFile(input.dataDir, filePath, current)
        } else {
          yield* ensureOwnerOnly(filePath)
        }
        return { ...current, filePath }
      }
      const { secret } = yield* freshSecret(input.seed.applicationId)
      const content = { client_id: input.seed.clientId, client_secret: secret, ...urls }
      yield* writeCredentialsFile(input.dataDir, filePath, content)
      return { ...content, filePath }
    })
  ).pipe(
    Effect.catchTag("SqlError", Effect.die),
    Effect.provide(ApplicationService.Default),
    Effect.withSpan("DemoCredentials.ensureDemoCredentials")
  )

/**
 * The text the start command prints once the hosts listen: the two hosts, the client_id, the file the secret is in
 * (never the secret: start-up output ends up in logs), and ready-to-paste commands that read the secret from that
 * file for a token (client credentials, HTTP Basic; spec 5.1, 5.2) and for the verification queue.
 */
export const printDemoBanner = (credentials: DemoCredentials): string => {
  const file = JSON.stringify(resolve(credentials.filePath))
  const basic = `"$(node -p 'const c = JSON.parse(require("fs").readFileSync(${file}, "utf8")); c.client_id + ":" + c.client_secret')"`
  const tokenCommand = `curl -s -u ${basic} -d grant_type=client_credentials ${credentials.auth_url}/oauth/token`
  return [
    "",
    "Demo environment ready",
    "",
    `  Identity host (auth_url)  ${credentials.auth_url}   token endpoint ${credentials.auth_url}/oauth/token`,
    `  API host (base_url)       ${credentials.base_url}   reference ${credentials.base_url}/docs`,
    "",
    `  client_id      ${credentials.client_id}`,
    `  client_secret  in ${credentials.filePath} (mode 0600)`,
    "",
    "  Get a token (the command reads the secret from that file):",
    `    ${tokenCommand}`,
    "",
    "  Read the verification queue:",
    `    TOKEN=$(${tokenCommand} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')`,
    `    curl -s -H "Authorization: Bearer $TOKEN" ${credentials.base_url}/v1/billing/verification-queue`,
    ""
  ].join("\n")
}
