// Flat config of apps/api: the shared rules, and services and repositories that never import HTTP — the kernel's
// HTTP adapters, the contract's problem classes or handlers (CONTRIBUTING.md: a request travels one way).
import base, { alwaysRestricted, platformBarrels } from "./index.js"

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
    files: ["src/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: platformBarrels, patterns: alwaysRestricted }] }
  },
  {
    // The kernel imports no capability: a need of the kernel is a port (a Context.Tag) a capability provides.
    files: ["src/platform/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          paths: platformBarrels,
          patterns: [
            ...alwaysRestricted,
            { group: ["../*/**"], message: "The kernel imports no capability: declare a port here and provide it there." }
          ]
        }
      ]
    }
  },
  {
    // Services by role whatever their suffix: the token grants, the token signer and verifier, the signing keys.
    files: [
      "src/**/*Service.ts",
      "src/**/*Repository.ts",
      "src/**/*Grant.ts",
      "src/**/*Signer.ts",
      "src/**/*Verifier.ts",
      "src/**/SigningKeys.ts"
    ],
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
