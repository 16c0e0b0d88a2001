// Flat config of the pure domain packages (billing, identity, signing, booking, refusal): the shared rules, and
// no import that does I/O — no file system, network, process, database or HTTP platform — so domain rules stay
// `(state, command, now) → result` and are tested without a database (STYLE.md).
import base, { alwaysRestricted } from "./index.js"

export const ioModules = [
  "fs", "fs/*", "node:fs", "node:fs/*",
  "http", "https", "http2", "net", "tls", "dgram", "dns", "child_process", "cluster", "worker_threads",
  "node:http", "node:https", "node:http2", "node:net", "node:tls", "node:dgram", "node:dns", "node:dns/*",
  "node:child_process", "node:cluster", "node:worker_threads", "node:process", "process",
  "pg", "pg-*", "kysely", "kysely/*", "kysely-*", "@electric-sql/*",
  "@effect/platform", "@effect/platform/*", "@effect/platform-*", "@effect/sql", "@effect/sql*",
  "@aws-sdk/*", "@propline/db", "@propline/db/*", "@propline/contract", "@propline/contract/*"
]

export default [
  ...base,
  {
    files: ["src/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...alwaysRestricted,
            { group: ioModules, message: "Domain packages do no I/O (STYLE.md): keep this import in apps/." }
          ]
        }
      ]
    }
  }
]
