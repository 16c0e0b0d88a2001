/**
 * Scenarios of an e-signing connector (spec 4.2 "Signing", decisions 6): the signing queue and its PDF, the
 * outcome reports with their refusals, the signed-PDF upload (refused bytes store nothing), 20 concurrent `signed`
 * reports applied once, and the withdrawal queue. They consume demo attempts, so each picks attempts still in the
 * right state and skips when a queue is empty. The deployment's credentials need the `signing` role.
 */
import { SigningAttempt, SigningQueueItem, WithdrawalQueueItem } from "@propline/contract/Signing"
import { createHash } from "node:crypto"
import {
  api,
  check,
  type Context,
  decode,
  equal,
  expectProblem,
  expectStatus,
  expectValidationFailed,
  field,
  type Scenario,
  send,
  Skip,
  walk,
  walkDecoded
} from "../Harness.js"

const SIGNING_QUEUE = "/v1/crm/signing-queue"
const WITHDRAWAL_QUEUE = "/v1/crm/withdrawal-queue"
const report = (context: Context, attemptId: string, outcome: string, body: unknown = {}) =>
  api(context, "POST", `/v1/crm/signing-attempts/${attemptId}/${outcome}`, body)
const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const signingQueue = (context: Context) => walkDecoded(context, SIGNING_QUEUE, 100, SigningQueueItem, "signing queue item")

/** The next queued attempt, or a skip when the signing queue is empty. */
const nextQueued = async (context: Context) => {
  const item = (await signingQueue(context))[0]
  if (item === undefined) throw new Skip("the signing queue is empty (the demo's attempts are used up)")
  return item
}

/**
 * Downloads an item's PDF and checks it is the declared one. Raw `fetch`: the document's address is a signed URL
 * the API hands out, not an operation of the client.
 */
const downloadPdf = async (item: SigningQueueItem) => {
  const response = await fetch(item.document.url)
  equal(response.status, 200, `GET the document of ${item.attemptId}`)
  const bytes = new Uint8Array(await response.arrayBuffer())
  equal(new TextDecoder().decode(bytes.slice(0, 5)), "%PDF-", "the document's header")
  equal([bytes.length, sha256(bytes)], [item.document.sizeBytes, item.document.sha256], "the document's size and SHA-256")
  return bytes
}

/** An upload address for `bytes` on a started attempt. */
const uploadAddress = async (context: Context, attemptId: string, bytes: Uint8Array, declaredSha = sha256(bytes)) => {
  const reply = await report(context, attemptId, "signed-document-upload", { sizeBytes: bytes.length, sha256: declaredSha })
  expectStatus(reply, 201, "signed-document-upload")
  return { id: String(field(reply.body, "id")), url: String(field(reply.body, "url")) }
}

/** PUTs `bytes` to an upload address: a signed URL the API hands out, not an operation of the client (raw HTTP). */
const put = (url: string, bytes: Uint8Array) =>
  send(url, { method: "PUT", headers: { "content-type": "application/pdf" }, body: bytes })

const signingQueueAndStarted: Scenario = {
  name: "signing queue: the PDF to sign, then started",
  run: async (context) => {
    const queue = await signingQueue(context)
    for (let i = 1; i < queue.length; i++) {
      check(queue[i - 1]!.queuedAt.getTime() <= queue[i]!.queuedAt.getTime(), "the signing queue is not oldest first")
    }
    const item = await nextQueued(context)
    check(item.parties.some((party) => party.kind === "customer"), "the item has no customer party")
    check(item.parties.every((party) => party.signers.length > 0), "a party has no signers")
    const pdf = await downloadPdf(item)
    const early = await report(context, item.attemptId, "signed", { uploadId: item.attemptId })
    expectProblem(early, 400, "CRM_AGREEMENT_TRANSITION_INVALID", "signed on a queued attempt")
    const reply = await report(context, item.attemptId, "started", { providerDocumentId: `harness-${context.runId}` })
    expectStatus(reply, 201, "started")
    const attempt = decode(SigningAttempt, reply.body, "the started attempt")
    equal([attempt.status, attempt.providerDocumentId], ["started", `harness-${context.runId}`], "the started attempt")
    expectProblem(
      await report(context, item.attemptId, "started", { providerDocumentId: "again" }),
      400,
      "CRM_AGREEMENT_TRANSITION_INVALID",
      "the repeated started"
    )
    check(!(await signingQueue(context)).some((i) => i.attemptId === item.attemptId), "the started attempt is still queued")
    return `PDF ${pdf.length} bytes as declared; 201 started; signed before started and a repeat 400 CRM_AGREEMENT_TRANSITION_INVALID`
  }
}

const uploadAndSigned: Scenario = {
  name: "signed PDF: refused uploads store nothing, then signed; 20 concurrent signed apply once",
  run: async (context) => {
    const item = await nextQueued(context)
    const pdf = await downloadPdf(item)
    expectStatus(await report(context, item.attemptId, "started", { providerDocumentId: `harness-${context.runId}-2` }), 201, "started")
    const signed = new Uint8Array([...pdf, ...new TextEncoder().encode("% signed\n")])

    const wrongDigest = await uploadAddress(context, item.attemptId, signed, sha256(pdf))
    expectProblem(await put(wrongDigest.url, signed), 400, "CRM_SIGNED_DOCUMENT_REJECTED", "a PUT with another digest")
    expectProblem(
      await report(context, item.attemptId, "signed", { uploadId: wrongDigest.id }),
      400,
      "CRM_SIGNED_DOCUMENT_REJECTED",
      "signed after a refused upload"
    )
    const notPdf = new TextEncoder().encode("definitely not a PDF")
    const notPdfAddress = await uploadAddress(context, item.attemptId, notPdf)
    expectProblem(await put(notPdfAddress.url, notPdf), 400, "CRM_SIGNED_DOCUMENT_REJECTED", "a PUT of a non-PDF")
    const small = await uploadAddress(context, item.attemptId, signed.slice(0, 100))
    expectProblem(await put(small.url, signed), 413, "CRM_SIGNED_DOCUMENT_REJECTED", "a PUT longer than declared")
    const forged = new URL(small.url)
    forged.searchParams.set("signature", "A".repeat(43))
    equal((await put(forged.toString(), signed)).status, 403, "a PUT to a forged address")

    const good = await uploadAddress(context, item.attemptId, signed)
    expectStatus(await put(good.url, signed), 201, "the PUT of the declared PDF")
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => report(context, item.attemptId, "signed", { uploadId: good.id }))
    )
    const accepted = replies.filter((reply) => reply.status === 201)
    equal(accepted.length, 1, "signed reports accepted of 20 concurrent")
    for (const reply of replies.filter((r) => r.status !== 201)) {
      expectProblem(reply, 400, "CRM_SIGNING_ATTEMPT_ENDED", "a concurrent signed")
    }
    equal(decode(SigningAttempt, accepted[0]!.body, "the signed attempt").status, "signed", "the outcome")
    expectValidationFailed(
      await report(context, item.attemptId, "signed-document-upload", { sizeBytes: 0, sha256: "x" }),
      "/sizeBytes",
      "a size of 0"
    )
    return "wrong digest 400, non-PDF 400, oversized 413, forged 403 (nothing stored); 1 of 20 signed 201, 19 400 CRM_SIGNING_ATTEMPT_ENDED"
  }
}

const declinedExpiredFailed: Scenario = {
  name: "declined, expired and failed outcomes",
  run: async (context) => {
    const outcomes: Array<string> = []
    const first = await nextQueued(context)
    expectStatus(await report(context, first.attemptId, "failed", { reason: "The provider refused the document" }), 201, "failed")
    expectProblem(await report(context, first.attemptId, "failed", { reason: "again" }), 400, "CRM_SIGNING_ATTEMPT_ENDED", "a repeated failed")
    outcomes.push("failed 201, repeat 400 CRM_SIGNING_ATTEMPT_ENDED")

    const second = (await signingQueue(context))[0]
    if (second === undefined) return `${outcomes.join("; ")} (no attempt left for declined)`
    expectStatus(await report(context, second.attemptId, "started", { providerDocumentId: `harness-${context.runId}-3` }), 201, "started")
    expectValidationFailed(
      await report(context, second.attemptId, "declined", { partyId: "00000000-0000-4000-8000-000000000000" }),
      "/partyId",
      "declined by a party of another attempt"
    )
    const declined = await report(context, second.attemptId, "declined", { partyId: second.parties[0]!.id, reason: "No" })
    expectStatus(declined, 201, "declined")
    equal(decode(SigningAttempt, declined.body, "the declined attempt").declinedByPartyId, second.parties[0]!.id, "the declining party")
    expectProblem(await report(context, second.attemptId, "expired"), 400, "CRM_SIGNING_ATTEMPT_ENDED", "expired after declined")
    outcomes.push("declined 201 (unknown party 400 VALIDATION_FAILED), expired after it 400 CRM_SIGNING_ATTEMPT_ENDED")
    return outcomes.join("; ")
  }
}

const withdrawalQueue: Scenario = {
  name: "withdrawal queue: withdrawn",
  run: async (context) => {
    const items = await walkDecoded(context, WITHDRAWAL_QUEUE, 1, WithdrawalQueueItem, "withdrawal queue item")
    if (items.length === 0) throw new Skip("the withdrawal queue is empty (the demo's withdrawals are used up)")
    for (const item of items) {
      const reply = await report(context, item.attemptId, "withdrawn")
      expectStatus(reply, 201, `withdrawn ${item.attemptId}`)
      equal(decode(SigningAttempt, reply.body, "the withdrawn attempt").status, "withdrawn", "the outcome")
      expectProblem(await report(context, item.attemptId, "withdrawn"), 400, "CRM_SIGNING_ATTEMPT_ENDED", "a repeated withdrawn")
    }
    const after = (await walk(context, WITHDRAWAL_QUEUE, 100)).items
    equal(after.length, 0, "attempts left on the withdrawal queue")
    return `${items.length} withdrawn (201), each repeat 400 CRM_SIGNING_ATTEMPT_ENDED; the queue is empty`
  }
}

/** The e-signing connector's scenarios, in run order. */
export const esignScenarios: ReadonlyArray<Scenario> = [
  signingQueueAndStarted,
  uploadAndSigned,
  declinedExpiredFailed,
  withdrawalQueue
]
