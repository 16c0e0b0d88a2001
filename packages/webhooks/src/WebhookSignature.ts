/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, issue 22, item 3): the headers `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256>`
 * of `<id>.<timestamp>.<body>`, one per secret that signs (two during a rotation). The key is the base64-decoded
 * part of a `whsec_` secret, which is what the `standardwebhooks` reference library verifies with.
 */
import { createHmac, randomBytes } from "node:crypto"

/** The prefix of every webhook secret. */
export const SECRET_PREFIX = "whsec_"

/** A new secret: `whsec_` + base64 of 32 random bytes. */
export const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`

/** The last four characters of a secret, which the console shows after it was revealed once. */
export const lastFour = (secret: string): string => secret.slice(-4)

/** One `v1,` signature of `body` with `secret` (a `whsec_…` string). */
export const signature = (secret: string, id: string, timestamp: number, body: string): string => {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")
  return `v1,${createHmac("sha256", key).update(`${id}.${timestamp}.${body}`).digest("base64")}`
}

/** The Standard Webhooks headers of one attempt: signed with each of `secrets` (the current one first). */
export const signedHeaders = (
  secrets: ReadonlyArray<string>,
  id: string,
  at: Date,
  body: string
): Readonly<Record<"webhook-id" | "webhook-timestamp" | "webhook-signature", string>> => {
  const timestamp = Math.floor(at.getTime() / 1000)
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": secrets.map((secret) => signature(secret, id, timestamp, body)).join(" ")
  }
}
