/**
 * The token endpoint's statements as the API writes them (`TokenRateLimitRepository`), shared by the benchmark's
 * plain baseline (`BaselineServer.ts`) and its Fastify peer (`bench-peer/PeerServer.ts`), with the placeholders
 * numbered as kysely numbers the API's, so the server plans all three alike. Change them together with the API's.
 * Also the claims both sign ({@link accessTokenClaims}).
 */
import { randomUUID } from "node:crypto"

/** The shape of a client secret (`service_sk_` and 43 base62 characters); anything else is `invalid_client`. */
export const wellFormedSecret = /^service_sk_[0-9A-Za-z]{43}$/

/**
 * The rate limit's CTE `admission` as the API writes it (`TokenRateLimitRepository`), placeholders from `$first` on;
 * it admits only when `source` has a row.
 */
export const admissionCte = (first: number, source: string): string => {
  const p = (offset: number) => `$${first + offset}`
  return `
  admission as (
    insert into token_rate_limits as r (client_id, admitted_at, last_admission_id)
    select ${p(0)}, array[${p(1)}::timestamptz], ${p(2)}::uuid from ${source}
    on conflict (client_id) do update set
      admitted_at = (
        select case when count(*) < ${p(3)}
          then coalesce(array_agg(w.t order by w.t), '{}') || ${p(4)}::timestamptz
          else array_agg(w.t order by w.t) end
        from unnest(r.admitted_at) as w(t) where w.t > ${p(5)}
      ),
      last_admission_id = (
        select case when count(*) < ${p(6)} then ${p(7)}::uuid else r.last_admission_id end
        from unnest(r.admitted_at) as w(t) where w.t > ${p(8)}
      )
    returning last_admission_id = ${p(9)}::uuid as admitted, admitted_at
  )`
}

/**
 * The rate limit's CTEs as the API writes them: `settings` (the transaction commits without waiting for the WAL) and
 * {@link admissionCte}.
 */
export const admissionCtes = (first: number, source: string): string =>
  `
  settings as (select set_config('synchronous_commit', 'off', true)),${admissionCte(first, source)}`

/** The parameters of {@link admissionCtes}: client id, now, admission id, 60, now, edge, 60, id, edge, id. */
export const admissionParameters = (clientId: string, now: Date): Array<unknown> => {
  const edge = new Date(now.getTime() - 60_000)
  const admission = randomUUID()
  return [clientId, now, admission, 60, now, edge, 60, admission, edge, admission]
}

/**
 * The API's installation-token statement after the assertion verified (`TokenRateLimitRepository.admitFreshAssertion`):
 * the `jti` consumed and, only when this request consumed it, the app's admission, in one round trip, committed
 * durably. No row: the `jti` was consumed before. Parameters: app id, jti, the assertion's expiry, now, then
 * {@link admissionParameters} of the app.
 */
export const CONSUME_ADMIT_SQL = `
  with consumed as (
    insert into consumed_assertions (app_id, jti, expires_at, consumed_at)
    values ($1, $2, $3, $4)
    on conflict (app_id, jti) do nothing
    returning jti
  ),${admissionCte(5, "consumed")}
  select admitted, admitted_at as "admittedAt" from admission`

/**
 * The API's client_credentials statement (`TokenRateLimitRepository.admitApplication`): the active Application with
 * this client_id and secret digest, its admission and the secret's `last_used_at`, in one round trip. Parameters:
 * the secret's SHA-256 (hex), the client id, {@link admissionParameters}, now, now minus a minute.
 */
export const TOKEN_SQL = `
  with client as (
    select a.id, a.organization_id, a.roles, s.id as secret_id,
           array(select c.operational_context_id from application_contexts c
                 where c.application_id = a.id order by c.operational_context_id) as context_ids
    from applications a
    join application_secrets s
      on s.application_id = a.id and s.revoked_at is null and s.secret_digest = $1
    where a.client_id = $2 and a.status = 'active'
    limit 1
  ),
  ${admissionCtes(3, "settings, client")},
  used as (
    update application_secrets set last_used_at = $13
    where id = (select secret_id from client)
      and (last_used_at is null or last_used_at <= $14)
  )
  select client.id, client.organization_id as "organizationId", client.roles,
         client.context_ids as "contextIds", admission.admitted, admission.admitted_at as "admittedAt"
  from client cross join admission`

export interface TokenRow {
  readonly id: string
  readonly organizationId: string
  readonly roles: Array<string>
  readonly contextIds: Array<string>
  readonly admitted: boolean
}

export const basicCredentials = (header: string | undefined): { clientId: string; secret: string } | undefined => {
  if (header === undefined || !header.startsWith("Basic ")) return undefined
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8")
  const colon = decoded.indexOf(":")
  if (colon <= 0) return undefined
  return {
    clientId: decodeURIComponent(decoded.slice(0, colon).replaceAll("+", " ")),
    secret: decodeURIComponent(decoded.slice(colon + 1).replaceAll("+", " "))
  }
}

/** The access token's lifetime, seconds (spec 5: 600). */
export const TOKEN_TTL_SECONDS = 600

/** The claims of an access token as the product issues them (RFC 9068 with `client_id`, `org`, `roles`, `ctx`). */
export const accessTokenClaims = (input: {
  readonly issuer: string
  readonly audience: string
  readonly subject: string
  readonly clientId: string
  readonly organizationId: string | null
  readonly roles: ReadonlyArray<string> | null
  readonly contextIds: ReadonlyArray<string>
  readonly nowMs: number
}) => {
  const iat = Math.floor(input.nowMs / 1000)
  return {
    iss: input.issuer,
    sub: input.subject,
    aud: input.audience,
    exp: iat + TOKEN_TTL_SECONDS,
    iat,
    jti: randomUUID(),
    client_id: input.clientId,
    org: input.organizationId,
    roles: input.roles,
    ctx: input.contextIds
  }
}

/** The claims of a client_credentials token for the Application {@link TOKEN_SQL} found. */
export const clientCredentialsClaims = (issuer: string, audience: string, clientId: string, client: TokenRow, nowMs: number) =>
  accessTokenClaims({
    issuer,
    audience,
    subject: client.id,
    clientId,
    organizationId: client.organizationId,
    roles: client.roles,
    contextIds: client.contextIds,
    nowMs
  })
