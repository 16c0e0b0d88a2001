/**
 * Preparing a contract for signing (an operator's action; decisions.md sections 1 and 6): a new attempt,
 * `queued`, in the signing queue, with its parties and signers.
 *
 * @since 0.1.0
 */
import { Either } from "effect"
import type {
  ContractSigningStatus,
  PartyKind,
  SignerRole,
  SigningAttemptRecord,
  SigningParty
} from "./SigningAttempt.js"
import type { SigningAttemptQueued } from "./SigningEvent.js"
import {
  SignerAlreadyAdded,
  SignerNotEligible,
  SigningAttemptLive,
  SigningNotAvailable,
  SigningPartyRepeated
} from "./SigningRefusal.js"
import { attemptEvent } from "./internal/events.js"

/**
 * What preparation needs to know of the contract and its surroundings, loaded by the caller (under a lock on the
 * contract, so two preparations can't both see no live attempt):
 * - `status`: the contract's own status; `signingStatus`: the status of its newest attempt (`unsent` if none);
 * - `customerKind` and `customerName`: the contract's customer, the `customer` party;
 * - `organizationName`: the owning organization, the `organization` party;
 * - `liveAttemptId`: the contract's live attempt, when it has one.
 *
 * @since 0.1.0
 */
export interface PreparationState {
  readonly contract: {
    readonly id: string
    readonly organizationId: string
    readonly operationalContextId: string
    readonly contractNumber: string
    readonly status: "active" | "terminated"
    readonly signingStatus: ContractSigningStatus
    readonly customerKind: "company" | "private"
    readonly customerName: string
    readonly organizationName: string
  }
  readonly liveAttemptId?: string
}

/**
 * A signer as the operator names them; `signerId` is drawn by the caller.
 *
 * @since 0.1.0
 */
export interface SignerInput {
  readonly signerId: string
  readonly name: string
  readonly email: string
  readonly role: SignerRole
  readonly signingOrder: number
}

/**
 * A party as the operator names it: its kind and signers; `partyId` is drawn by the caller.
 *
 * @since 0.1.0
 */
export interface PartyInput {
  readonly partyId: string
  readonly kind: PartyKind
  readonly signers: ReadonlyArray<SignerInput>
}

/**
 * The preparation. Its shape is checked before it gets here (the operator service's schema: lengths, e-mail
 * syntax, the `customer` party present, every party with at least one `signatory`); this function decides the
 * rules that need the whole command and the contract.
 * - `attemptId`: the new attempt's id, drawn by the caller;
 * - `title`: the document's title (see {@link defaultTitle}).
 *
 * @since 0.1.0
 */
export interface PrepareCommand {
  readonly attemptId: string
  readonly title: string
  readonly parties: ReadonlyArray<PartyInput>
}

/**
 * An accepted preparation: the new attempt and its `crm.signing_attempt.queued` event.
 *
 * @since 0.1.0
 */
export interface Prepared {
  readonly attempt: SigningAttemptRecord
  readonly events: ReadonlyArray<SigningAttemptQueued>
}

/**
 * The document title used when the operator gives none: `Contract <contractNumber> – <customerName>`.
 *
 * @since 0.1.0
 */
export const defaultTitle = (contract: Pick<PreparationState["contract"], "contractNumber" | "customerName">) =>
  `Contract ${contract.contractNumber} – ${contract.customerName}`

const notAvailable = (state: PreparationState): SigningNotAvailable | undefined => {
  const { contract } = state
  if (contract.status === "terminated") {
    return new SigningNotAvailable({
      contractId: contract.id,
      reason: "contract-terminated",
      detail: "The contract is terminated; it cannot be sent for signature."
    })
  }
  if (contract.signingStatus === "signed") {
    return new SigningNotAvailable({
      contractId: contract.id,
      reason: "contract-signed",
      detail: "The contract is already signed; it is not sent for signature again."
    })
  }
  return undefined
}

const repeatedParty = (parties: ReadonlyArray<PartyInput>): SigningPartyRepeated | undefined => {
  const seen = new Set<PartyKind>()
  for (const [index, party] of parties.entries()) {
    if (seen.has(party.kind)) {
      return new SigningPartyRepeated({
        kind: party.kind,
        index,
        detail: `The ${party.kind} party is named more than once; name each party once with all its signers.`
      })
    }
    seen.add(party.kind)
  }
  return undefined
}

const repeatedSigner = (parties: ReadonlyArray<PartyInput>): SignerAlreadyAdded | undefined => {
  const seen = new Set<string>()
  for (const [partyIndex, party] of parties.entries()) {
    for (const [signerIndex, signer] of party.signers.entries()) {
      const key = signer.email.toLowerCase()
      if (seen.has(key)) {
        return new SignerAlreadyAdded({
          partyIndex,
          signerIndex,
          detail: "A signer with this e-mail address is already added to the signing attempt; a person signs once."
        })
      }
      seen.add(key)
    }
  }
  return undefined
}

const ineligibleSigner = (
  state: PreparationState,
  parties: ReadonlyArray<PartyInput>
): SignerNotEligible | undefined => {
  for (const [partyIndex, party] of parties.entries()) {
    let signatories = 0
    for (const [signerIndex, signer] of party.signers.entries()) {
      const facts = { partyIndex, signerIndex, partyKind: party.kind, role: signer.role }
      if (signer.role === "approver" && party.kind !== "organization") {
        return new SignerNotEligible({
          ...facts,
          reason: "approver-outside-organization",
          detail: "Only the organization's party can have an approver; approval is the operator's own review."
        })
      }
      if (signer.role === "signatory") signatories++
      if (party.kind === "customer" && state.contract.customerKind === "private" && signatories > 1) {
        return new SignerNotEligible({
          ...facts,
          reason: "private-customer-second-signatory",
          detail: "The customer is a private person, who signs alone; the customer's party has one signatory."
        })
      }
    }
  }
  return undefined
}

const partyName = (state: PreparationState, kind: PartyKind): string =>
  kind === "customer" ? state.contract.customerName : state.contract.organizationName

/**
 * Prepare the contract for signing: a new attempt, `queued`, in the signing queue, with `queuedAt` and
 * `updatedAt` now; emits `crm.signing_attempt.queued`. Each party takes its name from the contract (the
 * customer's, the organization's); signers keep the order given.
 *
 * Refuses, in this order:
 * 1. `SigningNotAvailable` (`CRM_SIGNING_NOT_AVAILABLE`, 400): the contract is terminated, or already signed;
 * 2. `SigningAttemptLive` (`CRM_SIGNING_ATTEMPT_LIVE`, 409): the contract has a live attempt;
 * 3. `SigningPartyRepeated` (`CRM_SIGNING_PARTY_REPEATED`, 400): a party kind is named twice;
 * 4. `SignerAlreadyAdded` (`CRM_SIGNER_ALREADY_ADDED`, 400): an e-mail address (without regard to case) is given
 *    twice on the attempt, in one party or across both;
 * 5. `SignerNotEligible` (`CRM_SIGNER_NOT_ELIGIBLE`, 400): an approver outside the organization's party, or a
 *    second signatory for a private customer.
 *
 * @since 0.1.0
 */
export const prepare = (
  state: PreparationState,
  command: PrepareCommand,
  now: Date
): Either.Either<
  Prepared,
  SigningNotAvailable | SigningAttemptLive | SigningPartyRepeated | SignerAlreadyAdded | SignerNotEligible
> => {
  const unavailable = notAvailable(state)
  if (unavailable !== undefined) return Either.left(unavailable)
  if (state.liveAttemptId !== undefined) {
    return Either.left(
      new SigningAttemptLive({
        contractId: state.contract.id,
        liveAttemptId: state.liveAttemptId,
        detail: "The contract already has a live signing attempt; withdraw it or wait for its outcome."
      })
    )
  }
  const refusal =
    repeatedParty(command.parties) ?? repeatedSigner(command.parties) ?? ineligibleSigner(state, command.parties)
  if (refusal !== undefined) return Either.left(refusal)

  const parties: ReadonlyArray<SigningParty> = command.parties.map((party) => ({
    id: party.partyId,
    kind: party.kind,
    name: partyName(state, party.kind),
    signers: party.signers.map((signer) => ({
      id: signer.signerId,
      name: signer.name,
      email: signer.email,
      role: signer.role,
      signingOrder: signer.signingOrder
    }))
  }))
  const attempt: SigningAttemptRecord = {
    id: command.attemptId,
    organizationId: state.contract.organizationId,
    operationalContextId: state.contract.operationalContextId,
    contractId: state.contract.id,
    status: "queued",
    title: command.title,
    parties,
    queuedAt: now,
    updatedAt: now
  }
  return Either.right({ attempt, events: [attemptEvent("crm.signing_attempt.queued", attempt, now)] })
}
