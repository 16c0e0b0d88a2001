/**
 * Source maps for the product's own modules only (issue 27, peak RSS): stack traces through the files of this
 * repository (`apps/*` and `packages/*`, each file's `.js.map` beside it) name their TypeScript sources and lines, as
 * `--enable-source-maps` made them, while the libraries' maps (`node_modules`: effect alone ships 362) are neither read
 * nor parsed, and their frames keep the published JavaScript's positions. `--enable-source-maps` kept every loaded
 * module's map in the heap (9.4 MiB with both hosts) and parsed a library's map on the first stack trace through it.
 */
import { setSourceMapsSupport } from "node:module"

/**
 * Turns Node's source-map support on for the modules loaded after the call, those outside `node_modules`, and off for
 * code made by `eval` or `new Function`. Modules loaded before it keep their compiled positions, so a process calls
 * it first and imports the rest dynamically (`start.ts`). Process-wide; never fails on Node ≥ 22.14.
 */
export const useOwnSourceMaps = (): void => setSourceMapsSupport(true, { nodeModules: false, generatedCode: false })
