/**
 * SQL of stored signing documents (the contract PDF sent for signature, the signed PDF that came back) and of the
 * upload addresses given for signed PDFs. Uploads map to `@propline/signing`'s SignedDocumentUpload.
 */
import type { SignedDocumentUploadTable, SigningDocumentTable } from "@propline/db/Database"
import type { SignedDocumentUpload } from "@propline/signing/SignedDocumentUpload"
import { Effect } from "effect"
import type { Insertable, Selectable } from "kysely"
import { withoutNulls } from "../platform/Rows.js"
import * as Sql from "../platform/Sql.js"

const toUpload = (row: Selectable<SignedDocumentUploadTable>): SignedDocumentUpload => {
  const { documentId: _documentId, signingAttemptId, ...fields } = withoutNulls(row)
  return { ...fields, attemptId: signingAttemptId } as SignedDocumentUpload
}

export class SigningDocumentRepository extends Effect.Service<SigningDocumentRepository>()(
  "@propline/api/signing/SigningDocumentRepository",
  {
    succeed: {
      /** Records a stored document. */
      insertDocument: (document: Insertable<SigningDocumentTable>) =>
        Sql.query((db) => db.insertInto("signingDocuments").values(document).execute()).pipe(Effect.asVoid),

      /** A stored document by id, in any organization (a signed download address names it). */
      findDocument: (id: string) =>
        Sql.query((db) => db.selectFrom("signingDocuments").selectAll().where("id", "=", id).executeTakeFirst()),

      /** The contract PDF an attempt of the organization sent for signature, or undefined (no such attempt there). */
      contractDocumentOf: (organizationId: string, attemptId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("signingAttempts")
            .innerJoin("signingDocuments", "signingDocuments.id", "signingAttempts.documentId")
            .selectAll("signingDocuments")
            .where("signingAttempts.id", "=", attemptId)
            .where("signingAttempts.organizationId", "=", organizationId)
            .executeTakeFirst()
        ),

      /** The signed PDF an upload stored, if any. */
      documentOfUpload: (uploadId: string) =>
        Sql.query((db) =>
          db
            .selectFrom("signedDocumentUploads")
            .innerJoin("signingDocuments", "signingDocuments.id", "signedDocumentUploads.documentId")
            .selectAll("signingDocuments")
            .where("signedDocumentUploads.id", "=", uploadId)
            .executeTakeFirst()
        ),

      /** Records a new upload address. */
      insertUpload: (upload: SignedDocumentUpload) =>
        Sql.query((db) =>
          db
            .insertInto("signedDocumentUploads")
            .values({
              id: upload.id,
              organizationId: upload.organizationId,
              signingAttemptId: upload.attemptId,
              declaredSizeBytes: upload.declaredSizeBytes,
              declaredSha256: upload.declaredSha256,
              status: upload.status,
              documentId: null,
              expiresAt: upload.expiresAt,
              createdAt: upload.createdAt,
              storedAt: null
            })
            .execute()
        ).pipe(Effect.asVoid),

      /**
       * An upload by id (any organization: the signed address names it), locked for the transaction when `lock`,
       * so two bodies sent to one address are received one after the other.
       */
      findUpload: (id: string, lock: boolean) =>
        Sql.query((db) => {
          const query = db.selectFrom("signedDocumentUploads").selectAll().where("id", "=", id)
          return (lock ? query.forUpdate() : query).executeTakeFirst()
        }).pipe(Effect.map((row) => (row === undefined ? undefined : toUpload(row)))),

      /** An upload of the organization by id, or undefined. */
      findUploadOf: (organizationId: string, id: string) =>
        Sql.query((db) =>
          db
            .selectFrom("signedDocumentUploads")
            .selectAll()
            .where("id", "=", id)
            .where("organizationId", "=", organizationId)
            .executeTakeFirst()
        ).pipe(Effect.map((row) => (row === undefined ? undefined : toUpload(row)))),

      /** Marks an upload stored, with the document its PDF became. */
      markStored: (upload: SignedDocumentUpload, documentId: string) =>
        Sql.query((db) =>
          db
            .updateTable("signedDocumentUploads")
            .set({ status: "stored", documentId, storedAt: upload.storedAt ?? null })
            .where("id", "=", upload.id)
            .execute()
        ).pipe(Effect.asVoid)
    }
  }
) {}
