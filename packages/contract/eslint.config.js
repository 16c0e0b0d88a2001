import base, { alwaysRestricted, platformBarrels } from "@propline/eslint-config"

// The API process loads the contract: no platform barrels (see platformBarrels).
export default [
  ...base,
  {
    files: ["src/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: platformBarrels, patterns: alwaysRestricted }] }
  }
]
