/**
 * The operator's side of signing (decisions 1 and 6; the admin console calls these, and today the demo and the
 * tests do): prepare a contract for signing with its parties, ask for the withdrawal of a live attempt, and read
 * outcomes. An operator acts in a whole organization; every change is audited with the operator as actor.
 */
import { BoundedText } from "@propline/contract/Values"
import * as Lifecycle from "@propline/signing/SigningAttemptLifecycle"
import * as Preparation from "@propline/signing/SigningPreparation"
import { SigningAttemptLive } from "@propline/signing/SigningRefusal"
import { Refusal, type RefusalIssue } from "@propline/refusal/Refusal"
import { Effect, Option, ParseResult, Schema } from "effect"
import { randomUUID } from "node:crypto"
import * as Audit from "../platform/Audit.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { DocumentStorage } from "../storage/DocumentStorage.js"
import { storePdf } from "./PdfStore.js"
import { ContractRepository } from "../tenancy/ContractRepository.js"
import { SigningAttemptRepository } from "./SigningAttemptRepository.js"
import { SigningDocumentRepository } from "./SigningDocumentRepository.js"

const Email = Schema.String.pipe(
  Schema.maxLength(254),
  Schema.pattern(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, { message: () => "must be an e-mail address" })
)

const SignerInput = Schema.Struct({
  name: BoundedText(1, 200),
  email: Email,
  role: Schema.Literal("signatory", "approver", "viewer"),
  signingOrder: Schema.Int.pipe(Schema.between(1, 100))
})

const PartyInput = Schema.Struct({
  kind: Schema.Literal("customer", "organization"),
  signers: Schema.Array(SignerInput).pipe(
    Schema.minItems(1),
    Schema.maxItems(20),
    Schema.filter((signers) =>
      signers.some((signer) => signer.role === "signatory") ? true : "must include at least one signatory"
    )
  )
})

/**
 * What an operator sends to prepare a contract for signing: an optional document `title` (1 to 200 characters;
 * default `Contract <number> – <customer>`) and 1 to 2 `parties` — the customer's party is required — each with 1
 * to 20 signers (name 1 to 200 characters, e-mail, role, signing order 1 to 100), at least one a signatory.
 */
export const PrepareInput = Schema.Struct({
  title: Schema.optional(BoundedText(1, 200)),
  parties: Schema.Array(PartyInput).pipe(
    Schema.minItems(1),
    Schema.maxItems(10),
    Schema.filter((parties) =>
      parties.some((party) => party.kind === "customer") ? true : "must include the customer's party"
    )
  )
})
export type PrepareInput = typeof PrepareInput.Encoded

/**
 * `VALIDATION_FAILED`, 400: the operator's input failed its schema; `issues` has one issue per failing field (JSON
 * Pointer path and message), as every VALIDATION_FAILED answers them (spec 7.1).
 */
export class InvalidInput extends Refusal("InvalidInput", "VALIDATION_FAILED", 400)<{
  readonly issues: ReadonlyArray<RefusalIssue>
}> {}

/** Who acts: an operator of the organization. */
export interface Operator {
  readonly organizationId: string
  readonly operatorId: string
}

const pointer = (path: ReadonlyArray<PropertyKey>) =>
  path.map((segment) => `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")

const decodeInput = (input: unknown) =>
  Schema.decodeUnknown(PrepareInput, { errors: "all" })(input).pipe(
    Effect.mapError(
      (error) =>
        new InvalidInput({
          detail: "The request is not valid; see issues.",
          issues: ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
            path: pointer(issue.path),
            message: issue.message
          }))
        })
    )
  )

const span = (name: string) => Effect.withSpan(`SigningOperatorService.${name}`, { captureStackTrace: false })

export class SigningOperatorService extends Effect.Service<SigningOperatorService>()(
  "@propline/api/signing/SigningOperatorService",
  {
    effect: Effect.gen(function* () {
      const attempts = yield* SigningAttemptRepository
      const documents = yield* SigningDocumentRepository
      const contracts = yield* ContractRepository
      const storage = yield* DocumentStorage

      const actorOf = (operator: Operator) => ({ type: "operator" as const, id: operator.operatorId })

      return {
        /**
         * Prepare a contract for signing: a `queued` attempt with its parties and signers, and the contract rendered
         * as the PDF to sign (stored, SHA-256 recorded). Fails with InvalidInput (the schema), RecordNotFound (no
         * such contract in the organization), or the domain's refusals: CRM_SIGNING_NOT_AVAILABLE,
         * CRM_SIGNING_ATTEMPT_LIVE (409; also when a concurrent preparation won), CRM_SIGNING_PARTY_REPEATED,
         * CRM_SIGNER_ALREADY_ADDED, CRM_SIGNER_NOT_ELIGIBLE.
         */
        prepare: (operator: Operator, contractId: string, input: unknown) =>
          Sql.transaction(
            Effect.gen(function* () {
              const command = yield* decodeInput(input)
              const contract = yield* contracts.lockForSigning(operator.organizationId, contractId)
              if (contract === undefined) return yield* new RecordNotFound({ kind: "contract" })
              const liveAttemptId = yield* attempts.liveAttemptId(contract.id)
              const at = yield* Sql.now
              const state: Preparation.PreparationState = {
                contract: {
                  id: contract.id,
                  organizationId: contract.organizationId,
                  operationalContextId: contract.operationalContextId,
                  contractNumber: contract.contractNumber,
                  status: contract.status,
                  signingStatus: contract.signingStatus,
                  customerKind: contract.customerKind,
                  customerName: contract.customerName,
                  organizationName: contract.organizationName
                },
                ...(liveAttemptId === undefined ? {} : { liveAttemptId })
              }
              const prepared = yield* Preparation.prepare(
                state,
                {
                  attemptId: randomUUID(),
                  title: command.title ?? Preparation.defaultTitle(state.contract),
                  parties: command.parties.map((party) => ({
                    partyId: randomUUID(),
                    kind: party.kind,
                    signers: party.signers.map((signer) => ({ signerId: randomUUID(), ...signer }))
                  }))
                },
                at
              )
              const { attempt } = prepared
              // pdf-lib (~3 MB of heap) is loaded with the first contract, not at start-up.
              const bytes = yield* Effect.promise(async () =>
                (await import("./ContractPdf.js")).renderContractPdf(
                  {
                    title: attempt.title,
                    contractNumber: contract.contractNumber,
                    organizationName: contract.organizationName,
                    operationalContextName: contract.operationalContextName,
                    customer: {
                      name: contract.customerName,
                      customerNumber: contract.customerNumber,
                      kind: contract.customerKind,
                      organisationNumber: contract.organisationNumber
                    },
                    startsOn: contract.startsOn,
                    endsOn: contract.endsOn,
                    currency: contract.currency,
                    paymentTermsDays: contract.paymentTermsDays,
                    lines: contract.lines,
                    parties: attempt.parties
                  },
                  at
                )
              )
              const documentId = yield* storePdf(storage, documents, {
                organizationId: attempt.organizationId,
                kind: "contract",
                key: `${attempt.organizationId}/contracts/${attempt.id}.pdf`,
                fileName: `Contract ${contract.contractNumber}.pdf`,
                bytes,
                at
              })
              yield* attempts.insert(attempt, documentId).pipe(
                Effect.catchTag("LiveAttemptConflict", () =>
                  Effect.flatMap(attempts.liveAttemptId(contract.id), (live) =>
                    Effect.fail(
                      new SigningAttemptLive({
                        contractId: contract.id,
                        liveAttemptId: live ?? "",
                        detail: "The contract already has a live signing attempt; withdraw it or wait for its outcome."
                      })
                    )
                  )
                )
              )
              yield* contracts.setSigningStatus(attempt.contractId, attempt.status, attempt.updatedAt)
              yield* Outbox.append(prepared.events)
              yield* Audit.byActor(operator.organizationId, actorOf(operator), {
                action: "crm.signing_attempt.prepare",
                targetType: "signing_attempt",
                targetId: attempt.id,
                details: { contractId: contract.id, documentId },
                at
              })
              return attempt
            })
          ).pipe(span("prepare")),

        /**
         * Ask for the withdrawal of a live attempt: it leaves the signing queue and joins the withdrawal queue.
         * RecordNotFound, CRM_SIGNING_ATTEMPT_ENDED, or CRM_AGREEMENT_TRANSITION_INVALID when asked already.
         */
        requestWithdrawal: (operator: Operator, attemptId: string) =>
          Sql.transaction(
            Effect.gen(function* () {
              const attempt = yield* attempts.find(operator.organizationId, attemptId, true)
              if (attempt === undefined) return yield* new RecordNotFound({ kind: "signing attempt" })
              const at = yield* Sql.now
              const result = yield* Lifecycle.requestWithdrawal(attempt, at)
              yield* attempts.update(result.attempt)
              yield* contracts.setSigningStatus(result.attempt.contractId, result.attempt.status, result.attempt.updatedAt)
              yield* Outbox.append(result.events)
              yield* Audit.byActor(operator.organizationId, actorOf(operator), {
                action: "crm.signing_attempt.request_withdrawal",
                targetType: "signing_attempt",
                targetId: attempt.id,
                at
              })
              return result.attempt
            })
          ).pipe(span("requestWithdrawal")),

        /**
         * An attempt's outcome, with the stored signed PDF's document (id, size, SHA-256) once it is `signed`.
         * RecordNotFound when the organization has no such attempt.
         */
        outcome: (operator: Operator, attemptId: string) =>
          Effect.gen(function* () {
            const attempt = yield* attempts.find(operator.organizationId, attemptId, false)
            if (attempt === undefined) return yield* new RecordNotFound({ kind: "signing attempt" })
            const signedDocument =
              attempt.signedDocumentUploadId === undefined
                ? undefined
                : yield* documents.documentOfUpload(attempt.signedDocumentUploadId)
            return { attempt, signedDocument }
          }).pipe(span("outcome")),

        /**
         * The bytes of an attempt's PDF: `contract`, the document sent for signature, or `signed`, the signed PDF
         * stored once the attempt is `signed`; with the stored file name, content type (`application/pdf`), size in
         * bytes and SHA-256. RecordNotFound when the organization has no such attempt, the attempt has no such PDF
         * (not signed yet), or the storage lost the bytes. A read: nothing is changed or audited.
         */
        pdf: (operator: Operator, attemptId: string, kind: "contract" | "signed") =>
          Effect.gen(function* () {
            const attempt = yield* attempts.find(operator.organizationId, attemptId, false)
            if (attempt === undefined) return yield* new RecordNotFound({ kind: "signing attempt" })
            const document =
              kind === "contract"
                ? yield* documents.contractDocumentOf(operator.organizationId, attemptId)
                : attempt.signedDocumentUploadId === undefined
                  ? undefined
                  : yield* documents.documentOfUpload(attempt.signedDocumentUploadId)
            if (document === undefined) return yield* new RecordNotFound({ kind: `${kind} PDF` })
            const bytes = yield* storage.get(document.storageKey)
            if (Option.isNone(bytes)) return yield* new RecordNotFound({ kind: `${kind} PDF` })
            return { document, bytes: bytes.value }
          }).pipe(span("pdf")),

        /** Every attempt of a contract of the organization, newest first (its signing history). */
        attemptsOfContract: (operator: Operator, contractId: string) =>
          attempts.ofContract(operator.organizationId, contractId).pipe(span("attemptsOfContract"))
      }
    }),
    dependencies: [
      SigningAttemptRepository.Default,
      SigningDocumentRepository.Default,
      ContractRepository.Default
    ]
  }
) {}
