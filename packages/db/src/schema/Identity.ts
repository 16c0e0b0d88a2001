/** `applications`: a client holding client credentials, in one organization (spec 5.2, decisions 2). */
export interface ApplicationTable {
  readonly id: string
  readonly organizationId: string
  /** OAuth 2.0 client_id (RFC 6749 2.2), unique across the service. */
  readonly clientId: string
  name: string
  /** Roles the Application's tokens carry: billing, signing, booking. */
  roles: Array<string>
  status: "active" | "disabled"
  disabledAt: Date | null
  readonly createdAt: Date
  updatedAt: Date
}

/** `application_contexts`: operational contexts granted to an Application (each includes its subtree). */
export interface ApplicationContextTable {
  readonly applicationId: string
  readonly operationalContextId: string
}

/** `application_secrets`: SHA-256 digests of client secrets; the secret itself is never stored. */
export interface ApplicationSecretTable {
  readonly id: string
  readonly applicationId: string
  /** Lower-case hex SHA-256 of the whole secret. */
  readonly secretDigest: string
  /** Last four characters, shown to operators to tell secrets apart. */
  readonly lastFour: string
  readonly createdAt: Date
  revokedAt: Date | null
  lastUsedAt: Date | null
}

/** `signing_keys`: ES256 keys that sign access tokens (decisions 3: rotate, keep the previous one published). */
export interface SigningKeyTable {
  readonly kid: string
  readonly algorithm: "ES256"
  /**
   * Private JWK (RFC 7517) as JSON: only in a row written before keys were sealed at rest, until the next start
   * seals it (then null).
   */
  privateJwk: Record<string, unknown> | null
  /** The private JWK's JSON sealed under a key-encryption key (AES-256-GCM envelope `v1.<kek id>.<iv>.<ciphertext>.<tag>`). */
  privateJwkEnvelope: string | null
  /** Public JWK as JSON, published in the JWKS. */
  readonly publicJwk: Record<string, unknown>
  readonly createdAt: Date
  /**
   * When it starts signing, for a key rotated in ahead of time (published in the JWKS from `createdAt`); `null`: from
   * `createdAt`.
   */
  readonly activatesAt: Date | null
  /** When it stopped (or stops) signing; published until every token it signed has expired. */
  retiredAt: Date | null
}

/**
 * `token_rate_limits`: the token rate limit's sliding window (spec 8: 60 requests per 60 s per client;
 * `@propline/identity/RateLimitWindow`), one row per client: the arrivals of its admitted requests of the last
 * 60 seconds (in the order recorded), and the random id of the last admission (how the upsert tells its caller whether it
 * admitted this request). `clientId` is the client_id of an Application or the app id of a connector.
 */
export interface TokenRateLimitTable {
  readonly clientId: string
  admittedAt: Array<Date>
  lastAdmissionId: string
}

/** `connector_apps`: a connector app, registered once (decisions 2); `id` is its app id, e.g. `acme-erp`. */
export interface ConnectorAppTable {
  readonly id: string
  name: string
  /** The https address an operator's Connect sends a connection reference to (decisions 8). */
  setupUrl: string
  readonly createdAt: Date
  updatedAt: Date
}

/** `connector_app_keys`: an app's ES256 public keys; an assertion's `kid` picks one of the active ones. */
export interface ConnectorAppKeyTable {
  readonly appId: string
  readonly kid: string
  /** The public JWK (kty, crv, x, y, kid, alg ES256, use sig) as JSON. */
  readonly publicJwk: Record<string, unknown>
  status: "active" | "retired"
  readonly addedAt: Date
  retiredAt: Date | null
}

/**
 * `installations`: a connector app installed into an organization, `active`, `suspended` or `removed`, with the
 * roles its tokens carry. At most one installation of an app per organization is not removed (a partial unique key).
 */
export interface InstallationTable {
  readonly id: string
  readonly appId: string
  readonly organizationId: string
  status: "active" | "suspended" | "removed"
  /** billing, signing, booking, and always integrations. */
  roles: Array<string>
  readonly createdAt: Date
  updatedAt: Date
  suspendedAt: Date | null
  removedAt: Date | null
}

/** `installation_contexts`: operational contexts granted to an installation (each includes its subtree). */
export interface InstallationContextTable {
  readonly installationId: string
  readonly operationalContextId: string
}

/**
 * `consumed_assertions`: the `jti` of every accepted client assertion, keyed by app and `jti`, so an assertion works
 * once across every instance (spec 5.3). A row may be forgotten once its assertion's `exp` plus the leeway (and a
 * margin for clocks) has passed: the assertion is refused as expired from then on anyway.
 */
export interface ConsumedAssertionTable {
  readonly appId: string
  readonly jti: string
  readonly expiresAt: Date
  readonly consumedAt: Date
}
