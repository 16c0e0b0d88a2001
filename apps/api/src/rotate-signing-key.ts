/**
 * `pnpm signing-key:rotate`: rotates the access-token signing key of the database the environment names
 * (`DATABASE_URL`, or PGlite in `DATA_DIR`; see `AppConfig`) and prints `{ kid, previousKid, previousPublishedUntil }`
 * as JSON. Running instances on PostgreSQL pick the new key up within seconds, without a restart. PGlite is one
 * process's database: stop the product before rotating its keys.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { AppConfig } from "./AppConfig.js"
import { DatabaseLive } from "./Hosts.js"
import { rotateSigningKey } from "./identity/SigningKeyRotation.js"

rotateSigningKey.pipe(
  Effect.flatMap((rotation) => Effect.sync(() => console.log(JSON.stringify(rotation)))),
  Effect.provide(DatabaseLive),
  Effect.provide(AppConfig.fromEnv),
  NodeRuntime.runMain
)
