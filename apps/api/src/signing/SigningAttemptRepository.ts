/**
 * SQL of signing attempts with their parties and signers (spec 4.2, decisions 6): the two queues, locking one for
 * a report, inserting a prepared one, and writing its outcome. Rows map to `@propline/signing`'s
 * SigningAttemptRecord (null columns become absent fields). The contract's signing status, which follows its newest
 * attempt, is tenancy's: the services write it with every change through `tenancy/ContractRepository.ts`.
 */
import type { Database, SigningAttemptTable, SigningDocumentTable } from "@propline/db/Database"
import type { SigningAttemptRecord, SigningParty } from "@propline/signing/SigningAttempt"
import { Data, Effect } from "effect"
import type { Kysely, Selectable } from "kysely"
import { withVisibleContexts } from "../contexts/ContextRepository.js"
import * as CursorPage from "../platform/CursorPage.js"
import { nullable, withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"
import { contractNumberOf } from "../tenancy/ContractRepository.js"

/** Another preparation of the contract won the race: the one-live-attempt index decided. */
export class LiveAttemptConflict extends Data.TaggedError("LiveAttemptConflict") {}

/** A queue item's rows: the attempt, its contract's number and the document to sign. */
export interface SigningQueueRow {
  readonly attempt: SigningAttemptRecord
  readonly contractNumber: string
  readonly document: Selectable<SigningDocumentTable>
}

type AttemptRow = Selectable<SigningAttemptTable>

const partiesOf = async (db: Kysely<Database>, attemptIds: ReadonlyArray<string>) => {
  const byAttempt = new Map<string, Array<SigningParty>>()
  if (attemptIds.length === 0) return byAttempt
  const parties = await db
    .selectFrom("signingParties")
    .selectAll()
    .where("signingAttemptId", "in", attemptIds)
    .orderBy("signingAttemptId")
    .orderBy("position")
    .execute()
  const signers = await db
    .selectFrom("signingSigners")
    .selectAll()
    .where("signingAttemptId", "in", attemptIds)
    .orderBy("signingPartyId")
    .orderBy("position")
    .execute()
  for (const party of parties) {
    const list = byAttempt.get(party.signingAttemptId) ?? []
    list.push({
      id: party.id,
      kind: party.kind,
      name: party.name,
      signers: signers
        .filter((signer) => signer.signingPartyId === party.id)
        .map((signer) => ({
          id: signer.id,
          name: signer.name,
          email: signer.email,
          role: signer.role,
          signingOrder: signer.signingOrder
        }))
    })
    byAttempt.set(party.signingAttemptId, list)
  }
  return byAttempt
}

const toAttempt = (row: AttemptRow, parties: ReadonlyArray<SigningParty>): SigningAttemptRecord => {
  const { documentId: _documentId, ...fields } = withoutNulls(row)
  return { ...fields, parties } as SigningAttemptRecord
}

const withParties = async (db: Kysely<Database>, rows: ReadonlyArray<AttemptRow>) => {
  const parties = await partiesOf(
    db,
    rows.map((row) => row.id)
  )
  return rows.map((row) => toAttempt(row, parties.get(row.id) ?? []))
}

const outcomeColumns = (attempt: SigningAttemptRecord) => ({
  status: attempt.status,
  providerDocumentId: nullable(attempt.providerDocumentId),
  withdrawalRequestedAt: nullable(attempt.withdrawalRequestedAt),
  declinedByPartyId: nullable(attempt.declinedByPartyId),
  declineReason: nullable(attempt.declineReason),
  failureReason: nullable(attempt.failureReason),
  signedDocumentUploadId: nullable(attempt.signedDocumentUploadId),
  startedAt: nullable(attempt.startedAt),
  signedAt: nullable(attempt.signedAt),
  declinedAt: nullable(attempt.declinedAt),
  expiredAt: nullable(attempt.expiredAt),
  failedAt: nullable(attempt.failedAt),
  withdrawnAt: nullable(attempt.withdrawnAt),
  updatedAt: attempt.updatedAt
})

export class SigningAttemptRepository extends Effect.Service<SigningAttemptRepository>()(
  "@propline/api/signing/SigningAttemptRepository",
  {
    succeed: {
      /**
       * The signing queue: attempts `queued` with no withdrawal asked for, in the contexts a grant sees, oldest
       * first, after `after`; `limit + 1` rows, each with its contract's number and the document to sign.
       */
      signingQueue: (
        organizationId: string,
        grantedIds: ReadonlyArray<string>,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        Sql.query(async (db) => {
          let query = withVisibleContexts(db, organizationId, grantedIds)
            .selectFrom("signingAttempts")
            .innerJoin("signingDocuments", "signingDocuments.id", "signingAttempts.documentId")
            .selectAll("signingAttempts")
            .select([
              contractNumberOf("signing_attempts.contract_id").as("contractNumber"),
              "signingDocuments.storageKey as documentStorageKey",
              "signingDocuments.fileName as documentFileName",
              "signingDocuments.contentType as documentContentType",
              "signingDocuments.sizeBytes as documentSizeBytes",
              "signingDocuments.sha256 as documentSha256",
              "signingDocuments.kind as documentKind",
              "signingDocuments.createdAt as documentCreatedAt"
            ])
            .select(CursorPage.sortKey("signingAttempts.queuedAt").as("cursorAt"))
            .where("signingAttempts.organizationId", "=", organizationId)
            .where("signingAttempts.status", "=", "queued")
            .where("signingAttempts.withdrawalRequestedAt", "is", null)
            .where("signingAttempts.operationalContextId", "in", (qb) => qb.selectFrom("visible").select("visible.id"))
          if (after !== undefined) {
            query = query.where(CursorPage.after("signingAttempts.queuedAt", "signingAttempts.id", after))
          }
          const rows = await query
            .orderBy("signingAttempts.queuedAt")
            .orderBy("signingAttempts.id")
            .limit(limit + 1)
            .execute()
          const parties = await partiesOf(
            db,
            rows.map((row) => row.id)
          )
          return rows.map(
            ({
              contractNumber,
              cursorAt,
              documentContentType,
              documentCreatedAt,
              documentFileName,
              documentKind,
              documentSha256,
              documentSizeBytes,
              documentStorageKey,
              ...row
            }): CursorPage.Keyed<SigningQueueRow> => ({
              record: {
                attempt: toAttempt(row, parties.get(row.id) ?? []),
                contractNumber,
                document: {
                  id: row.documentId,
                  organizationId: row.organizationId,
                  kind: documentKind,
                  storageKey: documentStorageKey,
                  fileName: documentFileName,
                  contentType: documentContentType,
                  sizeBytes: documentSizeBytes,
                  sha256: documentSha256,
                  createdAt: documentCreatedAt
                }
              },
              position: { at: cursorAt, id: row.id }
            })
          )
        }),

      /**
       * The withdrawal queue: live attempts whose withdrawal was asked for, in the contexts a grant sees, oldest
       * request first, after `after`; `limit + 1` rows.
       */
      withdrawalQueue: (
        organizationId: string,
        grantedIds: ReadonlyArray<string>,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        Sql.query((db) => {
          let query = withVisibleContexts(db, organizationId, grantedIds)
            .selectFrom("signingAttempts")
            .selectAll("signingAttempts")
            .select(CursorPage.sortKey("signingAttempts.withdrawalRequestedAt").as("cursorAt"))
            .where("signingAttempts.organizationId", "=", organizationId)
            .where("signingAttempts.status", "in", ["queued", "started"])
            .where("signingAttempts.withdrawalRequestedAt", "is not", null)
            .where("signingAttempts.operationalContextId", "in", (qb) => qb.selectFrom("visible").select("visible.id"))
          if (after !== undefined) {
            query = query.where(
              CursorPage.after("signingAttempts.withdrawalRequestedAt", "signingAttempts.id", after)
            )
          }
          return query
            .orderBy("signingAttempts.withdrawalRequestedAt")
            .orderBy("signingAttempts.id")
            .limit(limit + 1)
            .execute()
        }).pipe(
          Effect.map((rows) =>
            rows.map(({ cursorAt, ...row }) => ({ record: toAttempt(row, []), position: { at: cursorAt, id: row.id } }))
          )
        ),

      /**
       * An attempt of the organization in the contexts a grant sees, locked for the rest of the transaction so
       * concurrent reports on it run one after another; undefined when it doesn't exist or can't be seen.
       */
      lockVisible: (organizationId: string, grantedIds: ReadonlyArray<string>, id: string) =>
        Sql.query(async (db) => {
          const row = await withVisibleContexts(db, organizationId, grantedIds)
            .selectFrom("signingAttempts")
            .selectAll("signingAttempts")
            .where("signingAttempts.id", "=", id)
            .where("signingAttempts.organizationId", "=", organizationId)
            .where("signingAttempts.operationalContextId", "in", (qb) => qb.selectFrom("visible").select("visible.id"))
            .forUpdate("signingAttempts")
            .executeTakeFirst()
          return row === undefined ? undefined : (await withParties(db, [row]))[0]
        }),

      /** An attempt of the organization (an operator sees all its contexts), locked when `lock` is true. */
      find: (organizationId: string, id: string, lock: boolean) =>
        Sql.query(async (db) => {
          let query = db
            .selectFrom("signingAttempts")
            .selectAll()
            .where("id", "=", id)
            .where("organizationId", "=", organizationId)
          if (lock) query = query.forUpdate()
          const row = await query.executeTakeFirst()
          return row === undefined ? undefined : (await withParties(db, [row]))[0]
        }),

      /** The attempts of a contract of the organization, newest first. */
      ofContract: (organizationId: string, contractId: string) =>
        Sql.query(async (db) =>
          withParties(
            db,
            await db
              .selectFrom("signingAttempts")
              .selectAll()
              .where("organizationId", "=", organizationId)
              .where("contractId", "=", contractId)
              .orderBy("queuedAt", "desc")
              .orderBy("id", "desc")
              .execute()
          )
        ),

      /** The id of the contract's live attempt, if it has one. */
      liveAttemptId: (contractId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("signingAttempts")
            .select("id")
            .where("contractId", "=", contractId)
            .where("status", "in", ["queued", "started"])
            .executeTakeFirst()
        ).pipe(Effect.map((row) => row?.id)),

      /**
       * Inserts a prepared attempt with its parties and signers and the contract PDF it sends. Fails with {@link LiveAttemptConflict} when a concurrent preparation queued one first.
       */
      insert: (attempt: SigningAttemptRecord, documentId: string) =>
        Effect.gen(function* () {
          yield* Sql.catchUniqueViolation(
            (db) =>
              db
                .insertInto("signingAttempts")
                .values({
                  id: attempt.id,
                  organizationId: attempt.organizationId,
                  operationalContextId: attempt.operationalContextId,
                  contractId: attempt.contractId,
                  title: attempt.title,
                  documentId,
                  queuedAt: attempt.queuedAt,
                  ...outcomeColumns(attempt)
                })
                .execute(),
            "signing_attempts_one_live_per_contract",
            () => new LiveAttemptConflict()
          )
          yield* Sql.query(async (db) => {
            await db
              .insertInto("signingParties")
              .values(
                attempt.parties.map((party, position) => ({
                  id: party.id,
                  signingAttemptId: attempt.id,
                  position,
                  kind: party.kind,
                  name: party.name
                }))
              )
              .execute()
            await db
              .insertInto("signingSigners")
              .values(
                attempt.parties.flatMap((party) =>
                  party.signers.map((signer, position) => ({
                    id: signer.id,
                    signingAttemptId: attempt.id,
                    signingPartyId: party.id,
                    position,
                    name: signer.name,
                    email: signer.email,
                    role: signer.role,
                    signingOrder: signer.signingOrder
                  }))
                )
              )
              .execute()
          })
        }),

      /** Writes an attempt's outcome columns. */
      update: (attempt: SigningAttemptRecord) =>
        Sql.query(async (db) => {
          await db.updateTable("signingAttempts").set(outcomeColumns(attempt)).where("id", "=", attempt.id).execute()
        })
    }
  }
) {}
