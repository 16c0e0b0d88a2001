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

/** Runs `work` on one connection inside a transaction; rolled back when it throws. */
const inTransaction = async <A>(pool: pg.Pool, work: (connection: pg.PoolClient) => Promise<A>): Promise<A> => {
  const connection = await pool.connect()
  try {
    await connection.query("begin")
    const result = await work(connection)
    await connection.query("commit")
    return result
  } catch (error) {
    await connection.query("rollback").catch(() => {})
    throw error
  } finally {
    connection.release()
  }
}

/**
 * Fixtures are written with the foreign-key triggers off (`session_replication_role = replica`, for this
 * transaction only; the benchmark connects as a superuser): every reference is copied from a row that exists, and
 * checking a million of them would add a minute to each run.
 */
const WITHOUT_TRIGGERS = "set local session_replication_role = replica"

/**
 * The contexts a grant sees: the granted ones of the organization and their subtrees (the API's
 * `ContextRepository.visibleContextIds`).
 */
export const visibleContextIds = (pool: pg.Pool, grant: DemoGrant): Promise<Array<string>> =>
  pool
    .query<{ id: string }>(
      `with recursive visible(id) as (
         select id from operational_contexts where organization_id = $1 and id = any($2::uuid[])
         union
         select child.id from operational_contexts as child inner join visible on visible.id = child.parent_id
       )
       select id from visible`,
      [grant.organizationId, grant.contextIds]
    )
    .then(({ rows }) => rows.map((row) => row.id))

/** The next free invoice number of the organization, above every invoice's and every proposal's. */
const nextInvoiceNumber = async (connection: pg.PoolClient, organizationId: string): Promise<number> =>
  Number(
    (
      await connection.query<{ next: string }>(
        `select greatest(
           (select coalesce(max(invoice_number), 0) from invoices where organization_id = $1),
           (select coalesce(max(invoice_number), 0) from invoice_proposals where organization_id = $1)
         ) + 1 as next`,
        [organizationId]
      )
    ).rows[0]?.next ?? 1
  )

/**
 * Copies of invoices, `count` of them, the `$2` templates of organization `$1` taken in turn, numbered from `$3`:
 * `${INVOICE_COPIES} <more columns> ) select ${COPIED_VALUES}, <status>, <more values> ${COPY_SERIES}`.
 */
const INVOICE_COPIES = `
  with template as (
    select t.*, row_number() over (order by t.id) - 1 as k, count(*) over () as n
    from invoices t where t.organization_id = $1 and t.id = any($2::uuid[]) and t.document_kind = 'invoice'
  )
  insert into invoices (
    id, organization_id, invoice_run_id, operational_context_id, contract_id, recipient_agent_id,
    recipient_agent_name, billing_account_id, document_kind, credited_invoice_id, billing_stream,
    requested_invoice_date, requested_due_date, payment_terms_days, invoice_number, currency,
    total_net_minor_units, total_vat_minor_units, total_gross_minor_units, status,`
const COPIED_VALUES = `
  gen_random_uuid(), t.organization_id, t.invoice_run_id, t.operational_context_id, t.contract_id,
  t.recipient_agent_id, t.recipient_agent_name, t.billing_account_id, t.document_kind, null,
  t.billing_stream, t.requested_invoice_date, t.requested_due_date, t.payment_terms_days, $3::bigint + g,
  t.currency, t.total_net_minor_units, t.total_vat_minor_units, t.total_gross_minor_units`
const COPY_SERIES = "from generate_series(0, $5::int - 1) as g join template t on t.k = g % t.n"

/**
 * Fills the send queue to `count` approved invoices: copies of the `templateIds` invoices (taken in turn; an API
 * page of the demo's send queue, so every copy is in a context the demo token sees) with new ids and invoice
 * numbers, no externalReference, and approval times one per half second from `approvedFrom` on, so pairs of
 * invoices share an approval time and the id decides their order, as the keyset cursor must handle. Written with
 * `insert … select generate_series` in one statement. Returns how many approved invoices the organization then has.
 */
export const seedSendQueue = (
  pool: pg.Pool,
  organizationId: string,
  templateIds: ReadonlyArray<string>,
  count: number,
  approvedFrom: Date
): Promise<number> =>
  inTransaction(pool, async (connection) => {
    await connection.query(WITHOUT_TRIGGERS)
    const first = await nextInvoiceNumber(connection, organizationId)
    await connection.query(
      `${INVOICE_COPIES}
         external_reference, approved_at, created_at, updated_at
       )
       select ${COPIED_VALUES}, 'approved', null, $4::timestamptz + (g / 2) * interval '1 second', t.created_at, t.updated_at
       ${COPY_SERIES}`,
      [organizationId, templateIds, first, approvedFrom, count]
    )
    return Number(
      (
        await connection.query<{ count: string }>(
          "select count(*) as count from invoices where organization_id = $1 and status = 'approved'",
          [organizationId]
        )
      ).rows[0]?.count ?? 0
    )
  })

/** A sent invoice a payment can be reported on: its id and the currency the payment must be in. */
export interface PayableInvoice {
  readonly id: string
  readonly currency: string
}

/**
 * Adds `count` sent invoices to report payments on: copies of the `templateIds` invoices (taken in turn; an API page
 * of the demo's send queue, so every copy is in a context the demo token sees) with new ids and invoice numbers,
 * `sent` with their issued fields (issued number and date, due date 30 days on, issued total = gross total, an
 * external reference `BENCH-SENT-<n>`) and a balance of the whole total, no payments. Returns them in no particular
 * order.
 */
export const seedSentInvoices = (
  pool: pg.Pool,
  organizationId: string,
  templateIds: ReadonlyArray<string>,
  count: number,
  sentAt: Date
): Promise<Array<PayableInvoice>> =>
  inTransaction(pool, async (connection) => {
    await connection.query(WITHOUT_TRIGGERS)
    const first = await nextInvoiceNumber(connection, organizationId)
    const { rows } = await connection.query<PayableInvoice>(
      `${INVOICE_COPIES}
         external_reference, issued_invoice_number, issued_invoice_date, due_date, issued_total_gross_minor_units,
         balance_minor_units, approved_at, sent_at, created_at, updated_at
       )
       select ${COPIED_VALUES}, 'sent', 'BENCH-SENT-' || g, 'BENCH-SENT-' || g, $4::date, $4::date + 30,
              t.total_gross_minor_units, t.total_gross_minor_units, $4::timestamptz, $4::timestamptz, t.created_at,
              t.updated_at
       ${COPY_SERIES}
       returning id, currency`,
      [organizationId, templateIds, first, sentAt, count]
    )
    return rows
  })

/**
 * Adds `count` proposals ready to pass: copies of the `templateIds` proposals (taken in turn; `proposed`, with an
 * invoice number, in contexts the demo token sees), each with copies of its template's lines and of the charges
 * behind them (not invoiced), new ids and invoice numbers after every existing one. Returns the new proposals' ids,
 * in no particular order.
 */
export const seedProposals = (
  pool: pg.Pool,
  organizationId: string,
  templateIds: ReadonlyArray<string>,
  count: number
): Promise<Array<string>> =>
  inTransaction(pool, async (connection) => {
    await connection.query(WITHOUT_TRIGGERS)
    const first = await nextInvoiceNumber(connection, organizationId)
    await connection.query(
      `create temporary table bench_proposals on commit drop as
       with template as (
         select t.id, row_number() over (order by t.id) - 1 as k, count(*) over () as n
         from invoice_proposals t
         where t.organization_id = $1 and t.id = any($2::uuid[]) and t.status = 'proposed' and t.invoice_number is not null
       )
       select gen_random_uuid() as id, g, t.id as template_id
       from generate_series(0, $3::int - 1) as g join template t on t.k = g % t.n`,
      [organizationId, templateIds, count]
    )
    await connection.query(
      `insert into invoice_proposals (
         id, organization_id, invoice_run_id, invoice_number, operational_context_id, contract_id, recipient_agent_id,
         recipient_agent_name, billing_account_id, document_kind, credited_invoice_id, billing_stream,
         requested_invoice_date, requested_due_date, payment_terms_days, status, currency, total_net_minor_units,
         total_vat_minor_units, total_gross_minor_units, external_reference, rejection_reason, passed_at, rejected_at,
         cancelled_at, invoice_id, created_at, updated_at
       )
       select p.id, t.organization_id, t.invoice_run_id, $1::bigint + p.g, t.operational_context_id, t.contract_id,
              t.recipient_agent_id, t.recipient_agent_name, t.billing_account_id, t.document_kind, t.credited_invoice_id,
              t.billing_stream, t.requested_invoice_date, t.requested_due_date, t.payment_terms_days, 'proposed',
              t.currency, t.total_net_minor_units, t.total_vat_minor_units, t.total_gross_minor_units, null, null, null,
              null, null, null, t.created_at, t.updated_at
       from bench_proposals p join invoice_proposals t on t.id = p.template_id`,
      [first]
    )
    await connection.query(
      `create temporary table bench_lines on commit drop as
       select gen_random_uuid() as id, p.id as proposal_id, l.id as template_id, l.charge_id as template_charge_id,
              case when l.charge_id is null then null else gen_random_uuid() end as charge_id,
              -- A contract line is charged once per period (charges_contract_line_period_key): each copy's charges
              -- get periods of their own, days from year 1000 on that no other copy's (or the demo's) can take.
              date '1000-01-01' + (p.g * 64 + row_number() over (partition by p.id order by l.id))::int as period_start
       from bench_proposals p join document_lines l on l.proposal_id = p.template_id`
    )
    await connection.query(
      `insert into charges (
         id, organization_id, contract_id, contract_line_id, period_start, period_end, description, net_minor_units,
         vat_rate_basis_points, invoice_id, created_at
       )
       select l.charge_id, c.organization_id, c.contract_id, c.contract_line_id, l.period_start,
              l.period_start + (c.period_end - c.period_start), c.description, c.net_minor_units, c.vat_rate_basis_points, null, c.created_at
       from bench_lines l join charges c on c.id = l.template_charge_id`
    )
    await connection.query(
      `insert into document_lines (
         id, proposal_id, invoice_id, charge_id, position, description, net_minor_units, vat_rate_basis_points,
         vat_minor_units, gross_minor_units
       )
       select l.id, l.proposal_id, null, l.charge_id, t.position, t.description, t.net_minor_units,
              t.vat_rate_basis_points, t.vat_minor_units, t.gross_minor_units
       from bench_lines l join document_lines t on t.id = l.template_id`
    )
    return (await connection.query<{ id: string }>("select id from bench_proposals")).rows.map((row) => row.id)
  })

/**
 * The send-queue position `depth` rows deep: the approval time (as the API's cursor writes it: UTC, microseconds)
 * and id of the `depth`-th approved invoice in the visible contexts, in the queue's order (approval time, then id),
 * and the id of the row after it, where a page after the position starts.
 */
export const sendQueuePosition = (
  pool: pg.Pool,
  organizationId: string,
  contextIds: ReadonlyArray<string>,
  depth: number
): Promise<{ readonly at: string; readonly id: string; readonly nextId: string }> =>
  pool
    .query<{ at: string; id: string; next_id: string | null }>(
      `select to_char(approved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at, id,
              lead(id) over (order by approved_at, id) as next_id
       from invoices
       where organization_id = $1 and status = 'approved' and operational_context_id = any($2::uuid[])
       order by approved_at, id
       offset $3 limit 2`,
      [organizationId, contextIds, depth - 1]
    )
    .then(({ rows }) => {
      const row = rows[0]
      if (row === undefined || row.next_id === null) throw new Error(`the send queue is not ${depth + 1} rows long`)
      return { at: row.at, id: row.id, nextId: row.next_id }
    })

/** A connector app and its installation, copied from the demo connector for the installation-grant benchmark. */
export interface ConnectorInstallation {
  readonly appId: string
  readonly installationId: string
}

/**
 * Adds `count` connector apps, each a copy of the demo connector (`demoAppId`): the same active key (the kid
 * `kid`, so the demo connector's private key signs for every copy), an active installation with the demo
 * installation's organization, roles and contexts. The installation-token grant allows 60 requests per 60 s per
 * app (spec 8), so the benchmark rotates over many. Returns the copies' ids.
 */
export const insertConnectorInstallations = (
  pool: pg.Pool,
  demo: { readonly appId: string; readonly installationId: string; readonly kid: string },
  count: number
): Promise<Array<ConnectorInstallation>> =>
  inTransaction(pool, async (connection) => {
    await connection.query(WITHOUT_TRIGGERS)
    await connection.query(
      `create temporary table bench_connectors on commit drop as
       select 'bench-connector-' || g as app_id, gen_random_uuid() as installation_id
       from generate_series(1, $1::int) as g`,
      [count]
    )
    const { rows } = await connection.query<{ app_id: string; installation_id: string }>(
      "select app_id, installation_id from bench_connectors"
    )
    await connection.query(
      `insert into connector_apps (id, name, setup_url, created_at, updated_at)
       select b.app_id, a.name || ' ' || b.app_id, a.setup_url, a.created_at, a.updated_at
       from bench_connectors b cross join connector_apps a where a.id = $1`,
      [demo.appId]
    )
    await connection.query(
      `insert into connector_app_keys (app_id, kid, public_jwk, status, added_at, retired_at)
       select b.app_id, k.kid, k.public_jwk, 'active', k.added_at, null
       from bench_connectors b cross join connector_app_keys k where k.app_id = $1 and k.kid = $2`,
      [demo.appId, demo.kid]
    )
    await connection.query(
      `insert into installations (id, app_id, organization_id, status, roles, created_at, updated_at, suspended_at, removed_at)
       select b.installation_id, b.app_id, i.organization_id, 'active', i.roles, i.created_at, i.updated_at, null, null
       from bench_connectors b cross join installations i where i.id = $1`,
      [demo.installationId]
    )
    await connection.query(
      `insert into installation_contexts (installation_id, operational_context_id)
       select b.installation_id, c.operational_context_id
       from bench_connectors b cross join installation_contexts c where c.installation_id = $1`,
      [demo.installationId]
    )
    return rows.map((row) => ({ appId: row.app_id, installationId: row.installation_id }))
  })
