/**
 * One owner per table (CONTRIBUTING.md, "Between the folders of `apps/api/src/`"): every table of `@propline/db`'s
 * `Database` has one folder of `src/` that owns it, and only that folder's repositories (`*Repository.ts`, read
 * repositories included) name it in SQL. Another capability's need goes through the owner's repository: a
 * statement, a SQL fragment or a method the owner writes, called by the other.
 *
 * The owner follows the schema file that declares the table (`packages/db/src/schema/<File>.ts`, below), so a new
 * table in an existing file has an owner at once, and a new schema file must be given one here. A repository names
 * a table when its code has a kysely builder call with the table as its first argument (`selectFrom("contracts")`,
 * `innerJoin("customers as c", …)`, `insertInto`, `updateTable`, `deleteFrom`, `mergeInto`, `with…`'s table-valued
 * callers aside) or a SQL template whose text has `from|join|into|update <table>`; comments are not read.
 */
import { readdirSync, readFileSync } from "node:fs"
import { basename, join, relative, resolve, sep } from "node:path"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const src = resolve(import.meta.dirname, "../../src")
const schemaFolder = resolve(import.meta.dirname, "../../../../packages/db/src/schema")
const databaseFile = resolve(schemaFolder, "../Database.ts")

/** The folder of `src/` owning the tables each schema file declares. */
const ownerOfSchemaFile: Readonly<Record<string, string>> = {
  "Audit.ts": "audit",
  "Billing.ts": "billing",
  "Booking.ts": "booking",
  "Customers.ts": "tenancy",
  "Identity.ts": "identity",
  "Integrations.ts": "integrations",
  "Operators.ts": "identity",
  "Organizations.ts": "contexts",
  "Signing.ts": "signing",
  "Webhooks.ts": "webhooks"
}

/** Tables whose schema file holds another owner's tables too: the owner, and why. */
const ownerOfTable: Readonly<Record<string, { readonly owner: string; readonly why: string }>> = {
  operator_sessions: { owner: "admin", why: "the console's sessions are the admin host's (OperatorSessions.ts)" },
  operator_sign_in_failures: { owner: "admin", why: "the sign-in throttle is the admin host's (SignInThrottle.ts)" },
  url_signing_keys: { owner: "storage", why: "storage signs file URLs (UrlSigner.ts); signing's PDFs use them" },
  events: {
    owner: "events",
    why: "events publishes, serves and purges the outbox; the kernel's Outbox.ts (no repository) appends to it in each change's transaction"
  }
}

const snakeCase = (name: string) => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

const parse = (file: string, text = readFileSync(file, "utf8")) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)

/** Every table of `Database` (snake_case) with the folder that owns it. */
const owners = (): ReadonlyMap<string, string> => {
  const fileOfType = new Map<string, string>()
  for (const file of readdirSync(schemaFolder).filter((name) => name.endsWith(".ts"))) {
    for (const statement of parse(join(schemaFolder, file)).statements) {
      if (ts.isInterfaceDeclaration(statement)) fileOfType.set(statement.name.text, file)
    }
  }
  const database = parse(databaseFile).statements.find(
    (statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === "Database"
  )
  if (database === undefined) throw new Error("Database.ts declares no Database interface")
  return new Map(
    database.members.filter(ts.isPropertySignature).map((member) => {
      const table = snakeCase(member.name.getText())
      const type = member.type?.getText() ?? ""
      const file = fileOfType.get(type)
      const owner = ownerOfTable[table]?.owner ?? (file === undefined ? undefined : ownerOfSchemaFile[file])
      if (owner === undefined) throw new Error(`${table} (${type} in ${file}) has no owner: name its folder here`)
      return [table, owner] as const
    })
  )
}

/** kysely's calls whose first argument names a table (`"contractLines"`, `"operational_contexts as c"`). */
const builderCalls = new Set([
  "selectFrom",
  "insertInto",
  "updateTable",
  "deleteFrom",
  "mergeInto",
  "replaceInto",
  "innerJoin",
  "leftJoin",
  "rightJoin",
  "fullJoin",
  "innerJoinLateral",
  "leftJoinLateral",
  "crossJoin",
  "using"
])
/** `from|join|into|update <table>` in SQL text (`on conflict do update set` names none). */
const sqlTable = /\b(?:from|join|into|update)\s+(?!set\b)([a-z_][a-z0-9_]*)/gi

/** The tables a file's code (`text`, read from the file unless given) names, with the line of each. */
const tablesNamed = (file: string, text?: string): Array<{ readonly table: string; readonly line: number }> => {
  const source = parse(file, text)
  const found: Array<{ table: string; line: number }> = []
  const at = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && builderCalls.has(node.expression.name.text)) {
      const first = node.arguments[0]
      if (first !== undefined && ts.isStringLiteralLike(first)) {
        found.push({ table: snakeCase(first.text.trim().split(/\s+/)[0]!), line: at(first) })
      }
    }
    if (ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      for (const match of node.text.matchAll(sqlTable)) found.push({ table: match[1]!.toLowerCase(), line: at(node) })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const filesUnder = (folder: string): Array<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(folder, entry.name)) : entry.name.endsWith(".ts") ? [join(folder, entry.name)] : []
  )

const repositories = filesUnder(src).filter((file) => basename(file).endsWith("Repository.ts"))

describe("the tables' owners", () => {
  const tables = owners()

  it("are folders of src/", () => {
    const folders = new Set(readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isDirectory()).map((entry) => entry.name))
    expect([...new Set(tables.values())].filter((owner) => !folders.has(owner))).toEqual([])
    expect(Object.keys(ownerOfTable).filter((table) => !tables.has(table))).toEqual([])
  })

  it("are the only folders whose repositories name their tables in SQL", () => {
    const foreign = repositories.flatMap((file) => {
      const folder = relative(src, file).split(sep)[0]!
      return tablesNamed(file)
        .filter(({ table }) => tables.has(table) && tables.get(table) !== folder)
        .map(({ table, line }) => `${relative(src, file)}:${line} names ${table} (${tables.get(table)}'s)`)
    })
    expect([...new Set(foreign)]).toEqual([])
  })

  it("are read from the code: kysely calls and SQL text name tables, comments do not", () => {
    const code = [
      "/** Reads from customers, joins contracts. */",
      'db.selectFrom("contractLines as l").innerJoin("operationalContexts", "a", "b").where("x", "=", 1)',
      'db.updateTable("organizations"); db.insertInto("auditLog"); db.deleteFrom("operatorSessions")',
      "sql`select count(*) from operators where id = ${id}`",
      "sql`(select name from connector_apps c join installations i on i.app_id = c.id where ${x})`",
      "sql`insert into operator_sign_in_failures as f (email) values (${e}) on conflict do update set n = 1`",
      "// update invoices"
    ].join("\n")
    expect(tablesNamed("Example.ts", code).map(({ table, line }) => `${line}: ${table}`).sort()).toEqual([
      "2: contract_lines",
      "2: operational_contexts",
      "3: audit_log",
      "3: operator_sessions",
      "3: organizations",
      "4: operators",
      "5: connector_apps",
      "5: installations",
      "6: operator_sign_in_failures"
    ])
  })
})
