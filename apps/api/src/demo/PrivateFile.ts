/**
 * Files in DATA_DIR that hold a secret (the demo Application's client secret, the demo connector's private key):
 * written atomically with mode 0600, read back as JSON.
 */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"

/** The file's JSON content, or undefined when it is missing, unreadable or not JSON. */
export const readJsonFile = (path: string) =>
  Effect.promise(async (): Promise<unknown> => {
    try {
      return JSON.parse(await readFile(path, "utf8")) as unknown
    } catch {
      return undefined
    }
  })

/**
 * Writes `content` as indented JSON atomically: a temporary file with mode 0600 beside `path`, then a rename over
 * it, so a reader sees the old file or the new one, never a part. Creates `dataDir` when missing.
 */
export const writePrivateFile = (dataDir: string, path: string, content: unknown) =>
  Effect.promise(async () => {
    await mkdir(dataDir, { recursive: true })
    const temporary = `${path}.${randomUUID()}.tmp`
    try {
      await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`, { mode: 0o600, flag: "wx" })
      await chmod(temporary, 0o600) // whatever the umask did
      await rename(temporary, path)
    } catch (error) {
      await rm(temporary, { force: true })
      throw error
    }
  })

/** A kept file that someone made readable to others is narrowed to 0600 again. */
export const ensureOwnerOnly = (path: string) =>
  Effect.promise(async () => {
    if (((await stat(path)).mode & 0o077) !== 0) await chmod(path, 0o600)
  })
