/**
 * The client_credentials grant (spec 5.2, 7.2 and 8; decisions 3; RFC 6749 4.4): issues an access token for a
 * request that passed `TokenRequest.parseTokenRequest`. In order:
 * 1. The secret's shape (`ClientSecret.isWellFormedSecret`), without a round trip.
 * 2. One statement (`TokenRateLimitRepository.admitApplication`): the active Application with this `client_id` and
 *    an unrevoked secret with the presented secret's SHA-256 digest; only if there is one, the client's rate limit
 *    (`TokenAdmission.judgeAdmission`: over 60 in 60 s is `slow_down`, 429, with the exact `retryAfterSeconds`).
 *    No such Application is the one `invalid_client` (401, `credentials_rejected`), whatever was wrong.
 * 3. The token (`AccessTokenSigner`): `sub` the Application's id, `client_id` its client_id, its roles and granted
 *    contexts, 600 s.
 *
 * One round trip per token, in no transaction: the statement is atomic by itself and commits without waiting for
 * the WAL (rate-limit bookkeeping). No audit entry: issuing a token changes no state (decisions 4 audits changes);
 * the rate-limit row and `last_used_at` are the trace. Time comes from Effect's `Clock`; database failures are
 * defects (the endpoint answers 500, never for client input).
 */
import type * as Db from "@propline/db/Db"
import { isWellFormedSecret } from "@propline/identity/ClientSecret"
import { InvalidClient, type SlowDown } from "@propline/identity/TokenError"
import type { ClientCredentialsRequest } from "@propline/identity/TokenRequest"
import { Effect, Redacted } from "effect"
import { createHash } from "node:crypto"
import * as Sql from "../platform/Sql.js"
import { AccessTokenSigner, type IssuedToken } from "./AccessTokenSigner.js"
import { judgeAdmission } from "./TokenAdmission.js"
import { TokenRateLimitRepository } from "./TokenRateLimitRepository.js"
import { tracedOn } from "../platform/Spans.js"

/** SHA-256 of a presented secret, lower-case hex: how `application_secrets.secret_digest` stores it. */
const sha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

const credentialsRejected = (request: ClientCredentialsRequest) =>
  new InvalidClient({ authenticationMethod: request.method, reason: "credentials_rejected" })

/** `refusal` with its error logged at debug (the error and, for `invalid_client`, why). */
const refused = <A>(refusal: Effect.Effect<A, InvalidClient | SlowDown>): Effect.Effect<A, InvalidClient | SlowDown> =>
  Effect.tapError(refusal, (error) =>
    Effect.logDebug("token request refused").pipe(
      Effect.annotateLogs({ error: error.error, reason: error._tag === "InvalidClient" ? error.reason : "" })
    )
  )

export class ClientCredentialsGrant extends Effect.Service<ClientCredentialsGrant>()(
  "@propline/api/identity/ClientCredentialsGrant",
  {
    effect: Effect.gen(function* () {
      const rateLimits = yield* TokenRateLimitRepository
      const signer = yield* AccessTokenSigner

      const authenticateAndSign = (request: ClientCredentialsRequest, now: Date) => {
        const secret = Redacted.value(request.clientSecret)
        if (!isWellFormedSecret(secret)) return refused(Effect.fail(credentialsRejected(request)))
        return Effect.flatMap(
          rateLimits.admitApplication(request.clientId, sha256Hex(secret), now),
          (application): Effect.Effect<IssuedToken, InvalidClient | SlowDown> => {
            if (application === undefined) return refused(Effect.fail(credentialsRejected(request)))
            const token = signer.sign(
              {
                subject: application.id,
                clientId: request.clientId,
                organizationId: application.organizationId,
                roles: application.roles,
                contexts: application.contextIds
              },
              now
            )
            return application.admission.admitted
              ? token
              : refused(Effect.zipRight(judgeAdmission(application.admission, now), token))
          }
        )
      }

      return {
        /**
         * A token for a parsed client_credentials request (HTTP Basic or client_secret_post); fails with
         * `InvalidClient` (401) or `SlowDown` (429).
         *
         * One step before the statement (the time, the span's switch: read from the fiber), none after it beyond the
         * signature's; a refusal is logged where it is made (no handler around the issued token).
         */
        issue: (request: ClientCredentialsRequest): Effect.Effect<IssuedToken, InvalidClient | SlowDown, Db.Db> =>
          Effect.withFiberRuntime((fiber) =>
            // No stack trace on the span: every client_credentials token request runs it.
            tracedOn(fiber, authenticateAndSign(request, Sql.nowOn(fiber)), "ClientCredentialsGrant.issue")
          )
      }
    }),
    dependencies: [TokenRateLimitRepository.Default, AccessTokenSigner.Default]
  }
) {}
