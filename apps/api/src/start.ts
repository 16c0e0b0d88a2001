/**
 * The process entry `pnpm start` runs (`node <flags> apps/api/dist/start.js`): turns on source maps for the
 * product's own modules only (`platform/SourceMaps`), then starts the product (`main.ts`, imported dynamically: a
 * static import would be evaluated before this module's body, with source maps still off).
 */
import { useOwnSourceMaps } from "./platform/SourceMaps.js"

useOwnSourceMaps()

await import("./main.js")
