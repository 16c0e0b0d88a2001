/**
 * The baseline's billing operations (see `BaselineServer.ts`): the statements the API runs for a send-queue page
 * and for a pass, written by hand on a `pg.Pool`, with no token check, no schema and no framework. Each statement
 * mirrors one of the API's (`BillingScopeRepository.scope`, composed of contexts' `visibleContextsPrefix` and
 * integrations' `readyBillingGates`; billing's repositories, `Audit`), with the placeholders numbered as kysely
 * numbers them so the server plans both alike: change them together.
 *
 * - `GET /send-queue?limit=N&cursor=C`: the billing scope, then one page in (approved_at, id) order after the
 *   cursor (the API's cursor format: base64url of `{k, t, i}`); `{ items, nextCursor }` with the rows as pg returns
 *   them, serialized with `JSON.stringify`.
 * - `POST /pass/{proposalId}` with `{"externalReference": "…"}`: one transaction of the statements the API's pass
 *   runs, in its order: the billing scope, the proposal locked, its charges locked, the externalReference check,
 *   the invoice inserted, the lines copied, the charges marked, the proposal updated, three events, one audit
 *   entry; 201 `{ proposal, invoice }`. Only the checks a well-formed benchmark request could fail are made.
 * - `POST /report-payment/{invoiceId}` with `{paymentId, amountMinorUnits, paidOn, currency}`: one transaction of the
 *   statements the API's report-payment runs, in its order: the billing scope, the invoice locked, its payments
 *   (with their reversals) and write-offs read, the payment inserted, the invoice updated (balance, `paid` when it
 *   reaches 0 or less), one event, one audit entry; 200 with the invoice. A payment id already recorded on the
 *   invoice answers the invoice as it is (the API's replay); other refusals are not made.
 */
import { randomUUID } from "node:crypto"
import type { ServerResponse } from "node:http"
import type pg from "pg"

/** `$from, $from+1, …` for `count` parameters: kysely writes `in (…)` lists this way, so the plans match. */
export const placeholders = (from: number, count: number): string =>
  Array.from({ length: count }, (_, index) => `$${from + index}`).join(", ")

export const json = (response: ServerResponse, status: number, body: unknown): void => {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    "cache-control": "no-store"
  })
  response.end(text)
}

/**
 * The billing scope (`BillingScopeRepository.scope`): the contexts visible from the granted ones and the declared
 * gates of the organization's ready billing integrations (null when there is none). Parameters: organization id,
 * the `contextCount` granted context ids, organization id.
 */
export const scopeStatement = (contextCount: number): string => `
    with recursive visible(id) as (
      select id from operational_contexts
      where organization_id = $1 and id in (${placeholders(2, contextCount)})
      union
      select child.id from operational_contexts as child inner join visible on visible.id = child.parent_id
    )
    select
      (select case when count(*) = 0 then null
              else coalesce(array_agg(distinct gate) filter (where gate is not null), '{}'::text[]) end
       from integration_configurations as c left join lateral unnest(c.declared_gates) as gate on true
       where c.organization_id = $${contextCount + 2} and c.kind = 'billing' and c.status = 'ready')
        as declared_gates,
      array(select id from visible) as context_ids`

/**
 * One send-queue page in (approved_at, id) order, after the cursor when `keyset`. Parameters: organization id, the
 * `contextCount` visible context ids, [the cursor's time and id,] limit + 1.
 */
export const sendQueueSql = (contextCount: number, keyset: boolean): string => `
    select *, to_char(approved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at
    from invoices
    where organization_id = $1 and status = 'approved' and operational_context_id in (${placeholders(2, contextCount)})
      and ${keyset ? `(approved_at, id) > ($${contextCount + 2}::timestamptz, $${contextCount + 3}::uuid)` : "true"}
    order by approved_at, id
    limit $${contextCount + (keyset ? 4 : 2)}`

/**
 * The API's cursor after the last row of a page (base64url of `{k, t, i}`), or null when `rows` (the page and one
 * more, as {@link sendQueueSql} reads them) hold no next page.
 */
export const sendQueueCursor = <Row extends { readonly id: string }>(
  rows: ReadonlyArray<Row>,
  limit: number,
  cursorAt: (row: Row) => string
): string | null => {
  const last = rows[Math.min(rows.length, limit) - 1]
  return rows.length > limit && last !== undefined
    ? Buffer.from(JSON.stringify({ k: "send-queue", t: cursorAt(last), i: last.id })).toString("base64url")
    : null
}

interface Scope {
  readonly declared_gates: Array<string> | null
  readonly context_ids: Array<string>
}

type Queryable = Pick<pg.Pool | pg.PoolClient, "query">

export interface BillingBaseline {
  readonly sendQueue: (url: URL, response: ServerResponse) => Promise<void>
  readonly pass: (proposalId: string, body: string, response: ServerResponse) => Promise<void>
  readonly reportPayment: (invoiceId: string, body: string, response: ServerResponse) => Promise<void>
}

/** The handlers for the organization and grant of the demo Application (no token is read). */
export const billingBaseline = (
  pool: pg.Pool,
  organizationId: string,
  grantedContextIds: ReadonlyArray<string>
): BillingBaseline => {
  const scopeSql = scopeStatement(grantedContextIds.length)

  const scope = async (db: Queryable): Promise<Scope | undefined> =>
    (await db.query<Scope>(scopeSql, [organizationId, ...grantedContextIds, organizationId])).rows[0]

  const sendQueue: BillingBaseline["sendQueue"] = async (url, response) => {
    const limitParam = url.searchParams.get("limit")
    const limit = limitParam === null ? 50 : Number(limitParam)
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return json(response, 400, { error: "limit" })
    const cursorParam = url.searchParams.get("cursor")
    let after: { t: string; i: string } | undefined
    if (cursorParam !== null) {
      after = JSON.parse(Buffer.from(cursorParam, "base64url").toString("utf8")) as { t: string; i: string }
    }
    const found = await scope(pool)
    if (found === undefined || found.declared_gates === null) return json(response, 400, { error: "integration" })
    const contextIds = found.context_ids
    const keyset = after === undefined ? [] : [after.t, after.i]
    const rows =
      contextIds.length === 0
        ? []
        : (
            await pool.query<{ id: string; cursor_at: string }>(sendQueueSql(contextIds.length, after !== undefined), [
              organizationId,
              ...contextIds,
              ...keyset,
              limit + 1
            ])
          ).rows
    json(response, 200, { items: rows.slice(0, limit), nextCursor: sendQueueCursor(rows, limit, (row) => row.cursor_at) })
  }

  const lockProposalSql = (contextCount: number) => `
    select * from invoice_proposals
    where id = $1 and organization_id = $2 and operational_context_id in (${placeholders(3, contextCount)})
    for update`

  const pass: BillingBaseline["pass"] = async (proposalId, body, response) => {
    const parsed = JSON.parse(body) as { externalReference?: unknown }
    const externalReference = parsed.externalReference
    if (typeof externalReference !== "string" || externalReference.length === 0 || externalReference.length > 200) {
      return json(response, 400, { error: "externalReference" })
    }
    const client = await pool.connect()
    try {
      await client.query("begin")
      const found = await scope(client)
      if (found === undefined || found.declared_gates === null || !found.declared_gates.includes("verification")) {
        await client.query("rollback")
        return json(response, 400, { error: "integration" })
      }
      const proposal = (
        await client.query<Record<string, unknown> & { id: string; status: string; invoice_number: number | null }>(
          lockProposalSql(found.context_ids.length),
          [proposalId, organizationId, ...found.context_ids]
        )
      ).rows[0]
      if (proposal === undefined || proposal.status !== "proposed" || proposal.invoice_number === null) {
        await client.query("rollback")
        return json(response, proposal === undefined ? 404 : 400, { error: "proposal" })
      }
      const charges = (
        await client.query<{ id: string; invoice_id: string | null }>(
          `select id, invoice_id from charges
           where id in (select charge_id from document_lines where proposal_id = $1 and charge_id is not null)
           for update`,
          [proposalId]
        )
      ).rows
      const taken = await client.query(
        "select id from invoices where organization_id = $1 and external_reference = $2",
        [organizationId, externalReference]
      )
      if (charges.some((charge) => charge.invoice_id !== null) || taken.rows.length > 0) {
        await client.query("rollback")
        return json(response, 409, { error: "conflict" })
      }
      const now = new Date()
      const invoiceId = randomUUID()
      const invoice = {
        id: invoiceId,
        organization_id: organizationId,
        invoice_run_id: proposal["invoice_run_id"],
        operational_context_id: proposal["operational_context_id"],
        contract_id: proposal["contract_id"],
        recipient_agent_id: proposal["recipient_agent_id"],
        recipient_agent_name: proposal["recipient_agent_name"],
        billing_account_id: proposal["billing_account_id"],
        document_kind: proposal["document_kind"],
        credited_invoice_id: proposal["credited_invoice_id"],
        billing_stream: proposal["billing_stream"],
        requested_invoice_date: proposal["requested_invoice_date"],
        requested_due_date: proposal["requested_due_date"],
        payment_terms_days: proposal["payment_terms_days"],
        invoice_number: proposal.invoice_number,
        status: "approved",
        currency: proposal["currency"],
        total_net_minor_units: proposal["total_net_minor_units"],
        total_vat_minor_units: proposal["total_vat_minor_units"],
        total_gross_minor_units: proposal["total_gross_minor_units"],
        external_reference: externalReference,
        issued_invoice_number: null,
        issued_invoice_date: null,
        due_date: null,
        issued_total_gross_minor_units: null,
        payment_reference: null,
        payment_reference_type: null,
        document_url: null,
        balance_minor_units: null,
        sent_at: null,
        paid_at: null,
        written_off_at: null,
        failed_at: null,
        failure_reason: null,
        approved_at: now,
        created_at: now,
        updated_at: now
      }
      const columns = Object.keys(invoice)
      await client.query(
        `insert into invoices (${columns.join(", ")}) values (${placeholders(1, columns.length)})`,
        Object.values(invoice)
      )
      await client.query(
        `insert into document_lines (id, proposal_id, invoice_id, charge_id, position, description, net_minor_units,
                                     vat_rate_basis_points, vat_minor_units, gross_minor_units)
         select gen_random_uuid() as id, $1 as proposal_id, $2 as invoice_id, charge_id, position, description,
                net_minor_units, vat_rate_basis_points, vat_minor_units, gross_minor_units
         from document_lines where proposal_id = $3`,
        [null, invoiceId, proposalId]
      )
      if (charges.length > 0) {
        await client.query(`update charges set invoice_id = $1 where id in (${placeholders(2, charges.length)})`, [
          invoiceId,
          ...charges.map((charge) => charge.id)
        ])
      }
      await client.query(
        `update invoice_proposals set status = $1, external_reference = $2, rejection_reason = $3, passed_at = $4,
                rejected_at = $5, cancelled_at = $6, updated_at = $7, invoice_id = $8
         where id = $9`,
        ["passed", externalReference, null, now, null, null, now, invoiceId, proposalId]
      )
      const context = proposal["operational_context_id"]
      const at = now.toISOString()
      const events = [
        { _tag: "billing.invoice_proposal.passed", proposalId, organizationId, operationalContextId: context, at, invoiceId },
        { _tag: "billing.invoice.created", invoiceId, organizationId, operationalContextId: context, at },
        { _tag: "billing.invoice.approved", invoiceId, organizationId, operationalContextId: context, at }
      ]
      await client.query(
        `insert into events (id, organization_id, type, payload, occurred_at)
         values ($1, $2, $3, $4::text::jsonb, $5), ($6, $7, $8, $9::text::jsonb, $10), ($11, $12, $13, $14::text::jsonb, $15)`,
        events.flatMap((event) => [randomUUID(), organizationId, event._tag, JSON.stringify(event), now])
      )
      await client.query(
        `insert into audit_log (id, organization_id, actor_type, actor_id, action, target_type, target_id, request_id,
                                details, occurred_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
        [
          randomUUID(),
          organizationId,
          "application",
          "baseline",
          "billing.invoice_proposal.pass",
          "invoice_proposal",
          proposalId,
          randomUUID(),
          JSON.stringify({ externalReference, invoiceId }),
          now
        ]
      )
      await client.query("commit")
      json(response, 201, {
        proposal: { ...proposal, status: "passed", external_reference: externalReference, passed_at: now, updated_at: now },
        invoice
      })
    } catch (error) {
      await client.query("rollback").catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  const lockInvoiceSql = (contextCount: number) => `
    select * from invoices
    where id = $1 and organization_id = $2 and operational_context_id in (${placeholders(3, contextCount)})
      and deleted_at is null
    for update`

  const reportPayment: BillingBaseline["reportPayment"] = async (invoiceId, body, response) => {
    const parsed = JSON.parse(body) as { paymentId?: unknown; amountMinorUnits?: unknown; paidOn?: unknown; currency?: unknown }
    const { paymentId, amountMinorUnits, paidOn, currency } = parsed
    if (
      typeof paymentId !== "string" ||
      typeof amountMinorUnits !== "number" ||
      !Number.isSafeInteger(amountMinorUnits) ||
      typeof paidOn !== "string" ||
      typeof currency !== "string"
    ) {
      return json(response, 400, { error: "payment" })
    }
    const client = await pool.connect()
    try {
      await client.query("begin")
      const found = await scope(client)
      const invoice =
        found === undefined
          ? undefined
          : (
              await client.query<Record<string, unknown> & { id: string; status: string; currency: string }>(
                lockInvoiceSql(found.context_ids.length),
                [invoiceId, organizationId, ...found.context_ids]
              )
            ).rows[0]
      if (found === undefined || invoice === undefined || found.declared_gates === null) {
        await client.query("rollback")
        return json(response, invoice === undefined ? 404 : 400, { error: "invoice" })
      }
      const payments = (
        await client.query<{ payment_id: string; amount_minor_units: string; reversed_on: string | null }>(
          `select payments.payment_id, payments.amount_minor_units, payments.paid_on, payments.currency,
                  payments.recorded_at, payment_reversals.reversed_on, payment_reversals.reason,
                  payment_reversals.recorded_at as reversal_recorded_at
           from payments left join payment_reversals on payment_reversals.payment_row_id = payments.id
           where payments.invoice_id = $1 order by payments.recorded_at, payments.id`,
          [invoiceId]
        )
      ).rows
      const writeOffs = (
        await client.query<{ amount_minor_units: string }>(
          `select write_off_id, amount_minor_units, written_off_on, reason, recorded_at
           from write_offs where invoice_id = $1 order by recorded_at, id`,
          [invoiceId]
        )
      ).rows
      if (payments.some((payment) => payment.payment_id === paymentId)) {
        await client.query("commit")
        return json(response, 200, invoice)
      }
      if (!["sent", "paid", "written-off"].includes(invoice.status) || invoice.currency !== currency) {
        await client.query("rollback")
        return json(response, 400, { error: "status" })
      }
      const now = new Date()
      const paid = payments
        .filter((payment) => payment.reversed_on === null)
        .reduce((sum, payment) => sum + Number(payment.amount_minor_units), 0)
      const writtenOff = writeOffs.reduce((sum, writeOff) => sum + Number(writeOff.amount_minor_units), 0)
      const balance = Number(invoice["issued_total_gross_minor_units"]) - paid - amountMinorUnits - writtenOff
      const status = balance <= 0 ? "paid" : invoice.status
      await client.query(
        `insert into payments (id, organization_id, invoice_id, payment_id, amount_minor_units, paid_on, currency, recorded_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [randomUUID(), organizationId, invoiceId, paymentId, amountMinorUnits, paidOn, currency, now]
      )
      const paidAt = status === "paid" && invoice.status !== "paid" ? now : invoice["paid_at"]
      await client.query(
        `update invoices set status = $1, external_reference = $2, issued_invoice_number = $3, issued_invoice_date = $4,
                due_date = $5, issued_total_gross_minor_units = $6, payment_reference = $7, payment_reference_type = $8,
                document_url = $9, balance_minor_units = $10, approved_at = $11, sent_at = $12, paid_at = $13,
                written_off_at = $14, failed_at = $15, failure_reason = $16, updated_at = $17
         where id = $18`,
        [
          status,
          invoice["external_reference"],
          invoice["issued_invoice_number"],
          invoice["issued_invoice_date"],
          invoice["due_date"],
          invoice["issued_total_gross_minor_units"],
          invoice["payment_reference"],
          invoice["payment_reference_type"],
          invoice["document_url"],
          balance,
          invoice["approved_at"],
          invoice["sent_at"],
          paidAt,
          invoice["written_off_at"],
          invoice["failed_at"],
          invoice["failure_reason"],
          now,
          invoiceId
        ]
      )
      const event = {
        _tag: "billing.invoice.payment_recorded",
        invoiceId,
        organizationId,
        operationalContextId: invoice["operational_context_id"],
        at: now.toISOString(),
        paymentId
      }
      await client.query(
        `insert into events (id, organization_id, type, payload, occurred_at)
         values ($1, $2, $3, $4::text::jsonb, $5)`,
        [randomUUID(), organizationId, event._tag, JSON.stringify(event), now]
      )
      await client.query(
        `insert into audit_log (id, organization_id, actor_type, actor_id, action, target_type, target_id, request_id,
                                details, occurred_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9::text::jsonb, $10)`,
        [
          randomUUID(),
          organizationId,
          "application",
          "baseline",
          "billing.invoice.report_payment",
          "invoice",
          invoiceId,
          randomUUID(),
          JSON.stringify({ paymentId, amountMinorUnits, paidOn, currency }),
          now
        ]
      )
      await client.query("commit")
      json(response, 200, { ...invoice, status, balance_minor_units: balance, paid_at: paidAt, updated_at: now })
    } catch (error) {
      await client.query("rollback").catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  return { sendQueue, pass, reportPayment }
}
