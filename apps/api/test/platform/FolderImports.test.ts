/**
 * What may import what, by folder (CONTRIBUTING.md, "Between the folders of `apps/api/src/`"; STYLE.md: no folder
 * imports a folder that imports it back). ESLint's `import-x/no-cycle` sees files; this reads every import of `src/` (type-only and
 * dynamic ones included) and checks the folders:
 *
 * - no cycle between folders, of any length;
 * - the kernel (`platform/`, the configuration `AppConfig.ts` included) imports no other folder;
 * - a capability imports the kernel and other capabilities, never the console's host (`admin/`), the demo or the
 *   hosts (`ApiHost.ts`, `Hosts.ts`, `main.ts`, `rotate-signing-key.ts`, `start.ts`, `WorkerHost.ts`);
 * - `admin/` imports capabilities for wiring, in `AdminHost.ts`; its other files only through a capability's
 *   repositories (`*Repository.ts`, read repositories included: the owner's statements, such as identity's operators
 *   for the host's sign-in and sessions);
 * - `demo/` may import anything but the hosts; only the hosts import the hosts.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const src = resolve(import.meta.dirname, "../../src")

const capabilities = [
  "audit",
  "billing",
  "booking",
  "contexts",
  "events",
  "identity",
  "integrations",
  "signing",
  "storage",
  "tenancy",
  "webhooks"
] as const
const hostFiles = ["ApiHost.ts", "Hosts.ts", "main.ts", "rotate-signing-key.ts", "start.ts", "WorkerHost.ts"]

/** The folder (node of the graph) a file of `src/` belongs to: its top folder, or the hosts'. */
const folderOf = (file: string): string => {
  const parts = relative(src, file).split(sep)
  if (parts.length > 1) return parts[0]!
  if (hostFiles.includes(parts[0]!)) return "host"
  throw new Error(`${parts[0]} is in no folder role: give it one here and in CONTRIBUTING.md`)
}

const filesUnder = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? filesUnder(join(folder, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(folder, entry.name)]
        : []
  )

interface Import {
  readonly from: string
  readonly to: string
}

/** Every relative import of every file under `src/`, resolved to a file path. */
const importsOf = (files: ReadonlyArray<string>): Array<Import> =>
  files.flatMap((from) =>
    ts
      .preProcessFile(readFileSync(from, "utf8"), true, true)
      .importedFiles.filter(({ fileName }) => fileName.startsWith("."))
      .map(({ fileName }) => ({ from, to: resolve(dirname(from), fileName.replace(/\.js$/, ".ts")) }))
  )

/** The folders' strongly connected components with more than one folder (Tarjan): each one is a cycle. */
const cyclesOf = (edges: ReadonlyMap<string, ReadonlySet<string>>): Array<Array<string>> => {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: Array<string> = []
  const cycles: Array<Array<string>> = []
  const visit = (node: string) => {
    index.set(node, index.size)
    low.set(node, index.get(node)!)
    stack.push(node)
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next)
        low.set(node, Math.min(low.get(node)!, low.get(next)!))
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!))
    }
    if (low.get(node) === index.get(node)) {
      const component: Array<string> = []
      let member: string
      do {
        member = stack.pop()!
        component.push(member)
      } while (member !== node)
      if (component.length > 1) cycles.push(component.sort())
    }
  }
  for (const node of edges.keys()) if (!index.has(node)) visit(node)
  return cycles
}

const imports = importsOf(filesUnder(src)).filter(({ from, to }) => folderOf(from) !== folderOf(to))
const described = ({ from, to }: Import) => `${relative(src, from)} → ${relative(src, to)}`

describe("imports between the folders of src/", () => {
  it("form no cycle", () => {
    const edges = new Map<string, Set<string>>()
    for (const { from, to } of imports) {
      const edge = edges.get(folderOf(from)) ?? new Set()
      edges.set(folderOf(from), edge.add(folderOf(to)))
    }
    const cycles = cyclesOf(edges).map((cycle) => ({
      cycle,
      imports: imports.filter(({ from, to }) => cycle.includes(folderOf(from)) && cycle.includes(folderOf(to))).map(described)
    }))
    expect(cycles).toEqual([])
  })

  it("follow the folders' roles", () => {
    const refused = imports.filter(({ from, to }) => {
      const source = folderOf(from)
      const target = folderOf(to)
      if (target === "host") return source !== "host"
      if (source === "platform") return true
      if (source === "admin") return !(from.endsWith(`${sep}AdminHost.ts`) || to.endsWith("Repository.ts")) && target !== "platform"
      if ((capabilities as ReadonlyArray<string>).includes(source)) return target === "admin" || target === "demo"
      return false
    })
    expect(refused.map(described)).toEqual([])
  })

  it("knows every folder's role", () => {
    const folders = new Set(readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name))
    expect([...folders].sort()).toEqual([...capabilities, "admin", "demo", "platform"].sort())
  })
})
