/**
 * The port bearer authentication (`Authentication.ts`) verifies access tokens through (spec 5; RFC 9068): the
 * kernel declares it, identity provides it (`identity/AccessTokenVerifier.ts`, in `IdentityLive`), so the kernel
 * never imports a capability.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import { Context, type Effect } from "effect"

/** Why a token was refused, for logs only: the API answers the same 401 whatever `reason` says. */
export interface AccessTokenRejected {
  readonly reason: string
}

export interface AccessTokenVerificationShape {
  /**
   * The principal of `token` (a compact JWS, without the `Bearer ` prefix) when it is a valid, unexpired access
   * token of our identity host; fails with {@link AccessTokenRejected} otherwise. Never fails for infrastructure.
   */
  readonly verify: (token: string) => Effect.Effect<PrincipalShape, AccessTokenRejected>
}

export class AccessTokenVerification extends Context.Tag("@propline/api/platform/AccessTokenVerification")<
  AccessTokenVerification,
  AccessTokenVerificationShape
>() {}
