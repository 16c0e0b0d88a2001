/**
 * Endpoint secrets at rest (issue 22, item 2): sealed under the key-encryption keys (`platform/KeyEncryption`) for
 * the endpoint's record, as the other keys the product keeps; opened only to sign. Rotating `KEY_ENCRYPTION_KEYS`
 * re-seals them: the worker's and the admin host's starts re-seal every one sealed under another key than the
 * primary ({@link resealEndpointSecrets}).
 */
import type * as Db from "@propline/db/Db"
import { Effect, Either, Layer } from "effect"
import { KeyEncryption, type KeyEncryptionError, type Keyring, resealEach } from "../platform/KeyEncryption.js"
import * as Sql from "../platform/Sql.js"
import { WebhookEndpointRepository } from "./WebhookEndpointRepository.js"

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

/**
 * Re-seals every endpoint's secret (the current one and a rotation's previous one, connector apps' webhooks
 * included) sealed under another key-encryption key than the keyring's primary, in one transaction holding the
 * rows' locks (taken in id order, so hosts starting together wait on each other and the later one writes nothing);
 * opens each once, so a keyring that can't open one fails here with a {@link KeyEncryptionError} (start-up refused)
 * and writes nothing. Returns how many endpoints' rows it wrote. (`SecondFactor.resealTotpSecrets` does the same for
 * operators' TOTP secrets.)
 */
export const resealEndpointSecrets = (keyring: Keyring): Effect.Effect<number, KeyEncryptionError, Db.Db | WebhookEndpointRepository> =>
  Effect.flatMap(WebhookEndpointRepository, (endpoints) =>
    Sql.transaction(
      Effect.flatMap(endpoints.sealedSecrets, (rows) =>
        resealEach(
          keyring,
          rows,
          (row) => ({ secretEnvelope: row.secretEnvelope, previousSecretEnvelope: row.previousSecretEnvelope }),
          (row) => contextOf(row.id),
          (row, envelopes) => endpoints.setSecretEnvelopes(row.id, envelopes)
        )
      )
    )
  ).pipe(Effect.withSpan("WebhookSecrets.resealEndpointSecrets"))

/**
 * At a host's start, {@link resealEndpointSecrets} with the process's keyring, logging how many it wrote; a key
 * list that can't open one fails the layer (the start is refused).
 */
export const EndpointSecretsResealed = Layer.effectDiscard(
  Effect.flatMap(KeyEncryption, resealEndpointSecrets).pipe(
    Effect.tap((written) => (written === 0 ? Effect.void : Effect.logInfo(`re-sealed the secrets of ${written} webhook endpoints`)))
  )
).pipe(Layer.provide(WebhookEndpointRepository.Default))
