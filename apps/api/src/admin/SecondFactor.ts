/**
 * The operators' second factor (issue 25, item 5): TOTP (RFC 6238: SHA-1, 6 digits, 30-second steps) through the
 * `otpauth` library, and single-use recovery codes.
 *
 * - The secret is 160 random bits (RFC 4226's recommended length), kept sealed under the key-encryption keys for the
 *   operator's record (`operators:<id>:totp`); it is shown once, as base32 and as an `otpauth://` URI for the QR code.
 * - A code is accepted for the current step or one step either side (clock drift), and each step at most once: the
 *   operator's `totp_last_step` only grows (`OperatorRepository.useTotpStep`), so a replayed code is refused.
 * - Rotating `KEY_ENCRYPTION_KEYS` re-seals the secrets: the admin host's start re-seals every one sealed under
 *   another key than the primary ({@link resealTotpSecrets}), as the identity host does the signing keys.
 * - Recovery codes are ten random `xxxxx-xxxxx` codes (50 bits each, lower-case base32), kept as SHA-256 digests of
 *   their normalized form (lower case, no dash or space); each works once.
 */
import type * as Db from "@propline/db/Db"
import { Effect, Either } from "effect"
import { randomBytes } from "node:crypto"
import * as OTPAuth from "otpauth"
import { OperatorRepository } from "../identity/OperatorRepository.js"
import { sha256Hex } from "../platform/Digest.js"
import { KeyEncryption, type KeyEncryptionError, type Keyring, resealEach } from "../platform/KeyEncryption.js"
import * as Sql from "../platform/Sql.js"

/** The issuer authenticator apps show beside the account. */
export const TOTP_ISSUER = "Propline"
/** The step, in seconds. */
export const TOTP_PERIOD = 30

const totp = (secret: OTPAuth.Secret, label: string) =>
  new OTPAuth.TOTP({ issuer: TOTP_ISSUER, label, algorithm: "SHA1", digits: 6, period: TOTP_PERIOD, secret })

/** A new secret: its base32 text and the `otpauth://totp/…` URI naming `email`. */
export const newTotpSecret = (email: string): { readonly secret: string; readonly uri: string } => {
  const secret = new OTPAuth.Secret({ size: 20 })
  return { secret: secret.base32, uri: totp(secret, email).toString() }
}

/**
 * The time step a `code` is valid for at `now` under the base32 `secret` (the current step or one either side), or
 * undefined when it is none of them or not 6 digits.
 */
export const totpStep = (secret: string, code: string, now: Date): number | undefined => {
  const token = code.replace(/\s/g, "")
  if (!/^\d{6}$/.test(token)) return undefined
  const delta = totp(OTPAuth.Secret.fromBase32(secret), "operator").validate({ token, timestamp: now.getTime(), window: 1 })
  return delta === null ? undefined : Math.floor(now.getTime() / 1000 / TOTP_PERIOD) + delta
}

/** Whether `code` looks like a TOTP code rather than a recovery code. */
export const isTotpCode = (code: string): boolean => /^\d{6}$/.test(code.replace(/\s/g, ""))

const context = (operatorId: string) => `operators:${operatorId}:totp`

/** The secret sealed for the operator's record. */
export const sealSecret = (operatorId: string, secret: string) =>
  Effect.map(KeyEncryption, (keyring) => keyring.seal(secret, context(operatorId)))

/** The operator's secret from its envelope; an envelope that does not open is a defect (the wrong keyring). */
export const openSecret = (operatorId: string, envelope: string) =>
  Effect.map(KeyEncryption, (keyring) => Either.getOrThrow(keyring.open(envelope, context(operatorId))))

/**
 * Re-seals every operator's TOTP secret (confirmed or pending) sealed under another key-encryption key than the
 * keyring's primary, in one transaction holding the rows' locks; opens each once, so a keyring that can't open one
 * fails here with a {@link KeyEncryptionError} (start-up refused) and writes nothing. Returns how many operators'
 * rows it wrote. (`SigningKeys.sealStoredKeys` does the same for the token-signing keys.)
 */
export const resealTotpSecrets = (keyring: Keyring): Effect.Effect<number, KeyEncryptionError, Db.Db | OperatorRepository> =>
  Effect.flatMap(OperatorRepository, (operators) =>
    Sql.transaction(
      Effect.flatMap(operators.sealedTotpSecrets, (rows) =>
        resealEach(
          keyring,
          rows,
          (row) => ({ totpSecretEnvelope: row.totpSecretEnvelope, totpPendingEnvelope: row.totpPendingEnvelope }),
          (row) => context(row.id),
          (row, envelopes) => operators.setTotpEnvelopes(row.id, envelopes)
        )
      )
    )
  ).pipe(Effect.withSpan("SecondFactor.resealTotpSecrets"))

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567"

/** Ten new recovery codes as shown (`xxxxx-xxxxx`). */
export const newRecoveryCodes = (count: number): ReadonlyArray<string> =>
  Array.from({ length: count }, () => {
    const text = Array.from(randomBytes(10), (byte) => ALPHABET[byte % 32]).join("")
    return `${text.slice(0, 5)}-${text.slice(5)}`
  })

/** What is stored of a recovery code: the SHA-256 of its normalized form. */
export const recoveryCodeDigest = (code: string): string => sha256Hex(code.toLowerCase().replace(/[\s-]/g, ""))
