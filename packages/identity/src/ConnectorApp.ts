/**
 * Connector apps (decisions 2; spec 5.3): registered once with an app id, a name, a setup URL and one or more ES256
 * public keys (JWKs with a `kid`), then installed into organizations (`Installation`). An installed connector signs
 * its client assertions with a private key whose public half is one of the app's active keys; the `kid` in the
 * assertion's header picks it.
 *
 * The key shapes here are checked without cryptography; the HTTP layer also imports each key (jose) so a point
 * that is not on the P-256 curve is refused too (`AppInvalid` `key`).
 *
 * @since 0.2.0
 */
import { Either, Predicate } from "effect"
import { AppAlreadyExists, AppInvalid, type AppInvalidRule } from "./IdentityRefusal.js"

/**
 * The shape of an app id: 3 to 64 characters, lower-case letters and digits in groups joined by single hyphens,
 * starting with a letter (`acme-erp`, `fortnox2`). It is the assertion's `iss` and `sub` and the installation
 * token's `client_id`; it can never look like an Application's `client_id` (`app_…`), which has an underscore.
 *
 * @since 0.2.0
 */
export const APP_ID_PATTERN = /^(?=.{3,64}$)[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/

/**
 * The most active keys an app holds at once (rotation needs two; ten leave room for one per region or
 * environment).
 *
 * @since 0.2.0
 */
export const MAX_APP_KEYS = 10

/**
 * A public key as stored and published: an EC P-256 JWK (RFC 7517, 7518 6.2) with `kid`, `alg: "ES256"` and
 * `use: "sig"`, and nothing else.
 *
 * @since 0.2.0
 */
export interface AppPublicJwk {
  readonly kty: "EC"
  readonly crv: "P-256"
  readonly x: string
  readonly y: string
  readonly kid: string
  readonly alg: "ES256"
  readonly use: "sig"
}

/**
 * One key of an app: `active` keys verify assertions, `retired` ones never again (their `kid` stays taken).
 *
 * @since 0.2.0
 */
export interface AppKey {
  readonly kid: string
  readonly publicJwk: AppPublicJwk
  readonly status: "active" | "retired"
  readonly addedAt: Date
  readonly retiredAt: Date | null
}

/**
 * A registered connector app. `id` is the app id ({@link APP_ID_PATTERN}); `keys` in the order they were added.
 *
 * @since 0.2.0
 */
export interface ConnectorAppRecord {
  readonly id: string
  readonly name: string
  readonly setupUrl: string
  readonly keys: ReadonlyArray<AppKey>
  readonly createdAt: Date
  readonly updatedAt: Date
}

/**
 * A registration: the app id, name and setup URL as given, and the public keys as JWK objects (unchecked).
 *
 * @since 0.2.0
 */
export interface RegisterApp {
  readonly appId: string
  readonly name: string
  readonly setupUrl: string
  readonly keys: ReadonlyArray<unknown>
}

const invalid = (rule: AppInvalidRule, detail: string) => Either.left(new AppInvalid({ rule, detail }))

const BASE64URL_32_BYTES = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/
const KID = /^[\x21-\x7E]{1,200}$/
// Text without C0/C1 controls or DEL.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001F\u007F-\u009F]/

/**
 * A JWK as given, checked and reduced to {@link AppPublicJwk}: `kty` EC, `crv` P-256, `x` and `y` each 32 bytes in
 * unpadded base64url (43 characters, canonical last character), `kid` 1 to 200 printable ASCII characters without
 * spaces, `alg` ES256 or absent, `use` sig or absent, `key_ops` absent or `["verify"]`, and no private `d`. Other
 * members are dropped. Else `AppInvalid` (`INTEGRATIONS_APP_INVALID`, 400) with rule `key`.
 *
 * @since 0.2.0
 */
export const checkPublicJwk = (jwk: unknown): Either.Either<AppPublicJwk, AppInvalid> => {
  const refuse = () =>
    invalid("key", "Each key must be an ES256 public JWK: kty EC, crv P-256, x and y, a kid, and no private part.")
  if (!Predicate.isRecord(jwk) || Array.isArray(jwk)) return refuse()
  const { alg, crv, d, key_ops, kid, kty, use, x, y } = jwk
  if (kty !== "EC" || crv !== "P-256" || d !== undefined) return refuse()
  if (typeof x !== "string" || !BASE64URL_32_BYTES.test(x) || typeof y !== "string" || !BASE64URL_32_BYTES.test(y)) {
    return refuse()
  }
  if (typeof kid !== "string" || !KID.test(kid)) return refuse()
  if (alg !== undefined && alg !== "ES256") return refuse()
  if (use !== undefined && use !== "sig") return refuse()
  if (key_ops !== undefined && !(Array.isArray(key_ops) && key_ops.length === 1 && key_ops[0] === "verify")) {
    return refuse()
  }
  return Either.right({ kty: "EC", crv: "P-256", x, y, kid, alg: "ES256", use: "sig" })
}

const checkSetupUrl = (setupUrl: string): boolean => {
  if (setupUrl.length > 2000 || !URL.canParse(setupUrl)) return false
  const url = new URL(setupUrl)
  return url.protocol === "https:" && url.username === "" && url.password === "" && url.hash === "" && !setupUrl.includes("#")
}

/**
 * Registers a connector app (decisions 2). `taken` says whether an app with this id exists already. Checks, in
 * order, each refusing with `AppInvalid` (`INTEGRATIONS_APP_INVALID`, 400) and its rule: `app_id`
 * ({@link APP_ID_PATTERN}); `name` (1 to 200 characters, not blank, no control characters); `setup_url` (an
 * absolute https URL, no credentials, no fragment, at most 2000 characters); `no_keys` (1 to {@link MAX_APP_KEYS}
 * keys); `key` (each passes {@link checkPublicJwk}); `kid_taken` (two keys with one `kid`). Then `taken`:
 * `AppAlreadyExists` (`INTEGRATIONS_APP_ALREADY_EXISTS`, 409). The record has every key `active`, added at `now`.
 *
 * @since 0.2.0
 */
export const registerApp = (
  taken: boolean,
  command: RegisterApp,
  now: Date
): Either.Either<{ readonly record: ConnectorAppRecord }, AppInvalid | AppAlreadyExists> =>
  Either.gen(function* () {
    if (!APP_ID_PATTERN.test(command.appId)) {
      return yield* invalid(
        "app_id",
        "The app id must be 3 to 64 lower-case letters, digits and single hyphens, starting with a letter."
      )
    }
    const name = command.name
    if ([...name].length > 200 || name.trim() === "" || CONTROL.test(name)) {
      return yield* invalid("name", "The name must be 1 to 200 characters of text.")
    }
    if (!checkSetupUrl(command.setupUrl)) {
      return yield* invalid("setup_url", "The setup URL must be an absolute https URL without credentials or fragment.")
    }
    if (command.keys.length === 0 || command.keys.length > MAX_APP_KEYS) {
      return yield* invalid("no_keys", `Register 1 to ${MAX_APP_KEYS} public keys.`)
    }
    const keys: Array<AppKey> = []
    for (const given of command.keys) {
      const publicJwk = yield* checkPublicJwk(given)
      if (keys.some((key) => key.kid === publicJwk.kid)) {
        return yield* invalid("kid_taken", "Two keys have the same kid; each key needs its own.")
      }
      keys.push({ kid: publicJwk.kid, publicJwk, status: "active", addedAt: now, retiredAt: null })
    }
    if (taken) {
      return yield* Either.left(
        new AppAlreadyExists({ appId: command.appId, detail: "A connector app with this app id is already registered." })
      )
    }
    return {
      record: { id: command.appId, name, setupUrl: command.setupUrl, keys, createdAt: now, updatedAt: now }
    }
  })

/**
 * Adds a public key to an app, active at once (key rotation: add the new key, move the connector to it, retire
 * the old one). Refusals, `AppInvalid` (`INTEGRATIONS_APP_INVALID`, 400): `key` ({@link checkPublicJwk}),
 * `kid_taken` (a key of the app, active or retired, has this `kid`), `no_keys` (the app already holds
 * {@link MAX_APP_KEYS} active keys).
 *
 * @since 0.2.0
 */
export const addKey = (
  app: ConnectorAppRecord,
  command: { readonly jwk: unknown },
  now: Date
): Either.Either<{ readonly record: ConnectorAppRecord; readonly key: AppKey }, AppInvalid> =>
  Either.gen(function* () {
    const publicJwk = yield* checkPublicJwk(command.jwk)
    if (app.keys.some((key) => key.kid === publicJwk.kid)) {
      return yield* invalid("kid_taken", "The app already has a key with this kid; a kid names one key for good.")
    }
    if (app.keys.filter((key) => key.status === "active").length >= MAX_APP_KEYS) {
      return yield* invalid("no_keys", `An app holds at most ${MAX_APP_KEYS} active keys; retire one first.`)
    }
    const key: AppKey = { kid: publicJwk.kid, publicJwk, status: "active", addedAt: now, retiredAt: null }
    return { record: { ...app, keys: [...app.keys, key], updatedAt: now }, key }
  })

/**
 * Retires a key: assertions signed with it are refused from `now` on (`invalid_client`). Retiring a retired key
 * changes nothing (`changed: false`). Refusals, `AppInvalid` (`INTEGRATIONS_APP_INVALID`, 400): `kid_unknown` (no
 * key of the app has this `kid`), `last_key` (it is the app's only active key).
 *
 * @since 0.2.0
 */
export const retireKey = (
  app: ConnectorAppRecord,
  command: { readonly kid: string },
  now: Date
): Either.Either<{ readonly record: ConnectorAppRecord; readonly changed: boolean }, AppInvalid> => {
  const key = app.keys.find((candidate) => candidate.kid === command.kid)
  if (key === undefined) return invalid("kid_unknown", "The app has no key with this kid.")
  if (key.status === "retired") return Either.right({ record: app, changed: false })
  if (app.keys.filter((candidate) => candidate.status === "active").length === 1) {
    return invalid("last_key", "This is the app's only active key; add its successor before retiring it.")
  }
  const keys = app.keys.map((candidate): AppKey =>
    candidate.kid === command.kid ? { ...candidate, status: "retired", retiredAt: now } : candidate
  )
  return Either.right({ record: { ...app, keys, updatedAt: now }, changed: true })
}
