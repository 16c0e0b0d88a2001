import { describe, expect, it } from "@effect/vitest"
import type { PartyInput, SignerInput } from "../src/SigningPreparation.js"
import { defaultTitle, prepare } from "../src/SigningPreparation.js"
import { aPrepareCommand, aPreparationState, getLeft, getRight, NOW } from "./fixtures.js"

const signer = (fields: Partial<SignerInput> = {}): SignerInput => ({
  signerId: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c99",
  name: "Nils Holm",
  email: "nils@angstrom.example",
  role: "signatory",
  signingOrder: 1,
  ...fields
})

const withParties = (...parties: ReadonlyArray<PartyInput>) => aPrepareCommand({ parties })
const customer = (...signers: ReadonlyArray<SignerInput>): PartyInput => ({
  partyId: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c01",
  kind: "customer",
  signers
})
const organization = (...signers: ReadonlyArray<SignerInput>): PartyInput => ({
  partyId: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c02",
  kind: "organization",
  signers
})

describe("prepare (an operator sends a contract for signing)", () => {
  it("queues a new attempt with the parties named after the contract's customer and organization", () => {
    const state = aPreparationState()
    const command = aPrepareCommand()
    const { attempt, events } = getRight(prepare(state, command, NOW))
    expect(attempt).toStrictEqual({
      id: command.attemptId,
      organizationId: state.contract.organizationId,
      operationalContextId: state.contract.operationalContextId,
      contractId: state.contract.id,
      status: "queued",
      title: command.title,
      parties: [
        {
          id: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c01",
          kind: "customer",
          name: "Ångström Fastigheter AB",
          signers: [
            {
              id: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c11",
              name: "Astrid Lind",
              email: "astrid@angstrom.example",
              role: "signatory",
              signingOrder: 1
            }
          ]
        },
        {
          id: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c02",
          kind: "organization",
          name: "Norrsken Kontor AB",
          signers: [
            {
              id: "9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c12",
              name: "Olof Berg",
              email: "olof@norrsken.example",
              role: "signatory",
              signingOrder: 2
            }
          ]
        }
      ],
      queuedAt: NOW,
      updatedAt: NOW
    })
    expect(events).toStrictEqual([
      {
        _tag: "crm.signing_attempt.queued",
        attemptId: command.attemptId,
        contractId: state.contract.id,
        organizationId: state.contract.organizationId,
        operationalContextId: state.contract.operationalContextId,
        at: NOW
      }
    ])
  })

  it("accepts a contract whose earlier attempts ended unsigned", () => {
    for (const signingStatus of ["declined", "expired", "failed", "withdrawn"] as const) {
      expect(getRight(prepare(aPreparationState({ signingStatus }), aPrepareCommand(), NOW)).attempt.status).toBe(
        "queued"
      )
    }
  })

  it("accepts the customer's party alone, and approvers and viewers on the organization's side", () => {
    const command = withParties(
      customer(signer(), signer({ email: "copy@angstrom.example", role: "viewer", signingOrder: 3 })),
      organization(
        signer({ email: "legal@norrsken.example", role: "approver" }),
        signer({ email: "ceo@norrsken.example", signingOrder: 2 })
      )
    )
    expect(getRight(prepare(aPreparationState(), command, NOW)).attempt.parties).toHaveLength(2)
    expect(getRight(prepare(aPreparationState(), withParties(customer(signer())), NOW)).attempt.parties).toHaveLength(1)
  })

  describe("CRM_SIGNING_NOT_AVAILABLE (400)", () => {
    it("a terminated contract", () => {
      const refusal = getLeft(prepare(aPreparationState({ status: "terminated" }), aPrepareCommand(), NOW))
      expect(refusal).toMatchObject({ code: "CRM_SIGNING_NOT_AVAILABLE", status: 400, reason: "contract-terminated" })
    })
    it("a contract already signed", () => {
      const refusal = getLeft(prepare(aPreparationState({ signingStatus: "signed" }), aPrepareCommand(), NOW))
      expect(refusal).toMatchObject({ code: "CRM_SIGNING_NOT_AVAILABLE", reason: "contract-signed" })
    })
  })

  describe("CRM_SIGNING_ATTEMPT_LIVE (409)", () => {
    it("the contract has a live attempt", () => {
      const liveAttemptId = "11111111-2222-4333-8444-555555555555"
      const state = aPreparationState({ signingStatus: "started" }, liveAttemptId)
      const refusal = getLeft(prepare(state, aPrepareCommand(), NOW))
      expect(refusal).toMatchObject({ code: "CRM_SIGNING_ATTEMPT_LIVE", status: 409, liveAttemptId })
    })
  })

  describe("CRM_SIGNING_PARTY_REPEATED (400)", () => {
    it("the customer named twice", () => {
      const refusal = getLeft(
        prepare(aPreparationState(), withParties(customer(signer()), customer(signer({ email: "b@x.example" }))), NOW)
      )
      expect(refusal).toMatchObject({ code: "CRM_SIGNING_PARTY_REPEATED", status: 400, kind: "customer", index: 1 })
    })
    it("the organization named twice", () => {
      const command = withParties(
        customer(signer()),
        organization(signer({ email: "a@n.example" })),
        organization(signer({ email: "b@n.example" }))
      )
      const refusal = getLeft(prepare(aPreparationState(), command, NOW))
      expect(refusal).toMatchObject({ code: "CRM_SIGNING_PARTY_REPEATED", kind: "organization", index: 2 })
    })
  })

  describe("CRM_SIGNER_ALREADY_ADDED (400)", () => {
    it("the same e-mail twice in one party", () => {
      const refusal = getLeft(
        prepare(aPreparationState(), withParties(customer(signer(), signer({ name: "Nils H" }))), NOW)
      )
      expect(refusal).toMatchObject({ code: "CRM_SIGNER_ALREADY_ADDED", status: 400, partyIndex: 0, signerIndex: 1 })
    })
    it("the same e-mail, in other case, across the parties", () => {
      const command = withParties(customer(signer()), organization(signer({ email: "NILS@Angstrom.Example" })))
      const refusal = getLeft(prepare(aPreparationState(), command, NOW))
      expect(refusal).toMatchObject({ code: "CRM_SIGNER_ALREADY_ADDED", partyIndex: 1, signerIndex: 0 })
    })
  })

  describe("CRM_SIGNER_NOT_ELIGIBLE (400)", () => {
    it("an approver on the customer's side", () => {
      const command = withParties(customer(signer({ role: "approver", email: "boss@a.example" }), signer()))
      const refusal = getLeft(prepare(aPreparationState(), command, NOW))
      expect(refusal).toMatchObject({
        code: "CRM_SIGNER_NOT_ELIGIBLE",
        status: 400,
        partyIndex: 0,
        signerIndex: 0,
        partyKind: "customer",
        role: "approver",
        reason: "approver-outside-organization"
      })
    })
    it("a second signatory for a private customer", () => {
      const command = withParties(customer(signer(), signer({ email: "partner@home.example" })))
      const refusal = getLeft(prepare(aPreparationState({ customerKind: "private" }), command, NOW))
      expect(refusal).toMatchObject({
        code: "CRM_SIGNER_NOT_ELIGIBLE",
        signerIndex: 1,
        reason: "private-customer-second-signatory"
      })
    })
    it("a private customer with one signatory and a viewer is accepted; a company may have several signatories", () => {
      const viewer = signer({ email: "copy@home.example", role: "viewer" })
      const alone = withParties(customer(signer(), viewer))
      expect(getRight(prepare(aPreparationState({ customerKind: "private" }), alone, NOW))).toBeDefined()
      const two = withParties(customer(signer(), signer({ email: "cfo@angstrom.example" })))
      expect(getRight(prepare(aPreparationState({ customerKind: "company" }), two, NOW))).toBeDefined()
    })
  })

  describe("order of the checks", () => {
    const everythingWrong = withParties(
      customer(signer({ role: "approver" }), signer()),
      customer(signer({ email: "x@y.example" }))
    )
    it("not available, then live, then party repeated, then signer already added, then not eligible", () => {
      const terminatedAndLive = aPreparationState({ status: "terminated" }, "11111111-2222-4333-8444-555555555555")
      expect(getLeft(prepare(terminatedAndLive, everythingWrong, NOW)).code).toBe("CRM_SIGNING_NOT_AVAILABLE")
      const live = aPreparationState({}, "11111111-2222-4333-8444-555555555555")
      expect(getLeft(prepare(live, everythingWrong, NOW)).code).toBe("CRM_SIGNING_ATTEMPT_LIVE")
      expect(getLeft(prepare(aPreparationState(), everythingWrong, NOW)).code).toBe("CRM_SIGNING_PARTY_REPEATED")
      const duplicateAndIneligible = withParties(customer(signer({ role: "approver" }), signer()))
      expect(getLeft(prepare(aPreparationState(), duplicateAndIneligible, NOW)).code).toBe("CRM_SIGNER_ALREADY_ADDED")
    })
  })
})

describe("defaultTitle", () => {
  it("names the contract number and the customer", () => {
    const title = defaultTitle({ contractNumber: "K-1001", customerName: "Ångström AB" })
    expect(title).toBe("Contract K-1001 – Ångström AB")
  })
})
