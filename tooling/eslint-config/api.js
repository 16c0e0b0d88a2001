// Flat config of apps/api: the shared rules; services and repositories (`*Service.ts`, `*OperatorService.ts`,
// `*Repository.ts`, `*ReadRepository.ts`) that never import HTTP — the kernel's HTTP adapters, the contract's problem
// classes or handlers (`*Handlers.ts`, `*AdminHandlers.ts`) (CONTRIBUTING.md: a request travels one way); and no SQL
// outside repositories.
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

/**
 * SQL written anywhere: kysely's `sql` tag, a query builder's statement methods, or the kernel's statement runners.
 * Only repositories (`*Repository.ts`, read models included), the kernel (`platform/`, which writes audit and outbox
 * rows and builds cursor pages) and demo seeding (`demo/`) may write it.
 */
export const sqlOutsideRepositories = [
  {
    selector: "ImportDeclaration[source.value='kysely'][importKind!='type'] > ImportSpecifier[imported.name='sql'][importKind!='type']",
    message: "SQL lives in repositories (`*Repository.ts` / `*ReadRepository.ts`): call the owner's repository or service."
  },
  {
    selector: "CallExpression[callee.property.name=/^(selectFrom|insertInto|updateTable|deleteFrom|mergeInto|replaceInto)$/]",
    message: "SQL lives in repositories (`*Repository.ts` / `*ReadRepository.ts`): call the owner's repository or service."
  },
  {
    selector:
      "CallExpression[callee.object.name='Sql'][callee.property.name=/^(query|rows|rowsCatchingUniqueViolation|catchUniqueViolation|lockVisible)$/]",
    message: "SQL lives in repositories (`*Repository.ts` / `*ReadRepository.ts`): call the owner's repository or service."
  }
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
  },
  {
    files: ["src/**/*.ts"],
    ignores: [
      "src/**/*Repository.ts",
      "src/platform/**",
      "src/demo/**"
    ],
    rules: { "no-restricted-syntax": ["error", ...sqlOutsideRepositories] }
  }
]
