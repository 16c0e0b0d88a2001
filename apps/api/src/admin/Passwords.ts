/**
 * Operator passwords: argon2id (RFC 9106) through @node-rs/argon2 with OWASP's parameters — 19 MiB of memory, 2
 * passes, 1 lane — stored as the PHC string. Hashing runs off the event loop (libuv's pool).
 */
import { hash, verify } from "@node-rs/argon2"
import { Effect } from "effect"

const options = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const

/** The PHC string (`$argon2id$v=19$m=19456,t=2,p=1$…`) of a new random-salted hash of `password`. */
export const hashPassword = (password: string): Effect.Effect<string> =>
  Effect.promise(() => hash(password, options)).pipe(Effect.withSpan("Passwords.hashPassword"))

/** Whether `password` matches `phc`; a malformed PHC string is a mismatch, never an error. */
export const verifyPassword = (phc: string, password: string): Effect.Effect<boolean> =>
  Effect.promise(() => verify(phc, password).catch(() => false)).pipe(Effect.withSpan("Passwords.verifyPassword"))

/**
 * A hash of no one's password, verified when the e-mail address is unknown so that a wrong address takes as long as
 * a wrong password (no account enumeration by timing). Computed once, on first use.
 */
export const decoyHash: Effect.Effect<string> = Effect.runSync(
  Effect.cached(hashPassword("propline-decoy-password-never-valid"))
)
