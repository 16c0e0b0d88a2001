/**
 * The baseline's billing operations (see `BaselineServer.ts`): the statements the API runs for a send-queue page
 * and for a pass, written by hand on a `pg.Pool`, with no token check, no schema and no framework. Each statement
 * mirrors one of the API's (`BillingScopeRepository.scope` and `scopeLocking`, composed of contexts'
 * `visibleContextsPrefix` and integrations' `readyBillingGates`; billing's repositories, `Outbox`, `Audit`), with the
 * placeholders numbered as kysely numbers them so the server plans both alike: change them together.
 *
 * - `GET /send-queue?limit=N&cursor=C`: the billing scope, then one page in (approved_at, id) order after the
 *   cursor (the API's cursor format: base64url of `{k, t, i}`); `{ items, nextCursor }` with the rows as pg returns
 *   them, serialized with `JSON.stringify`.
 * - `POST /pass/{proposalId}` with `{"externalReference": "…"}`: one transaction of the statements the API's pass
 *   runs, in its order: the billing scope with the proposal locked, its charges locked with the externalReference
 *   check, one statement writing the invoice, its lines, the charges, the proposal's verdict, three events and one
 *   audit entry (5 round trips with `begin` and `commit`); 201 `{ proposal, invoice }`. Only the checks a
 *   well-formed benchmark request could fail are made.
 * - `POST /report-payment/{invoiceId}` with `{paymentId, amountMinorUnits, paidOn, currency}`: one transaction of the
 *   statements the API's report-payment runs, in its order: the billing scope with the invoice locked, its ledger
 *   (payments with their reversals, and write-offs) in one read, one statement inserting the payment, one event and
 *   one audit entry and updating the invoice (balance, `paid` when it reaches 0 or less) (5 round trips); 200 with
 *   the invoice. A payment id already recorded on the invoice answers the invoice as it is (the API's replay: 4
 *   round trips); other refusals are not made.
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

/** A snake_case column's camelCase name, as the API's rows name it. */
const camel = (column: string): string => column.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase())

/** `column as "camelCase"`, …: a select list as the API's repositories write theirs (`Sql.columns`). */
const aliased = (columns: ReadonlyArray<string>): string =>
  columns.map((column) => `${column} as "${camel(column)}"`).join(", ")

/** The columns invoices and proposals share (`DocumentColumns.ts`). */
const DOCUMENT_COLUMNS = [
  "id", "organization_id", "invoice_run_id", "operational_context_id", "contract_id", "recipient_agent_id",
  "recipient_agent_name", "billing_account_id", "document_kind", "credited_invoice_id", "billing_stream",
  "requested_invoice_date", "requested_due_date", "payment_terms_days", "currency", "total_net_minor_units",
  "total_vat_minor_units", "total_gross_minor_units", "invoice_number", "status", "external_reference", "created_at",
  "updated_at"
]

/** A row a write locks together with its scope (`BillingScopeRepository.LockTarget`); `where` gets its placeholder. */
export interface LockedRow {
  readonly columns: string
  readonly from: string
  readonly where: (placeholder: string) => string
}

/** The proposal `ProposalRepository.lockTarget` names: by id. */
export const LOCKED_PROPOSAL: LockedRow = {
  columns: aliased([...DOCUMENT_COLUMNS, "rejection_reason", "passed_at", "rejected_at", "cancelled_at"]),
  from: "invoice_proposals",
  where: (id) => `id = ${id}`
}

/** The invoice `InvoiceRepository.lockTarget` names: by id, not deleted. */
export const LOCKED_INVOICE: LockedRow = {
  columns: aliased([
    ...DOCUMENT_COLUMNS, "issued_invoice_number", "issued_invoice_date", "due_date", "issued_total_gross_minor_units",
    "payment_reference", "payment_reference_type", "document_url", "balance_minor_units", "approved_at", "sent_at",
    "paid_at", "written_off_at", "failed_at", "failure_reason", "deleted_at"
  ]),
  from: "invoices",
  where: (id) => `id = ${id} and "invoices".deleted_at is null`
}

/**
 * The billing scope with a row locked (`BillingScopeRepository.scopeLocking`): the scope's columns
 * (`declaredGates`, `contextIds`) and the `target` row `for update` if it lies in a visible context (its columns
 * null otherwise), one row. Parameters: organization id, the `contextCount` granted context ids, the target's id,
 * organization id, organization id.
 */
export const scopeLockingStatement = (contextCount: number, target: LockedRow): string => `
    with recursive visible(id) as (
      select id from operational_contexts
      where organization_id = $1
        and id in (${placeholders(2, contextCount)})
      union
      select child.id from operational_contexts as child inner join visible on visible.id = child.parent_id
    ),
    locked as (
      select ${target.columns} from ${target.from}
      where ${target.where(`$${contextCount + 2}`)} and organization_id = $${contextCount + 3}
        and operational_context_id = any (array(select id from visible))
      for update
    )
    select
      (select case when count(*) = 0 then null
              else coalesce(array_agg(distinct gate) filter (where gate is not null), '{}'::text[]) end
       from integration_configurations as c left join lateral unnest(c.declared_gates) as gate on true
       where c.organization_id = $${contextCount + 4} and c.kind = 'billing' and c.status = 'ready') as "declaredGates",
      array(select id from visible) as "contextIds", locked.*
    from (select) as scope left join locked on true`

/**
 * A pass's facts once its proposal is locked (`InvoiceRepository.passFacts`): the charges behind its lines locked,
 * whether one is already invoiced, whether the externalReference is taken. Parameters: proposal id, organization
 * id, externalReference.
 */
export const PASS_FACTS_SQL = `
    with charged as (
      select id, invoice_id from charges
      where id in (select charge_id from document_lines where proposal_id = $1 and charge_id is not null)
      for update
    )
    select array(select id from charged) as "chargeIds",
           exists (select 1 from charged where invoice_id is not null) as "alreadyInvoiced",
           exists (select 1 from invoices where organization_id = $2 and external_reference = $3) as "externalReferenceTaken"`

/** The invoice columns a pass inserts, in the order {@link passWriteStatement} takes their values. */
export const PASSED_INVOICE_COLUMNS = [
  "id", "organization_id", "invoice_run_id", "operational_context_id", "contract_id", "recipient_agent_id",
  "recipient_agent_name", "billing_account_id", "document_kind", "credited_invoice_id", "billing_stream",
  "requested_invoice_date", "requested_due_date", "payment_terms_days", "invoice_number", "status", "currency",
  "total_net_minor_units", "total_vat_minor_units", "total_gross_minor_units", "external_reference", "approved_at",
  "created_at", "updated_at"
] as const

/**
 * `eventCount` events as a CTE of a write (`Outbox.insert` as `Sql.cte("appended", …)`), then its audit entry
 * (`Audit.insertByPrincipal` as `Sql.cte("audited", …)`), placeholders from `$from`. Parameters: per event its id,
 * organization id, type, payload, time; then the audit entry's ten columns in their order, `details` as JSON text.
 * Together {@link eventsAndAuditParameters}.
 */
export const eventsAndAuditCtes = (from: number, eventCount: number): string => {
  const events = Array.from({ length: eventCount }, (_, index) => {
    const at = (offset: number) => `$${from + index * 5 + offset}`
    return `(${at(0)}, ${at(1)}, ${at(2)}, ${at(3)}::text::jsonb, ${at(4)})`
  }).join(", ")
  const audit = from + eventCount * 5
  return `appended as (
      insert into events (id, organization_id, type, payload, occurred_at)
      values ${events}
    ), audited as (
      insert into audit_log (
        id, organization_id, actor_type, actor_id, action, target_type, target_id, request_id, details, occurred_at
      ) values (${placeholders(audit, 9)}::text::jsonb, $${audit + 9})
    )`
}

/** A write's audit entry as the baseline writes it: its action, target and details. */
interface AuditedChange {
  readonly action: string
  readonly targetType: string
  readonly targetId: string
  readonly details: object
}

/** The parameters of {@link eventsAndAuditCtes}: the events (their payloads as JSON text) and the audit entry. */
export const eventsAndAuditParameters = (
  organizationId: string,
  events: ReadonlyArray<{ readonly _tag: string }>,
  change: AuditedChange,
  at: Date
): Array<unknown> => [
  ...events.flatMap((event) => [randomUUID(), organizationId, event._tag, JSON.stringify(event), at]),
  randomUUID(),
  organizationId,
  "application",
  "baseline",
  change.action,
  change.targetType,
  change.targetId,
  randomUUID(),
  JSON.stringify(change.details),
  at
]

/** The events a pass appends (`ProposalVerification.pass`): the proposal passed, the invoice created and approved. */
export const passEvents = (
  organizationId: string,
  proposalId: string,
  invoiceId: string,
  operationalContextId: unknown,
  now: Date
): ReadonlyArray<{ readonly _tag: string; readonly [field: string]: unknown }> => {
  const at = now.toISOString()
  return [
    { _tag: "billing.invoice_proposal.passed", proposalId, organizationId, operationalContextId, at, invoiceId },
    { _tag: "billing.invoice.created", invoiceId, organizationId, operationalContextId, at },
    { _tag: "billing.invoice.approved", invoiceId, organizationId, operationalContextId, at }
  ]
}

/** How many events {@link passEvents} makes. */
export const PASS_EVENT_COUNT = 3

/**
 * A pass's one write (`InvoiceRepository.insertFromProposal` with `ProposalRepository.verdictUpdate`): the invoice
 * inserted, the proposal's lines copied onto it, its `chargeCount` charges marked (no such CTE when 0), its three
 * events and its audit entry ({@link eventsAndAuditCtes}), the proposal's verdict. Parameters: the
 * {@link PASSED_INVOICE_COLUMNS} values, invoice id, proposal id, [invoice id, the charge ids,] the events and audit
 * entry, then status, externalReference, rejection reason, passed at, rejected at, cancelled at, updated at, invoice
 * id, proposal id.
 */
export const passWriteStatement = (chargeCount: number): string => {
  const columns = PASSED_INVOICE_COLUMNS.length
  const charged = chargeCount === 0
    ? ""
    : `, charged as (update charges set invoice_id = $${columns + 3} where id in (${placeholders(columns + 4, chargeCount)}))`
  const also = columns + 3 + (chargeCount === 0 ? 0 : chargeCount + 1)
  const verdict = also + PASS_EVENT_COUNT * 5 + 10
  const at = (offset: number) => `$${verdict + offset}`
  return `
    with invoice as (
      insert into invoices (${PASSED_INVOICE_COLUMNS.join(", ")})
      values (${placeholders(1, columns)})
    ), lines as (
      insert into document_lines (
        id, proposal_id, invoice_id, charge_id, position, description, net_minor_units, vat_rate_basis_points,
        vat_minor_units, gross_minor_units
      )
      select gen_random_uuid(), null, $${columns + 1}, charge_id, position, description, net_minor_units,
             vat_rate_basis_points, vat_minor_units, gross_minor_units
      from document_lines where proposal_id = $${columns + 2}
    )${charged}, ${eventsAndAuditCtes(also, PASS_EVENT_COUNT)}
    update invoice_proposals
    set status = ${at(0)}, external_reference = ${at(1)}, rejection_reason = ${at(2)}, passed_at = ${at(3)},
        rejected_at = ${at(4)}, cancelled_at = ${at(5)}, updated_at = ${at(6)}, invoice_id = ${at(7)}
    where id = ${at(8)}`
}

/**
 * An invoice's ledger in one read (`LedgerRepository.ledger`): payments with their reversals, then write-offs,
 * each in the order recorded. Parameters: invoice id, invoice id.
 */
export const LEDGER_SQL = `
    select false as "writeOff", p.payment_id as "reportId", p.amount_minor_units as "amountMinorUnits",
           p.paid_on as "on", p.currency, p.recorded_at as "recordedAt", r.reversed_on as "reversedOn", r.reason,
           r.recorded_at as "reversalRecordedAt", p.id as "rowId"
    from payments p left join payment_reversals r on r.payment_row_id = p.id
    where p.invoice_id = $1
    union all
    select true, write_off_id, amount_minor_units, written_off_on, null, recorded_at, null, reason, null, id
    from write_offs where invoice_id = $2
    order by "writeOff", "recordedAt", "rowId"`

/**
 * A payment, its event, its audit entry and the invoice it changes in one write (`LedgerRepository.recordPayment`
 * with `InvoiceRepository.invoiceUpdate`). Parameters: payment row id, organization id, invoice id, payment id,
 * amount, paid on, currency, recorded at; the event and the audit entry ({@link eventsAndAuditCtes}, 15); then the
 * invoice's status, external reference, issued number, issued date, due date, issued total, payment reference, its
 * type, document url, balance, approved at, sent at, paid at, written off at, failed at, failure reason, updated at,
 * id.
 */
export const RECORD_PAYMENT_SQL = `
    with recorded as (
      insert into payments (id, organization_id, invoice_id, payment_id, amount_minor_units, paid_on, currency, recorded_at)
      values ($1, $2, $3, $4, $5, $6, $7, $8)
    ), ${eventsAndAuditCtes(9, 1)}
    update invoices set
      status = $24, external_reference = $25, issued_invoice_number = $26, issued_invoice_date = $27, due_date = $28,
      issued_total_gross_minor_units = $29, payment_reference = $30, payment_reference_type = $31, document_url = $32,
      balance_minor_units = $33, approved_at = $34, sent_at = $35, paid_at = $36, written_off_at = $37, failed_at = $38,
      failure_reason = $39, updated_at = $40
    where id = $41`

/**
 * The send queue's page and the billing integration's state in one statement (`BillingScopeRepository
 * .integrationAndPage`): a page in (approved_at, id) order, after the cursor when `keyset`, in the contexts visible from
 * the granted ones, each row with `billing_configured` (a ready billing integration configuration exists) and its place
 * `page_index`; one row of nulls but `billing_configured` when the page is empty. Parameters: organization id, the
 * `contextCount` granted context ids, [the cursor's time and id,] limit + 1.
 */
export const sendQueueWithScopeSql = (contextCount: number, keyset: boolean): string => `
    with recursive visible(id) as (
      select id from operational_contexts
      where organization_id = $1 and id in (${placeholders(2, contextCount)})
      union
      select child.id from operational_contexts as child inner join visible on visible.id = child.parent_id
    ), page as (
      select *, to_char(approved_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as cursor_at,
        row_number() over (order by approved_at, id) as page_index
      from invoices
      where organization_id = $1 and status = 'approved'
        and operational_context_id = any (array(select id from visible))
        and ${keyset ? `(approved_at, id) > ($${contextCount + 2}::timestamptz, $${contextCount + 3}::uuid)` : "true"}
      order by approved_at, id
      limit $${contextCount + (keyset ? 4 : 2)}
    )
    select
      (select count(*) > 0 from integration_configurations as c
       where c.organization_id = $1 and c.kind = 'billing' and c.status = 'ready') as billing_configured,
      page.*
    from (select) as scope left join page on true
    order by page.page_index`

/**
 * The API's cursor after the last row of a page (base64url of `{k, t, i}`), or null when `rows` (the page and one
 * more, as {@link sendQueueWithScopeSql} reads them) hold no next page.
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
  const sendQueue: BillingBaseline["sendQueue"] = async (url, response) => {
    const limitParam = url.searchParams.get("limit")
    const limit = limitParam === null ? 50 : Number(limitParam)
    if (!Number.isInteger(limit) || limit < 1 || limit > 100) return json(response, 400, { error: "limit" })
    const cursorParam = url.searchParams.get("cursor")
    let after: { t: string; i: string } | undefined
    if (cursorParam !== null) {
      after = JSON.parse(Buffer.from(cursorParam, "base64url").toString("utf8")) as { t: string; i: string }
    }
    const keyset = after === undefined ? [] : [after.t, after.i]
    const found = (
      await pool.query<{ billing_configured: boolean; id: string | null; cursor_at: string }>(
        sendQueueWithScopeSql(grantedContextIds.length, after !== undefined),
        [organizationId, ...grantedContextIds, ...keyset, limit + 1]
      )
    ).rows
    if (found[0]?.billing_configured !== true) return json(response, 400, { error: "integration" })
    const rows = found[0].id === null ? [] : (found as ReadonlyArray<{ id: string; cursor_at: string }>)
    json(response, 200, { items: rows.slice(0, limit), nextCursor: sendQueueCursor(rows, limit, (row) => row.cursor_at) })
  }

  type Locked<Row> = { declaredGates: Array<string> | null; contextIds: Array<string> } & { [K in keyof Row]: Row[K] | null }

  /** The scope and the `target` row locked (`scopeLocking`); `row` undefined when none is visible. */
  const scopeLocking = async <Row extends { id: string }>(client: pg.PoolClient, target: LockedRow, id: string) => {
    const found = (
      await client.query<Locked<Row>>(scopeLockingStatement(grantedContextIds.length, target), [
        organizationId,
        ...grantedContextIds,
        id,
        organizationId,
        organizationId
      ])
    ).rows[0]
    if (found === undefined) return { declaredGates: null, row: undefined }
    const { declaredGates, contextIds: _contextIds, ...row } = found
    return { declaredGates, row: row.id === null ? undefined : (row as unknown as Row) }
  }

  type ProposalRow = Record<string, unknown> & { id: string; status: string; invoiceNumber: number | null }

  const pass: BillingBaseline["pass"] = async (proposalId, body, response) => {
    const parsed = JSON.parse(body) as { externalReference?: unknown }
    const externalReference = parsed.externalReference
    if (typeof externalReference !== "string" || externalReference.length === 0 || externalReference.length > 200) {
      return json(response, 400, { error: "externalReference" })
    }
    const client = await pool.connect()
    try {
      await client.query("begin")
      const { declaredGates, row: proposal } = await scopeLocking<ProposalRow>(client, LOCKED_PROPOSAL, proposalId)
      if (declaredGates === null || !declaredGates.includes("verification")) {
        await client.query("rollback")
        return json(response, 400, { error: "integration" })
      }
      if (proposal === undefined || proposal.status !== "proposed" || proposal.invoiceNumber === null) {
        await client.query("rollback")
        return json(response, proposal === undefined ? 404 : 400, { error: "proposal" })
      }
      const facts = (
        await client.query<{ chargeIds: Array<string>; alreadyInvoiced: boolean; externalReferenceTaken: boolean }>(
          PASS_FACTS_SQL,
          [proposalId, organizationId, externalReference]
        )
      ).rows[0]
      if (facts === undefined || facts.alreadyInvoiced || facts.externalReferenceTaken) {
        await client.query("rollback")
        return json(response, 409, { error: "conflict" })
      }
      const now = new Date()
      const invoiceId = randomUUID()
      const inserted = [
        invoiceId,
        organizationId,
        proposal["invoiceRunId"],
        proposal["operationalContextId"],
        proposal["contractId"],
        proposal["recipientAgentId"],
        proposal["recipientAgentName"],
        proposal["billingAccountId"],
        proposal["documentKind"],
        proposal["creditedInvoiceId"],
        proposal["billingStream"],
        proposal["requestedInvoiceDate"],
        proposal["requestedDueDate"],
        proposal["paymentTermsDays"],
        proposal.invoiceNumber,
        "approved",
        proposal["currency"],
        proposal["totalNetMinorUnits"],
        proposal["totalVatMinorUnits"],
        proposal["totalGrossMinorUnits"],
        externalReference,
        now,
        now,
        now
      ]
      const chargeIds = facts.chargeIds
      const events = passEvents(organizationId, proposalId, invoiceId, proposal["operationalContextId"], now)
      const change = {
        action: "billing.invoice_proposal.pass",
        targetType: "invoice_proposal",
        targetId: proposalId,
        details: { externalReference, invoiceId }
      }
      await client.query(passWriteStatement(chargeIds.length), [
        ...inserted,
        invoiceId,
        proposalId,
        ...(chargeIds.length === 0 ? [] : [invoiceId, ...chargeIds]),
        ...eventsAndAuditParameters(organizationId, events, change, now),
        "passed",
        externalReference,
        null,
        now,
        null,
        null,
        now,
        invoiceId,
        proposalId
      ])
      await client.query("commit")
      const invoice: Record<string, unknown> = Object.fromEntries(
        PASSED_INVOICE_COLUMNS.map((column, index) => [camel(column), inserted[index]])
      )
      json(response, 201, {
        proposal: { ...proposal, status: "passed", externalReference, passedAt: now, updatedAt: now },
        invoice
      })
    } catch (error) {
      await client.query("rollback").catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  type InvoiceRow = Record<string, unknown> & { id: string; status: string; currency: string }

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
      const { declaredGates, row: invoice } = await scopeLocking<InvoiceRow>(client, LOCKED_INVOICE, invoiceId)
      if (invoice === undefined || declaredGates === null) {
        await client.query("rollback")
        return json(response, invoice === undefined ? 404 : 400, { error: "invoice" })
      }
      const ledger = (
        await client.query<{ writeOff: boolean; reportId: string; amountMinorUnits: string; reversedOn: string | null }>(
          LEDGER_SQL,
          [invoiceId, invoiceId]
        )
      ).rows
      if (ledger.some((entry) => !entry.writeOff && entry.reportId === paymentId)) {
        await client.query("commit")
        return json(response, 200, invoice)
      }
      if (!["sent", "paid", "written-off"].includes(invoice.status) || invoice.currency !== currency) {
        await client.query("rollback")
        return json(response, 400, { error: "status" })
      }
      const now = new Date()
      const settled = ledger
        .filter((entry) => entry.writeOff || entry.reversedOn === null)
        .reduce((sum, entry) => sum + Number(entry.amountMinorUnits), 0)
      const balance = Number(invoice["issuedTotalGrossMinorUnits"]) - settled - amountMinorUnits
      const status = balance <= 0 ? "paid" : invoice.status
      const paidAt = status === "paid" && invoice.status !== "paid" ? now : invoice["paidAt"]
      const event = {
        _tag: "billing.invoice.payment_recorded",
        invoiceId,
        organizationId,
        operationalContextId: invoice["operationalContextId"],
        at: now.toISOString(),
        paymentId
      }
      const change = {
        action: "billing.invoice.report_payment",
        targetType: "invoice",
        targetId: invoiceId,
        details: { paymentId, amountMinorUnits, paidOn, currency }
      }
      await client.query(RECORD_PAYMENT_SQL, [
        randomUUID(),
        organizationId,
        invoiceId,
        paymentId,
        amountMinorUnits,
        paidOn,
        currency,
        now,
        ...eventsAndAuditParameters(organizationId, [event], change, now),
        status,
        invoice["externalReference"],
        invoice["issuedInvoiceNumber"],
        invoice["issuedInvoiceDate"],
        invoice["dueDate"],
        invoice["issuedTotalGrossMinorUnits"],
        invoice["paymentReference"],
        invoice["paymentReferenceType"],
        invoice["documentUrl"],
        balance,
        invoice["approvedAt"],
        invoice["sentAt"],
        paidAt,
        invoice["writtenOffAt"],
        invoice["failedAt"],
        invoice["failureReason"],
        now,
        invoiceId
      ])
      await client.query("commit")
      json(response, 200, { ...invoice, status, balanceMinorUnits: balance, paidAt, updatedAt: now })
    } catch (error) {
      await client.query("rollback").catch(() => {})
      throw error
    } finally {
      client.release()
    }
  }

  return { sendQueue, pass, reportPayment }
}
