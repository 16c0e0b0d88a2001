import type { ColumnType } from "kysely"

/** `operators`: people who run the back office in the admin console, each in one organization (issue 11). */
export interface OperatorTable {
  readonly id: string
  readonly organizationId: string
  /** Lower-case; unique across the service, so sign-in needs no organization. */
  readonly email: string
  name: string
  /** PHC string of an argon2id hash (RFC 9106). */
  passwordHash: string
  status: "active" | "disabled"
  /** What the console lets the operator change (issue 25): `owner` everything, `admin` all but owners, `read_only` nothing. */
  role: OperatorRole
  /** The confirmed TOTP secret (base32), sealed under the key-encryption keys; null without a second factor. */
  totpSecretEnvelope: string | null
  /** A secret being enrolled, sealed, until its first code confirms it. */
  totpPendingEnvelope: string | null
  totpEnabledAt: Date | null
  /** The last TOTP time step (Unix seconds / 30) a code was accepted for; a code of it or an earlier one is refused. */
  totpLastStep: ColumnType<string, number | undefined, number>
  readonly createdAt: Date
  updatedAt: Date
}

/** An operator's role in their organization. */
export type OperatorRole = "owner" | "admin" | "read_only"

/** `operator_invites`: single-use links that add an operator; the link's token is kept as its SHA-256 only. */
export interface OperatorInviteTable {
  readonly id: string
  readonly organizationId: string
  /** Lower-case. */
  readonly email: string
  readonly role: OperatorRole
  readonly tokenDigest: string
  readonly invitedBy: string
  readonly createdAt: Date
  readonly expiresAt: Date
  acceptedAt: Date | null
  revokedAt: Date | null
}

/** `operator_recovery_codes`: an operator's single-use codes for when the authenticator is lost (SHA-256 only). */
export interface OperatorRecoveryCodeTable {
  readonly operatorId: string
  readonly codeDigest: string
  readonly createdAt: Date
  usedAt: Date | null
}

/** `operator_sessions`: server-side sessions; the cookie holds a random token, the row only its SHA-256 digest. */
export interface OperatorSessionTable {
  readonly id: string
  readonly operatorId: string
  /** Lower-case hex SHA-256 of the cookie's token. */
  readonly tokenDigest: string
  /** Synchronizer token every change must echo in `X-CSRF-Token`. */
  readonly csrfToken: string
  readonly createdAt: Date
  lastSeenAt: Date
  expiresAt: Date
  /** Set at sign-out; an ended session authenticates nothing. */
  endedAt: Date | null
  /** A session opened by the password that waits for the TOTP code (or a recovery code); it authenticates nothing. */
  secondFactorPending: ColumnType<boolean, boolean | undefined, boolean>
  /** The client address sign-in came from (null for sessions older than issue 25). */
  clientAddress: string | null
}

/**
 * `operator_sign_in_failures`: consecutive failed sign-ins of one e-mail address (lower-case, whether or not an
 * operator has it) from one client address, and until when that pair's next attempt is refused.
 */
export interface OperatorSignInFailureTable {
  readonly email: string
  /** The client address the admin host determined (the socket's peer, or X-Forwarded-For behind a trusted proxy). */
  readonly clientAddress: string
  failureCount: number
  lastFailureAt: Date
  /** The pair's attempts before this instant are refused without checking the password. */
  blockedUntil: Date
  /** The id of the last attempt admitted, which `returning` compares to tell an attempt whether it was admitted. */
  lastAttemptId: string
}

/**
 * `connector_app_publishers`: the organization whose operator registered a connector app in the console; only its
 * operators change the app's keys. An app registered otherwise has no row.
 */
export interface ConnectorAppPublisherTable {
  readonly appId: string
  readonly organizationId: string
  readonly createdAt: Date
}
