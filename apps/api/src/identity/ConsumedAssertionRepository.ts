/**
 * SQL of consumed client assertions (spec 5.3 and 8: "each jti usable once"; decisions 3: consumed atomically in
 * the database, valid across every instance).
 */
import { Effect } from "effect"
import * as Sql from "../platform/Sql.js"

export class ConsumedAssertionRepository extends Effect.Service<ConsumedAssertionRepository>()(
  "@propline/api/identity/ConsumedAssertionRepository",
  {
    succeed: {
      /**
       * Consumes the app's `jti`: true when this call consumed it, false when it was consumed before (by any
       * instance). The primary key (app, jti) decides: of concurrent requests with one assertion, exactly one
       * inserts; the others wait for it to commit and insert nothing. Commits durably, unlike the rate-limit
       * bookkeeping: a `jti` lost in a crash could be replayed.
       */
      consume: (appId: string, jti: string, expiresAt: Date, now: Date) =>
        Sql.query((db) =>
          db
            .insertInto("consumedAssertions")
            .values({ appId, jti, expiresAt, consumedAt: now })
            .onConflict((oc) => oc.columns(["appId", "jti"]).doNothing())
            .returning("jti")
            .executeTakeFirst()
        ).pipe(Effect.map((row) => row !== undefined)),

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
