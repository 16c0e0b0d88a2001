/**
 * The benchmark's baseline: the least a plain Node server does to answer the measured operations, run as its own
 * process (like the product) so it does not share an event loop with the load generator. Started by `bench.ts`;
 * not a product component.
 *
 * - `GET /send-queue?limit=N&cursor=C`, `POST /pass/{proposalId}` and `POST /report-payment/{invoiceId}`: the API's statements on a `pg.Pool` of the
 *   same size as the API's (10), see `BaselineBilling.ts`. No token verification: the organization and the granted
 *   contexts come from the environment (those of the demo Application).
 * - `POST /oauth/token` with `grant_type=client_credentials` and HTTP Basic: checks the secret's shape, then the API's
 *   one statement (`TokenRateLimitRepository.admitApplication`: the active Application with the secret's SHA-256
 *   digest and its granted contexts, the client's sliding-window upsert, the secret's `last_used_at`), then an ES256
 *   JWT with the product's claims (iss, sub, aud, exp, iat, jti, client_id, org, roles, ctx) signed with node:crypto
 *   (P-256 key made at start-up) — without acting on the rate limit's verdict, and no discovery or error details
 *   beyond `invalid_client` / `invalid_request`.
 * - `POST /oauth/token` with the installation-token grant: `InstallationGrantBaseline.ts` (the app's key and the
 *   installation in one read, the signature, the `jti` consumed, the same rate-limit statement, the same claims).
 *
 * - `GET /availability?resourceId=&from=&to=&durationMinutes=` and `POST /preview` (`{resourceId, period}`): the
 *   SQL the API runs for a booking resource's free time and a priced preview — the resource the Application may
 *   sell (the visible-contexts CTE and its grant), its price rules, its offered add-ons (preview), the live bookings
 *   near the window — then the same pure functions of `@propline/booking` (freePeriods and bookableStarts;
 *   checkBooking), answered with `JSON.stringify`. No token verification: the Application comes from APPLICATION_ID.
 *
 * Environment: DATABASE_URL, ORGANIZATION_ID, GRANTED_CONTEXT_IDS (JSON array), APPLICATION_ID, ISSUER, AUDIENCE,
 * POOL_MAX (default 10). Listens on 127.0.0.1 on a free port and writes one line to stdout: `{"port":N,"publicJwk":{…}}`.
 */
import { createHash, generateKeyPairSync, randomUUID, sign } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { bookableStarts, freePeriods } from "@propline/booking/Availability"
import { checkBooking } from "@propline/booking/BookingCheck"
import type { AddOnProduct } from "@propline/booking/AddOnProduct"
import type { BookableResource, PriceRule } from "@propline/booking/Resource"
import pg from "pg"
import { billingBaseline, json } from "./BaselineBilling.js"
import { GRANT_TYPE_INSTALLATION_TOKEN } from "../InstallationAssertion.js"
import { installationGrantBaseline } from "./InstallationGrantBaseline.js"
import { LIVE_BOOKINGS_SQL, OFFERED_ADD_ONS_SQL, SELLABLE_RESOURCE_SQL } from "./BookingStatements.js"
import { admissionParameters, basicCredentials, clientCredentialsClaims, TOKEN_TTL_SECONDS, TOKEN_SQL, type TokenRow, wellFormedSecret } from "./TokenStatements.js"

const env = (name: string): string => {
  const value = process.env[name]
  if (value === undefined || value === "") throw new Error(`${name} is not set`)
  return value
}

const organizationId = env("ORGANIZATION_ID")
const grantedContextIds = JSON.parse(env("GRANTED_CONTEXT_IDS")) as Array<string>
const issuer = env("ISSUER")
const audience = env("AUDIENCE")
const pool = new pg.Pool({ connectionString: env("DATABASE_URL"), max: Number(process.env["POOL_MAX"] ?? "10") })
pool.on("error", () => {})
const billing = billingBaseline(pool, organizationId, grantedContextIds)

const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
const kid = randomUUID()
const jwtHeader = Buffer.from(JSON.stringify({ alg: "ES256", typ: "at+jwt", kid })).toString("base64url")

const MAX_BODY_BYTES = 4096

const readBody = (request: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
    })
    request.on("end", () => resolve(size > MAX_BODY_BYTES ? undefined : Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

/** An ES256 JWT of `claims` with the baseline's key: what both grants answer. */
const signClaims = (claims: Record<string, unknown>): string => {
  const signingInput = `${jwtHeader}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}`
  const signature = sign("sha256", Buffer.from(signingInput), { key: privateKey, dsaEncoding: "ieee-p1363" })
  return `${signingInput}.${signature.toString("base64url")}`
}

const installationGrant = installationGrantBaseline({
  pool,
  tokenEndpoint: `${issuer}/oauth/token`,
  issuer,
  signToken: signClaims,
  audience
})

const token = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
  const body = await readBody(request)
  const contentType = request.headers["content-type"] ?? ""
  if (body === undefined || !contentType.startsWith("application/x-www-form-urlencoded")) {
    return json(response, 400, { error: "invalid_request" })
  }
  const form = new URLSearchParams(body)
  if (form.get("grant_type") === GRANT_TYPE_INSTALLATION_TOKEN) {
    const reply = await installationGrant(form)
    return json(response, reply.status, reply.body)
  }
  if (form.get("grant_type") !== "client_credentials") {
    return json(response, 400, { error: "unsupported_grant_type" })
  }
  const credentials = basicCredentials(request.headers.authorization)
  if (credentials === undefined || !wellFormedSecret.test(credentials.secret)) {
    return json(response, 401, { error: "invalid_client" })
  }
  const now = Date.now()
  const at = new Date(now)
  const digest = createHash("sha256").update(credentials.secret, "utf8").digest("hex")
  const { rows } = await pool.query<TokenRow>(TOKEN_SQL, [
    digest,
    credentials.clientId,
    ...admissionParameters(credentials.clientId, at),
    at,
    new Date(now - 60_000)
  ])
  const client = rows[0]
  if (client === undefined) return json(response, 401, { error: "invalid_client" })
  json(response, 200, {
    access_token: signClaims(clientCredentialsClaims(issuer, audience, credentials.clientId, client, now)),
    token_type: "Bearer",
    expires_in: TOKEN_TTL_SECONDS
  })
}

const applicationId = env("APPLICATION_ID")

type Row = Record<string, unknown>

const sellableResource = async (resourceId: string): Promise<BookableResource | undefined> => {
  const { rows } = await pool.query<Row>(
    SELLABLE_RESOURCE_SQL,
    [organizationId, grantedContextIds, applicationId, resourceId]
  )
  const row = rows[0]
  if (row === undefined) return undefined
  const rules = (row["rules"] as Array<Row>).map(
    (rule): PriceRule => ({
      id: rule["id"] as string,
      name: rule["name"] as string,
      unit: rule["unit"] as PriceRule["unit"],
      amountMinorUnits: Number(rule["amount_minor_units"]),
      vatRateBasisPoints: rule["vat_rate_basis_points"] as number,
      weekdays: rule["weekdays"] as PriceRule["weekdays"],
      ...(rule["window_from"] === null ? {} : { window: { from: rule["window_from"] as string, to: rule["window_to"] as string } })
    })
  )
  return {
    id: row["id"] as string,
    organizationId: row["organization_id"] as string,
    operationalContextId: row["operational_context_id"] as string,
    kind: row["kind"] as BookableResource["kind"],
    name: row["name"] as string,
    timeZone: row["time_zone"] as string,
    capacity: row["capacity"] as number,
    currency: row["currency"] as BookableResource["currency"],
    openingHours: row["opening_hours"] as BookableResource["openingHours"],
    minDurationMinutes: row["min_duration_minutes"] as number,
    maxDurationMinutes: row["max_duration_minutes"] as number,
    durationIncrementMinutes: row["duration_increment_minutes"] as number,
    startIncrementMinutes: row["start_increment_minutes"] as number,
    minimumNoticeMinutes: row["minimum_notice_minutes"] as number,
    horizonDays: row["horizon_days"] as number,
    bufferBeforeMinutes: row["buffer_before_minutes"] as number,
    bufferAfterMinutes: row["buffer_after_minutes"] as number,
    holdMinutes: row["hold_minutes"] as number,
    ...(row["night_stays"] === null ? {} : { nightStays: row["night_stays"] as NonNullable<BookableResource["nightStays"]> }),
    priceRules: rules
  }
}

const livePeriods = async (resourceId: string, from: Date, to: Date) =>
  (
    await pool.query<{ starts_at: Date; ends_at: Date }>(
      LIVE_BOOKINGS_SQL,
      [resourceId, from, to]
    )
  ).rows.map((row) => ({ start: row.starts_at, end: row.ends_at }))

const availability = async (url: URL, response: ServerResponse): Promise<void> => {
  const resource = await sellableResource(url.searchParams.get("resourceId") ?? "")
  if (resource === undefined) return json(response, 404, { error: "not_found" })
  const window = { from: new Date(url.searchParams.get("from") ?? ""), to: new Date(url.searchParams.get("to") ?? "") }
  const duration = Number(url.searchParams.get("durationMinutes") ?? "60")
  const reach = (resource.bufferBeforeMinutes + resource.bufferAfterMinutes + duration) * 60_000
  const otherBookings = await livePeriods(resource.id, new Date(window.from.getTime() - reach), new Date(window.to.getTime() + reach))
  const now = new Date()
  const state = { resource, otherBookings }
  json(response, 200, {
    resourceId: resource.id,
    freePeriods: freePeriods(state, window, now),
    startTimes: bookableStarts(state, window, duration, now)
  })
}

const preview = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
  const body = JSON.parse((await readBody(request)) ?? "{}") as { resourceId: string; period: { start: string; end: string } }
  const resource = await sellableResource(body.resourceId)
  if (resource === undefined) return json(response, 404, { error: "not_found" })
  const start = new Date(body.period.start)
  const end = new Date(body.period.end)
  const gap = (resource.bufferBeforeMinutes + resource.bufferAfterMinutes) * 60_000
  const [addOns, otherBookings] = await Promise.all([
    pool.query<Row>(
      OFFERED_ADD_ONS_SQL,
      [resource.id]
    ),
    livePeriods(resource.id, new Date(start.getTime() - gap), new Date(end.getTime() + gap))
  ])
  const offeredAddOns = addOns.rows.map((row) => ({ id: row["id"], currency: row["currency"], retired: row["retired_at"] !== null }) as unknown as AddOnProduct)
  const checked = checkBooking({ resource, offeredAddOns, otherBookings }, { time: { _tag: "Period", start, end }, addOns: [] }, new Date())
  if (checked._tag === "Left") return json(response, checked.left.status, { code: checked.left.code })
  json(response, 200, { resourceId: resource.id, start, end, price: checked.right.price })
}

const passPath = /^\/pass\/([0-9a-f-]{36})$/
const reportPaymentPath = /^\/report-payment\/([0-9a-f-]{36})$/

const route = (request: IncomingMessage, response: ServerResponse): Promise<void> => {
  const url = new URL(request.url ?? "/", "http://127.0.0.1")
  if (request.method === "GET" && url.pathname === "/send-queue") return billing.sendQueue(url, response)
  if (request.method === "POST" && url.pathname === "/oauth/token") return token(request, response)
  if (request.method === "GET" && url.pathname === "/availability") return availability(url, response)
  if (request.method === "POST" && url.pathname === "/preview") return preview(request, response)
  const pass = request.method === "POST" ? passPath.exec(url.pathname) : null
  if (pass !== null) {
    return readBody(request).then((body) =>
      body === undefined ? json(response, 413, { error: "too_large" }) : billing.pass(pass[1]!, body, response)
    )
  }
  const payment = request.method === "POST" ? reportPaymentPath.exec(url.pathname) : null
  if (payment !== null) {
    return readBody(request).then((body) =>
      body === undefined ? json(response, 413, { error: "too_large" }) : billing.reportPayment(payment[1]!, body, response)
    )
  }
  return Promise.resolve(json(response, 404, { error: "not_found" }))
}

const server = createServer((request, response) => {
  const handled = route(request, response)
  handled.catch((error: unknown) => {
    console.error(error)
    if (!response.headersSent) json(response, 500, { error: "server_error" })
    else response.destroy()
  })
})

const shutdown = (): void => {
  server.close()
  server.closeAllConnections()
  void pool.end().finally(() => process.exit(0))
}
process.on("SIGTERM", shutdown)
process.on("SIGINT", shutdown)

server.listen(0, "127.0.0.1", () => {
  const address = server.address()
  if (address === null || typeof address === "string") throw new Error("no port")
  process.stdout.write(`${JSON.stringify({ port: address.port, kid, publicJwk: publicKey.export({ format: "jwk" }) })}\n`)
})
