/**
 * The lines of invoices and invoice proposals (the schema's `document_lines`: each line is a proposal's or an
 * invoice's), inserted by both repositories.
 */
import type { DraftLine } from "@propline/billing/InvoiceRun"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import * as Sql from "../platform/Sql.js"

/** A line of a new invoice, credit note or proposal: the drafted amounts, its charge or the invoice line it credits. */
export interface NewLine extends DraftLine {
  readonly chargeId?: string | undefined
  readonly creditedLineId?: string | undefined
}

/** Whose lines they are: a proposal's or an invoice's. */
export type LineOwner =
  | { readonly proposalId: string; readonly invoiceId: null }
  | { readonly proposalId: null; readonly invoiceId: string }

/** Inserts `lines` of `owner`, each with a new id, in one statement; `lines` must not be empty. */
export const insertDocumentLines = (owner: LineOwner, lines: ReadonlyArray<NewLine>) =>
  Sql.query((db) =>
    db
      .insertInto("documentLines")
      .values(
        lines.map((line) => ({
          id: randomUUID(),
          proposalId: owner.proposalId,
          invoiceId: owner.invoiceId,
          chargeId: line.chargeId ?? null,
          creditedLineId: line.creditedLineId ?? null,
          position: line.position,
          description: line.description,
          netMinorUnits: line.netMinorUnits,
          vatRateBasisPoints: line.vatRateBasisPoints,
          vatMinorUnits: line.vatMinorUnits,
          grossMinorUnits: line.grossMinorUnits
        }))
      )
      .execute()
  ).pipe(Effect.asVoid)
