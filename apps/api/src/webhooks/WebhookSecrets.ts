/**
 * Endpoint secrets at rest (issue 22, item 2): sealed under the key-encryption keys (`platform/KeyEncryption`) for
 * the endpoint's record, as the other keys the product keeps; opened only to sign.
 */
import { Effect, Either } from "effect"
import { KeyEncryption } from "../platform/KeyEncryption.js"

const contextOf = (endpointId: string) => `webhook_endpoints:${endpointId}`

/** Seals `secret` for the endpoint. */
export const seal = (endpointId: string, secret: string) =>
  Effect.map(KeyEncryption, (keyring) => keyring.seal(secret, contextOf(endpointId)))

/** The secrets that sign for an endpoint now: the current one, and the previous one while its overlap lasts. */
export const signingSecrets = (
  endpoint: {
    readonly endpointId: string
    readonly secretEnvelope: string
    readonly previousSecretEnvelope: string | null
    readonly previousSecretExpiresAt: Date | null
  },
  now: Date
) =>
  Effect.flatMap(KeyEncryption, (keyring) => {
    const open = (envelope: string) => Either.getOrThrow(keyring.open(envelope, contextOf(endpoint.endpointId)))
    return Effect.sync(() => [
      open(endpoint.secretEnvelope),
      ...(endpoint.previousSecretEnvelope !== null &&
      endpoint.previousSecretExpiresAt !== null &&
      endpoint.previousSecretExpiresAt.getTime() > now.getTime()
        ? [open(endpoint.previousSecretEnvelope)]
        : [])
    ])
  })
