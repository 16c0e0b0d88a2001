/**
 * `@propline/client`: the Promise API (`Propline`), its errors, and the Effect API (`Client`, `Tokens`, `Events`).
 */
export { Propline } from "./Propline.js"
export * from "./Errors.js"
export type { Credentials, CursorPage, Options, ProplineClient, Settings } from "./Client.js"
