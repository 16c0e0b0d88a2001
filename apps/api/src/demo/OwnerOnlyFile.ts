/**
 * The demo's secret-bearing files in DATA_DIR (`demo-credentials.json`, `demo-operator.json`): JSON of string
 * members, mode 0600, written atomically (a temporary file beside it, then a rename), so a reader sees the old file
 * or the new one, never a part.
 */
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { chmod, mkdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"

/** The file's members when it is a JSON object of exactly `keys`, each a string; otherwise undefined. */
export const readStringRecord = <const K extends string>(path: string, keys: ReadonlyArray<K>) =>
  Effect.promise(async (): Promise<Record<K, string> | undefined> => {
    try {
      const parsed: unknown = JSON.parse(await readFile(path, "utf8"))
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return undefined
      const record = parsed as Record<string, unknown>
      if (Object.keys(record).length !== keys.length || keys.some((key) => typeof record[key] !== "string")) {
        return undefined
      }
      return Object.fromEntries(keys.map((key) => [key, record[key] as string])) as Record<K, string>
    } catch {
      return undefined
    }
  })

/** Writes `content` (members in its own order) to `path` with mode 0600, creating `dataDir` when missing. */
export const writeOwnerOnlyJson = (dataDir: string, path: string, content: Readonly<Record<string, string>>) =>
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
