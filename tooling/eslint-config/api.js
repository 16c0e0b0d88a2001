// Flat config of apps/api: the shared rules, and services and repositories that never import HTTP — the kernel's
// HTTP adapters, the contract's problem classes or handlers (CONTRIBUTING.md: a request travels one way).
import base, { alwaysRestricted } from "./index.js"

export const httpModules = [
  "@effect/platform",
  "@effect/platform/*",
  "@effect/platform-node",
  "@effect/platform-node/*",
  "@propline/contract/Problem",
  "@propline/contract/Api",
  "**/platform/Problems.js",
  "**/platform/RequestBody.js",
  "**/platform/RequestAdmission.js",
  "**/platform/Authentication.js",
  "**/*Handlers.js",
  "**/ApiHost.js",
  "**/Hosts.js"
]

export default [
  ...base,
  {
    files: ["src/**/*Service.ts", "src/**/*Repository.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            ...alwaysRestricted,
            { group: httpModules, message: "Services and repositories don't know HTTP: map to problems in the handler." }
          ]
        }
      ]
    }
  }
]
