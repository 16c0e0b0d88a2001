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
  /** Private JWK (RFC 7517) as JSON. */
  readonly privateJwk: Record<string, unknown>
  /** Public JWK as JSON, published in the JWKS. */
  readonly publicJwk: Record<string, unknown>
  readonly createdAt: Date
  /** When it stopped signing; published until every token it signed has expired. */
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
