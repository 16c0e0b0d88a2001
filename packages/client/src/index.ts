/**
 * `@propline/client`: the Promise API (`Propline`) and its errors. Small: it loads neither Effect's runtime nor the
 * contract's schemas. The Effect API is at `@propline/client/Client` (with `Tokens`, `Events`).
 */
export { type Json, Propline, type ProplineCredentials, type ProplineOptions, type ProplineResult } from "./Propline.js"
export * from "./Errors.js"
export type { CursorPage, Settings } from "./internal/policy.js"
export type { ApplicationCredentials, Credentials, InstallationCredentials, Options, ProplineClient } from "./Client.js"
