/**
 * The business-rule refusals of the identity domain: connector apps and installations (`INTEGRATIONS_*`) and
 * Applications' secrets (`APPLICATION_SECRET_*`), spec 5.2, 7.3 and 8; decisions 2. Each has the one shape of
 * `@propline/refusal/Refusal` (`code`, `status`, `detail`, and the facts that led to it).
 *
 * Status: 409 for a conflict with a record another request made, settled by a unique key (an app id that is
 * taken, an app already installed in the organization), as for `*_ALREADY_USED` (decisions 4); 400 otherwise.
 *
 * @since 0.2.0
 */
import { Refusal } from "@propline/refusal/Refusal"

/**
 * Which rule of a connector app a registration or a key change broke (`INTEGRATIONS_APP_INVALID`):
 * - `app_id`: the app id is not 3 to 64 characters of lower-case letters, digits and single hyphens, starting with
 *   a letter (`ConnectorApp.APP_ID_PATTERN`);
 * - `name`: the name is not 1 to 200 characters of text (no control characters);
 * - `setup_url`: the setup URL is not an absolute `https` URL without credentials or fragment (at most 2000
 *   characters);
 * - `key`: a public key is not an ES256 public JWK (`kty` EC, `crv` P-256, `x` and `y` of 32 bytes in base64url,
 *   no private `d`, `alg` ES256 or absent, `use` sig or absent, `key_ops` absent or verify only) with a `kid` of 1 to
 *   200 printable ASCII characters;
 * - `no_keys`: a registration without a key, or more than {@link ConnectorApp.MAX_APP_KEYS} keys;
 * - `kid_taken`: the `kid` is already one of the app's keys (active or retired; a kid names one key for good);
 * - `kid_unknown`: no key of the app has this `kid`;
 * - `last_key`: retiring the app's only active key (an app keeps at least one, else no installation could
 *   authenticate).
 *
 * @since 0.2.0
 */
export type AppInvalidRule =
  | "app_id"
  | "name"
  | "setup_url"
  | "key"
  | "no_keys"
  | "kid_taken"
  | "kid_unknown"
  | "last_key"

/**
 * The body member (a JSON Pointer into a registration or a key change) each rule of `INTEGRATIONS_APP_INVALID`
 * is about, so a form shows the refusal beside that field; "" where the rule is about the request as a whole.
 *
 * @since 0.2.0
 */
export const APP_INVALID_FIELDS: Readonly<Record<AppInvalidRule, string>> = {
  app_id: "/appId",
  name: "/name",
  setup_url: "/setupUrl",
  key: "/keys",
  no_keys: "/keys",
  kid_taken: "/keys",
  kid_unknown: "",
  last_key: ""
}

/**
 * `INTEGRATIONS_APP_INVALID`, 400: a connector app's registration or key change breaks one of its rules
 * ({@link AppInvalidRule}). `issues` holds one issue: the rule's field ({@link APP_INVALID_FIELDS}) and the
 * `detail`.
 *
 * @since 0.2.0
 */
export class AppInvalid extends Refusal("AppInvalid", "INTEGRATIONS_APP_INVALID", 400)<{
  readonly rule: AppInvalidRule
}> {
  constructor(args: { readonly rule: AppInvalidRule; readonly detail: string }) {
    super({ ...args, issues: [{ path: APP_INVALID_FIELDS[args.rule], message: args.detail }] })
  }
}

/**
 * `INTEGRATIONS_APP_ALREADY_EXISTS`, 409: a connector app with this app id is already registered.
 *
 * @since 0.2.0
 */
export class AppAlreadyExists extends Refusal("AppAlreadyExists", "INTEGRATIONS_APP_ALREADY_EXISTS", 409)<{
  readonly appId: string
}> {}

/**
 * `INTEGRATIONS_APP_ALREADY_INSTALLED`, 409: the organization already has an installation of the app that is not
 * removed (active or suspended); resume it or remove it first.
 *
 * @since 0.2.0
 */
export class AppAlreadyInstalled extends Refusal("AppAlreadyInstalled", "INTEGRATIONS_APP_ALREADY_INSTALLED", 409)<{
  readonly appId: string
  readonly organizationId: string
}> {}

/**
 * `INTEGRATIONS_ROLE_NOT_GRANTABLE`, 400: a role that this kind of client cannot hold. An Application may hold
 * `billing`, `signing` and `booking`; an installation those and `integrations` (decisions 2). `role` is the first
 * such role as given.
 *
 * @since 0.2.0
 */
export class RoleNotGrantable extends Refusal("RoleNotGrantable", "INTEGRATIONS_ROLE_NOT_GRANTABLE", 400)<{
  readonly role: string
  readonly grantee: "application" | "installation"
}> {}

/**
 * Why a set of granted contexts was refused (`INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`):
 * - `none`: no context; a grant names at least one (the organization's root grants all of it);
 * - `outside_organization`: a context that is not one of the organization's operational contexts;
 * - `nested`: a context inside the subtree of another granted context (it would grant nothing more, and would
 *   silently stop counting if the outer one were withdrawn), or the same context twice.
 *
 * @since 0.2.0
 */
export type ContextLevelRule = "none" | "outside_organization" | "nested"

/**
 * `INTEGRATIONS_CONTEXT_LEVEL_MISMATCH`, 400: the granted operational contexts do not form a valid grant in the
 * organization's tree ({@link ContextLevelRule}).
 *
 * @since 0.2.0
 */
export class ContextLevelMismatch extends Refusal("ContextLevelMismatch", "INTEGRATIONS_CONTEXT_LEVEL_MISMATCH", 400)<{
  readonly rule: ContextLevelRule
  readonly contextId?: string
}> {}

/**
 * `APPLICATION_SECRET_LIMIT_REACHED`, 400: the Application already holds its 2 active secrets (spec 5.2 and 8);
 * revoke one first.
 *
 * @since 0.2.0
 */
export class SecretLimitReached extends Refusal("SecretLimitReached", "APPLICATION_SECRET_LIMIT_REACHED", 400)<{
  readonly applicationId: string
  readonly activeSecrets: number
}> {}

/**
 * `APPLICATION_SECRET_NOT_FOUND`, 400: the Application has no active secret with this id (never issued, another
 * Application's, or already revoked).
 *
 * @since 0.2.0
 */
export class SecretNotFound extends Refusal("SecretNotFound", "APPLICATION_SECRET_NOT_FOUND", 400)<{
  readonly applicationId: string
  readonly secretId: string
}> {}

/**
 * Every refusal of this package.
 *
 * @since 0.2.0
 */
export type IdentityRefusal =
  | AppInvalid
  | AppAlreadyExists
  | AppAlreadyInstalled
  | RoleNotGrantable
  | ContextLevelMismatch
  | SecretLimitReached
  | SecretNotFound
