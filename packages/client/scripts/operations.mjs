/**
 * Writes `src/internal/operations.ts`, the Promise API's table of every operation of the contract's IntegrationApi
 * (group, name, method, path), so the Promise API calls the contract's operations without loading the contract's
 * HttpApi at run time. `test/Operations.test.ts` fails when the table and the contract differ.
 *
 *   pnpm turbo run build --filter=@propline/contract... && node packages/client/scripts/operations.mjs
 */
import { writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

const { IntegrationApi } = await import("@propline/contract/Api.js")
const lines = []
for (const [group, { endpoints }] of Object.entries(IntegrationApi.groups)) {
  lines.push(`  ${group}: {`)
  for (const [name, endpoint] of Object.entries(endpoints)) lines.push(`    ${name}: "${endpoint.method} ${endpoint.path}",`)
  lines[lines.length - 1] = lines[lines.length - 1].replace(/,$/, "")
  lines.push("  },")
}
lines[lines.length - 1] = "  }"
const source = `/**
 * Every operation of \`@propline/contract\`'s IntegrationApi as "METHOD /path" (path parameters as \`:name\`), by group
 * and name. Written by \`scripts/operations.mjs\` from the contract; \`test/Operations.test.ts\` checks it against it.
 */
export const OPERATIONS = {
${lines.join("\n")}
} as const
`
writeFileSync(fileURLToPath(new URL("../src/internal/operations.ts", import.meta.url)), source)
