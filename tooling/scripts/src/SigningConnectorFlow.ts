/**
 * What an e-signing connector (Scrive, DocuSign … behind a connector) does against the Integration API v1, end to
 * end, with the published client (spec 4.2 "Signing", decisions 6): get a token, read the signing queue, download
 * the contract's PDF from its short-lived address and check its SHA-256, report `started` with the provider's
 * document id, upload the signed PDF (declare size and SHA-256, PUT it to the upload address), report `signed`,
 * then answer the withdrawal queue with `withdrawn`. Returns a log of what it did; refusals are reported by their
 * spec code, not thrown.
 */
import { createHash } from "node:crypto"
import { connect, type DemoCredentials, left, problemCode, right } from "./ConnectorFlow.js"

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex")

const fetchBytes = async (url: string, init?: RequestInit) => {
  const response = await fetch(url, init)
  return { status: response.status, bytes: new Uint8Array(await response.arrayBuffer()) }
}

/**
 * The signing system's signed copy. A real connector downloads it from its provider; the example stands in with
 * the contract's own PDF and a comment line after it, which keeps it a PDF with a new digest.
 */
const signedCopy = (original: Uint8Array, providerDocumentId: string) =>
  new Uint8Array([...original, ...new TextEncoder().encode(`% signed at the provider as ${providerDocumentId}\n`)])

/** Runs the flow once: one attempt from the signing queue to `signed`, and every attempt on the withdrawal queue. */
export const runSigningConnectorFlow = async (credentials: DemoCredentials, reference: string) => {
  const { client, log, steps } = connect(credentials)

  const queue = await client.crm.getSigningQueue({ urlParams: { limit: 10 } })
  log(
    "GET /v1/crm/signing-queue",
    `${queue.items.length} contracts to send: ${queue.items
      .map((item) => `${item.contract.contractNumber} (${item.parties.flatMap((p) => p.signers).length} signers)`)
      .join(", ")}`
  )

  const item = queue.items[0]
  if (item !== undefined) {
    const attemptId = item.attemptId
    const pdf = await fetchBytes(item.document.url)
    const digestOk = sha256(pdf.bytes) === item.document.sha256
    log(
      `GET ${item.document.fileName} (document.url)`,
      `${pdf.status}: ${pdf.bytes.length} bytes, SHA-256 ${digestOk ? "as declared" : "DIFFERS from the declared one"}`
    )

    const providerDocumentId = `esign-${reference}-${attemptId.slice(0, 8)}`
    const started = await client.crm
      .started({ path: { attemptId }, payload: { providerDocumentId } })
      .then(right, left)
    log(
      `POST /v1/crm/signing-attempts/${attemptId}/started`,
      started._tag === "Right" ? `201: ${started.right.status} as ${providerDocumentId}` : `refused: ${problemCode(started.left)}`
    )

    const signed = signedCopy(pdf.bytes, providerDocumentId)
    const address = await client.crm.signedDocumentUpload({
      path: { attemptId },
      payload: { sizeBytes: signed.length, sha256: sha256(signed) }
    })
    log(
      `POST /v1/crm/signing-attempts/${attemptId}/signed-document-upload`,
      `201: ${address.method} address valid until ${address.expiresAt}`
    )
    const put = await fetchBytes(address.url, { method: address.method, headers: address.headers, body: signed })
    log(`PUT the signed PDF (${signed.length} bytes) to the upload address`, `${put.status}`)

    const outcome = await client.crm
      .signed({ path: { attemptId }, payload: { uploadId: address.id } })
      .then(right, left)
    log(
      `POST /v1/crm/signing-attempts/${attemptId}/signed`,
      outcome._tag === "Right" ? `201: ${outcome.right.status}` : `refused: ${problemCode(outcome.left)}`
    )
    const again = await client.crm
      .signed({ path: { attemptId }, payload: { uploadId: address.id } })
      .then(right, left)
    log(
      `POST /v1/crm/signing-attempts/${attemptId}/signed (repeated)`,
      again._tag === "Right" ? "201 (unexpected)" : `refused: ${problemCode(again.left)}`
    )
  }

  const withdrawals = await client.crm.getWithdrawalQueue({ urlParams: { limit: 10 } })
  log("GET /v1/crm/withdrawal-queue", `${withdrawals.items.length} attempts to withdraw`)
  for (const withdrawal of withdrawals.items) {
    const outcome = await client.crm
      .withdrawn({ path: { attemptId: withdrawal.attemptId }, payload: {} })
      .then(right, left)
    log(
      `POST /v1/crm/signing-attempts/${withdrawal.attemptId}/withdrawn`,
      outcome._tag === "Right"
        ? `201: ${outcome.right.status} (was ${withdrawal.status}${
            withdrawal.providerDocumentId === undefined ? "" : `, ${withdrawal.providerDocumentId}`
          })`
        : `refused: ${problemCode(outcome.left)}`
    )
  }
  return steps
}
