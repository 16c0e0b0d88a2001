// Shared flat config: typescript-eslint's recommended rules plus the house habits of STYLE.md
// (no `any`, no floating promises is left to Effect's typed errors, unused names are errors, no import cycles).
import js from "@eslint/js"
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript"
import importX from "eslint-plugin-import-x"
import tseslint from "typescript-eslint"

/** Imports every package refuses: the old Schema package (Schema comes from `effect`). */
export const alwaysRestricted = [
  { group: ["@effect/schema", "@effect/schema/*"], message: "Schema comes from `effect` (the old package was merged into it)." }
]

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "**/*.js", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // The plugin's TypeScript settings (parser and extensions for the files it follows); rules are chosen below.
  { ...importX.flatConfigs.typescript, rules: {} },
  {
    settings: { "import-x/resolver-next": [createTypeScriptImportResolver({ alwaysTryTypes: true })] },
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-namespace": "off",
      "no-restricted-imports": ["error", { patterns: alwaysRestricted }],
      // Within a package; turbo and pnpm already refuse a cycle between workspace packages.
      "import-x/no-cycle": ["error", { ignoreExternal: true }]
    }
  }
)
