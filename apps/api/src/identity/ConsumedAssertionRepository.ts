/**
 * SQL of consumed client assertions (spec 5.3 and 8: "each jti usable once"; decisions 3: consumed atomically in
 * the database, valid across every instance). A `jti` is consumed together with the app's rate limit, in one
 * statement: `TokenRateLimitRepository.admitFreshAssertion`.
 */
import { Effect } from "effect"
import * as Sql from "../platform/Sql.js"

export class ConsumedAssertionRepository extends Effect.Service<ConsumedAssertionRepository>()(
  "@propline/api/identity/ConsumedAssertionRepository",
  {
    succeed: {
      /**
       * Forgets consumed `jti`s whose assertion expired before `before`, and returns how many. Callers pass a time
       * past every instance's leeway, so a forgotten assertion is refused as expired anyway.
       */
      forgetExpired: (before: Date) =>
        Sql.query((db) => db.deleteFrom("consumedAssertions").where("expiresAt", "<", before).executeTakeFirst()).pipe(
          Effect.map((result) => Number(result.numDeletedRows))
        )
    }
  }
) {}
