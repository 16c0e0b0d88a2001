// Shared flat config: typescript-eslint's recommended rules plus the house habits of STYLE.md
// (no `any`, no floating promises is left to Effect's typed errors, unused names are errors).
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "**/*.js", "**/*.d.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/no-namespace": "off",
      "no-restricted-imports": ["error", { patterns: ["@effect/schema", "@effect/schema/*"] }]
    }
  }
)
