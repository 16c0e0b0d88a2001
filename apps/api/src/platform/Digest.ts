/**
 * The one SHA-256 of the server: what the product stores of a secret, a session token or a connection reference
 * (never the value itself), and the digest of a document it keeps.
 *
 * `@propline/signing/SignedDocument` has its own `sha256Hex` over bytes (`@noble/hashes`): that package is a
 * published, runtime-neutral domain package and its function is part of its API; the server hashes with
 * `node:crypto` here.
 */
import { createHash } from "node:crypto"

/** Lower-case hex SHA-256 (FIPS 180-4) of `input`: a string's UTF-8 bytes, or the bytes given. */
export const sha256Hex = (input: string | Uint8Array): string =>
  (typeof input === "string" ? createHash("sha256").update(input, "utf8") : createHash("sha256").update(input)).digest("hex")
