/**
 * Bearer authentication (spec 5): every `/v1` request carries `Authorization: Bearer <access token>`. The
 * middleware verifies the token and provides the {@link Principal}; a missing, expired or invalid token is a 401
 * problem. Roles travel in the token (decisions 2); an operation checks its role and answers 403 without it.
 */
import { HttpApiMiddleware, HttpApiSecurity, OpenApi } from "@effect/platform"
import { Context } from "effect"
import { Unauthorized } from "./Problem.js"

/** The roles a token can carry (decisions 2). */
export type Role = "billing" | "signing" | "booking" | "integrations"

/** Who is calling: decoded from a verified access token (RFC 9068 claims plus organization, roles, contexts). */
export interface PrincipalShape {
  /** The token's `client_id`: the Application's client_id, or the connector's app id for an installation token. */
  readonly clientId: string
  /** The token's `sub`: the Application's id, or the installation's id for an installation token. */
  readonly subject: string
  readonly organizationId: string
  readonly roles: ReadonlyArray<Role>
  /** Operational contexts granted to the client; each includes its subtree. */
  readonly contexts: ReadonlyArray<string>
  /** Token expiry, seconds since the epoch. */
  readonly expiresAt: number
}

export class Principal extends Context.Tag("@propline/contract/Principal")<Principal, PrincipalShape>() {}

export class Authentication extends HttpApiMiddleware.Tag<Authentication>()("@propline/contract/Authentication", {
  failure: Unauthorized,
  provides: Principal,
  security: {
    bearer: HttpApiSecurity.bearer.pipe(
      HttpApiSecurity.annotate(
        OpenApi.Description,
        "An access token (JWT signed ES256, RFC 9068) from {auth_url}/oauth/token; it lives 600 seconds."
      )
    )
  }
}) {}
