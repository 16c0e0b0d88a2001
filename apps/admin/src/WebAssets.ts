/**
 * Where the built front end is: `dist/web` of this package (`index.html` and hashed files under `assets/`), which
 * the admin host serves. Resolved from this module's own location, so it holds wherever the package is installed.
 */
import { fileURLToPath } from "node:url"

/** Absolute path of the built front end's directory. */
export const webAssetsDir: string = fileURLToPath(new URL("./web", import.meta.url))
