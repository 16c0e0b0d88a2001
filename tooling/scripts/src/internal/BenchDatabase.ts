/**
 * The benchmark's PostgreSQL side: a fresh database per run (dropped when the scope closes, also on failure or
 * SIGINT), and the fixtures the product's demo data lacks: many Applications for the token benchmark (the token
 * endpoint allows 60 requests per 60 s per client, spec 8) and enough approved invoices for a full send-queue page.
 */
import { Effect } from "effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import pg from "pg"
import { BenchFailure } from "./ChildProcesses.js"

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]", "::1"])

/** The server's URL, refused unless it names a loopback host (the benchmark touches nothing else). */
export const parseServerUrl = (databaseUrl: string): Effect.Effect<URL, BenchFailure> =>
  Effect.try({
    try: () => new URL(databaseUrl),
    catch: () => new BenchFailure({ message: "DATABASE_URL is not a URL" })
  }).pipe(
    Effect.filterOrFail(
      (url) => (url.protocol === "postgres:" || url.protocol === "postgresql:") && LOOPBACK_HOSTS.has(url.hostname),
      () => new BenchFailure({ message: "DATABASE_URL must be postgres://…@127.0.0.1 (or localhost, [::1])" })
    )
  )

const withClient = <A>(url: URL, use: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5_000 })
  client.on("error", () => {})
  return client.connect().then(
    () => use(client).finally(() => client.end()),
    (error: unknown) => {
      void client.end().catch(() => {})
      throw error
    }
  )
}

/**
 * A fresh database `bench_<timestamp>` on the server `serverUrl` names; the URL of the new database. Dropped
 * (`with (force)`, so connections left open don't block it) when the scope closes.
 */
export const freshDatabase = (serverUrl: URL) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const name = `bench_${Date.now()}`
        await withClient(serverUrl, (client) => client.query(`create database "${name}"`))
        const url = new URL(serverUrl.toString())
        url.pathname = `/${name}`
        return { name, url: url.toString() }
      },
      catch: (error) => new BenchFailure({ message: `could not create the bench database: ${String(error)}` })
    }),
    ({ name }) =>
      Effect.promise(() =>
        withClient(serverUrl, (client) => client.query(`drop database if exists "${name}" with (force)`)).then(
          () => console.error(`dropped database ${name}`),
          (error: unknown) => console.error(`could not drop database ${name}: ${String(error)}`)
        )
      )
  )

/** A pool on the bench database, ended when the scope closes. */
export const benchPool = (url: string) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const pool = new pg.Pool({ connectionString: url, max: 2, connectionTimeoutMillis: 5_000 })
      pool.on("error", () => {})
      return pool
    }),
    (pool) => Effect.promise(() => pool.end())
  )

/** What the demo Application holds, copied to the benchmark's clients so their tokens match the demo token. */
export interface DemoGrant {
  readonly applicationId: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<string>
  readonly contextIds: ReadonlyArray<string>
}

export const readDemoGrant = (pool: pg.Pool, clientId: string): Promise<DemoGrant> =>
  pool
    .query<{ id: string; organization_id: string; roles: Array<string>; contexts: Array<string> }>(
      `select a.id, a.organization_id, a.roles,
              array(select c.operational_context_id from application_contexts c
                    where c.application_id = a.id order by c.operational_context_id) as contexts
       from applications a where a.client_id = $1`,
      [clientId]
    )
    .then(({ rows }) => {
      const row = rows[0]
      if (row === undefined) throw new Error(`no Application with client_id ${clientId}`)
      if (row.contexts.length === 0) throw new Error("the demo Application is granted no context")
      return { applicationId: row.id, organizationId: row.organization_id, roles: row.roles, contextIds: row.contexts }
    })

export interface ClientCredentials {
  readonly clientId: string
  readonly secret: string
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** `service_sk_` + 43 base62 characters: the only shape the identity host looks up (spec 5.2). */
const newSecret = (): string => {
  let body = ""
  while (body.length < 43) {
    for (const byte of randomBytes(64)) {
      // 248 = 4 * 62: bytes above it would favour the first digits.
      if (byte < 248 && body.length < 43) body += BASE62[byte % 62]
    }
  }
  return `service_sk_${body}`
}

/**
 * Inserts `count` active Applications of the demo organization, each with the demo Application's roles and
 * contexts and one active secret, in one transaction. Returns their credentials.
 */
export const insertTokenClients = async (pool: pg.Pool, grant: DemoGrant, count: number): Promise<Array<ClientCredentials>> => {
  const now = new Date()
  const clients = Array.from({ length: count }, (_, index) => ({
    id: randomUUID(),
    clientId: `app_${randomBytes(12).toString("hex")}`,
    name: `Benchmark client ${index + 1}`,
    secretId: randomUUID(),
    secret: newSecret()
  }))
  const connection = await pool.connect()
  try {
    await connection.query("begin")
    await connection.query(
      `insert into applications (id, organization_id, client_id, name, roles, status, disabled_at, created_at, updated_at)
       select t.id, $1, t.client_id, t.name, $2::text[], 'active', null, $3, $3
       from unnest($4::uuid[], $5::text[], $6::text[]) as t(id, client_id, name)`,
      [grant.organizationId, grant.roles, now, clients.map((c) => c.id), clients.map((c) => c.clientId), clients.map((c) => c.name)]
    )
    await connection.query(
      `insert into application_contexts (application_id, operational_context_id)
       select a, c from unnest($1::uuid[]) as a cross join unnest($2::uuid[]) as c`,
      [clients.map((c) => c.id), grant.contextIds]
    )
    await connection.query(
      `insert into application_secrets (id, application_id, secret_digest, last_four, created_at, revoked_at, last_used_at)
       select t.id, t.application_id, t.digest, t.last_four, $1, null, null
       from unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[]) as t(id, application_id, digest, last_four)`,
      [
        now,
        clients.map((c) => c.secretId),
        clients.map((c) => c.id),
        clients.map((c) => createHash("sha256").update(c.secret, "utf8").digest("hex")),
        clients.map((c) => c.secret.slice(-4))
      ]
    )
    await connection.query("commit")
  } catch (error) {
    await connection.query("rollback").catch(() => {})
    throw error
  } finally {
    connection.release()
  }
  return clients.map((c) => ({ clientId: c.clientId, secret: c.secret }))
}

/**
 * Copies the organization's approved invoices (not credit notes, which reference an invoice) with new ids,
 * invoice numbers after the highest one and no externalReference until the send queue holds at least `atLeast` of them, at most 20
 * rounds. The demo data holds about two dozen, less than one page of 50; a benchmark of a half-empty page would
 * flatter both targets. Returns how many approved invoices the organization then has.
 */
export const fillSendQueue = async (pool: pg.Pool, organizationId: string, atLeast: number): Promise<number> => {
  const countApproved = async () =>
    Number(
      (
        await pool.query<{ count: string }>(
          "select count(*) as count from invoices where organization_id = $1 and status = 'approved'",
          [organizationId]
        )
      ).rows[0]?.count ?? 0
    )
  let approved = await countApproved()
  for (let round = 1; round <= 20 && approved < atLeast; round++) {
    const connection = await pool.connect()
    try {
      await connection.query("begin")
      await connection.query(
        `create temporary table bench_copies on commit drop as
         select * from invoices where organization_id = $1 and status = 'approved' and document_kind = 'invoice'`,
        [organizationId]
      )
      await connection.query(
        `update bench_copies as copy
         set invoice_number = numbered.last + numbered.n
         from (select id, row_number() over (order by invoice_number) as n,
                      (select max(invoice_number) from invoices where organization_id = $1) as last
               from bench_copies) as numbered
         where copy.id = numbered.id`,
        [organizationId]
      )
      await connection.query(
        `update bench_copies set id = gen_random_uuid(), external_reference = null,
                approved_at = approved_at + make_interval(secs => $1::int)`,
        [round]
      )
      await connection.query("insert into invoices select * from bench_copies")
      await connection.query("commit")
    } catch (error) {
      await connection.query("rollback").catch(() => {})
      throw error
    } finally {
      connection.release()
    }
    approved = await countApproved()
  }
  return approved
}
