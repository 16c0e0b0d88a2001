import base, { alwaysRestricted, platformBarrels } from "@propline/eslint-config"

// The API process loads WebAssets: no platform barrels (see platformBarrels).
export default [
  ...base,
  {
    files: ["src/**/*.ts"],
    rules: { "no-restricted-imports": ["error", { paths: platformBarrels, patterns: alwaysRestricted }] }
  }
]
