/**
 * `pnpm signing-key:rotate`: rotates the access-token signing key of the database the environment names
 * (`DATABASE_URL`, or PGlite in `DATA_DIR`; see `AppConfig`) and prints `{ kid, previousKid, previousPublishedUntil }`
 * as JSON. Running instances on PostgreSQL pick the new key up within seconds, without a restart. PGlite is one
 * process's database: stop the product before rotating its keys. The new key is sealed under the first key of
 * KEY_ENCRYPTION_KEYS (on PGlite without it, DATA_DIR/key-encryption-keys), as the product's start reads them; keys
 * that don't open stop the command with a sentence on stderr and exit code 1.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Effect } from "effect"
import { AppConfig } from "./platform/AppConfig.js"
import { DatabaseLive } from "./Hosts.js"
import { rotateSigningKey } from "./identity/SigningKeyRotation.js"
import { exitOnKeyEncryptionError, KeyEncryption } from "./platform/KeyEncryption.js"

rotateSigningKey.pipe(
  Effect.flatMap((rotation) => Effect.sync(() => console.log(JSON.stringify(rotation)))),
  Effect.provide(DatabaseLive),
  Effect.provide(KeyEncryption.fromEnv),
  Effect.provide(AppConfig.fromEnv),
  exitOnKeyEncryptionError("Not rotating"),
  NodeRuntime.runMain
)
