/**
 * The signing demo (issue 9, item 5): Nordhavn's contracts waiting in the signing queue with their signers, one
 * attempt out for signature (`started`), and one of each live status waiting for withdrawal, so the example
 * signing connector and the harness find work: read the queue, download the PDF, report started, upload the
 * signed PDF, report signed, and answer the withdrawal queue.
 *
 * Seeded through the operator's own service (the contract rendered and stored as it would be for a real
 * operator), once: when the demo organization has no signing attempt yet, under an advisory lock so instances
 * that start together seed once. A database seeded before signing existed gets its signing demo on next start.
 */
import * as Lifecycle from "@propline/signing/SigningAttemptLifecycle"
import { Effect } from "effect"
import { sql } from "kysely"
import * as Audit from "../../platform/Audit.js"
import * as Outbox from "../../platform/Outbox.js"
import * as Sql from "../../platform/Sql.js"
import { SigningAttemptRepository } from "../../signing/SigningAttemptRepository.js"
import { ContractRepository } from "../../tenancy/ContractRepository.js"
import { SigningOperatorService } from "../../signing/SigningOperatorService.js"
import { DEMO_IDS, demoId } from "../DemoIds.js"

/** Key of the advisory lock that serializes signing-demo seeding ("sign" in ASCII). */
export const DEMO_SIGNING_LOCK_KEY = 0x7369676e

/** What each demo attempt becomes. */
type Stage = "queued" | "started" | "queued-withdrawal" | "started-withdrawal"

interface DemoAttemptSpec {
  /** The customer key of the contract (`contract:nordhavn:<key>`). */
  readonly customer: string
  readonly signer: { readonly name: string; readonly email: string }
  readonly stage: Stage
}

/** The operator's own signatory, the second to sign every demo contract. */
export const DEMO_OPERATOR_SIGNER = { name: "Maja Holm", email: "maja.holm@nordhavn.example" } as const

const ATTEMPTS: ReadonlyArray<DemoAttemptSpec> = [
  { customer: "SE-10", signer: { name: "Jonas Ek", email: "jonas.ek@gothafintech.example" }, stage: "queued" },
  { customer: "NO-10", signer: { name: "Ingrid Lie", email: "ingrid.lie@kystlinje.example" }, stage: "queued" },
  { customer: "SE-02", signer: { name: "Sara Lund", email: "sara.lund@saltsjodata.example" }, stage: "queued" },
  { customer: "SE-07", signer: { name: "Elin Sandberg", email: "elin.sandberg@post.example" }, stage: "queued" },
  { customer: "NO-02", signer: { name: "Per Dahl", email: "per.dahl@nordlys.example" }, stage: "queued" },
  { customer: "SE-09", signer: { name: "Ali Nasser", email: "ali.nasser@hisingendesign.example" }, stage: "queued" },
  { customer: "SE-11", signer: { name: "Karin Berg", email: "karin.berg@masthugget.example" }, stage: "started" },
  {
    customer: "NO-04",
    signer: { name: "Erik Moe", email: "erik.moe@tindvik.example" },
    stage: "queued-withdrawal"
  },
  {
    customer: "NO-09",
    signer: { name: "Nora Vik", email: "nora.vik@vagenanalyse.example" },
    stage: "started-withdrawal"
  }
]

/** The demo contract of a customer key. */
export const demoContractId = (customer: string) => demoId(`contract:nordhavn:${customer}`)

const OPERATOR = { organizationId: DEMO_IDS.organization, operatorId: "demo-seed" } as const

/**
 * Seeds the signing demo unless the demo organization already has signing attempts (or does not exist). Returns
 * how many attempts it prepared. Database and storage failures are defects; a refusal is a bug in this catalog.
 */
export const ensureDemoSigning = Sql.transaction(
  Effect.gen(function* () {
    yield* Sql.query((db) => sql`select pg_advisory_xact_lock(${sql.lit(DEMO_SIGNING_LOCK_KEY)})`.execute(db))
    const existing = yield* Sql.query((db) =>
      db
        .selectNoFrom((eb) => [
          eb
            .selectFrom("signingAttempts")
            .select((inner) => inner.fn.countAll<number>().as("n"))
            .where("organizationId", "=", DEMO_IDS.organization)
            .as("attempts"),
          eb.selectFrom("organizations").select("id").where("id", "=", DEMO_IDS.organization).as("organization")
        ])
        .executeTakeFirstOrThrow()
    )
    if (existing.organization === null || Number(existing.attempts) > 0) return 0
    const operator = yield* SigningOperatorService
    const attempts = yield* SigningAttemptRepository
    const contracts = yield* ContractRepository
    for (const [index, spec] of ATTEMPTS.entries()) {
      const attempt = yield* operator.prepare(OPERATOR, demoContractId(spec.customer), {
        parties: [
          { kind: "customer", signers: [{ ...spec.signer, role: "signatory", signingOrder: 1 }] },
          { kind: "organization", signers: [{ ...DEMO_OPERATOR_SIGNER, role: "signatory", signingOrder: 2 }] }
        ]
      })
      if (spec.stage === "started" || spec.stage === "started-withdrawal") {
        const at = yield* Sql.now
        const providerDocumentId = `demo-esign-${String(index + 1).padStart(4, "0")}`
        const started = yield* Lifecycle.reportStarted(attempt, { providerDocumentId }, at)
        yield* attempts.update(started.attempt)
        yield* contracts.setSigningStatus(started.attempt.contractId, started.attempt.status, started.attempt.updatedAt)
        yield* Outbox.append(started.events)
        yield* Audit.byActor(DEMO_IDS.organization, { type: "system", id: "demo-seed" }, {
          action: "crm.signing_attempt.started",
          targetType: "signing_attempt",
          targetId: attempt.id,
          details: { providerDocumentId },
          at
        })
      }
      if (spec.stage === "queued-withdrawal" || spec.stage === "started-withdrawal") {
        yield* operator.requestWithdrawal(OPERATOR, attempt.id)
      }
    }
    return ATTEMPTS.length
  })
).pipe(Effect.orDie, Effect.withSpan("DemoSigning.ensureDemoSigning"))
