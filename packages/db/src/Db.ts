/**
 * The database as an Effect service: one kysely instance over PostgreSQL (`pg`) or embedded PGlite, migrated at
 * start-up, with transactions carried in a FiberRef so that repositories run inside the caller's transaction
 * without being handed it.
 */
import type { PGlite } from "@electric-sql/pglite"
import {
  CamelCasePlugin,
  CompiledQuery,
  type ControlledTransaction,
  createQueryId,
  Kysely,
  PostgresDialect,
  PostgresQueryCompiler,
  type QueryExecutorProvider,
  type RawBuilder,
  sql
} from "kysely"
import { Context, Data, Effect, Exit, FiberRef, Layer } from "effect"
import { mkdir } from "node:fs/promises"
import pg from "pg"
import type { Database } from "./Database.js"
import { pipelinedBeginPool } from "./internal/PipelinedBegin.js"
import { migrateToLatest } from "./Migrations.js"
import { parseTimestamptz } from "./TimestampParser.js"

/** Where the data lives: a PostgreSQL URL, or a PGlite directory (`undefined` keeps it in memory). */
export type DbConfig =
  | {
      readonly _tag: "postgres"
      readonly connectionString: string
      readonly maxConnections?: number
      /**
       * How long a statement waits for a connection, in ms (default {@link DEFAULT_CONNECTION_TIMEOUT_MS}): for one of
       * the pool to come free when all `maxConnections` are busy, or for a new one to be made. Past it the statement
       * fails with pg-pool's timeout, which `DatabaseUnavailable.databaseUnavailable` names `exhausted` (the API
       * answers 503, issue 23) rather than waiting without end.
       */
      readonly connectionTimeoutMillis?: number
      /**
       * Where the migrations run, when not through `connectionString`: PostgreSQL itself while `connectionString`
       * names a pooler in transaction mode (PgBouncer), so the schema changes take one server session of their own.
       */
      readonly directConnectionString?: string
    }
  | { readonly _tag: "pglite"; readonly dataDir: string | undefined }

/** A failed statement. `code` is PostgreSQL's SQLSTATE when the server gave one. */
export class SqlError extends Data.TaggedError("SqlError")<{
  readonly cause: unknown
  readonly code: string | undefined
  readonly constraint: string | undefined
}> {
  /** SQLSTATE 23505, optionally on one named constraint. */
  isUniqueViolation(constraint?: string): boolean {
    return this.code === "23505" && (constraint === undefined || this.constraint === constraint)
  }
  /** SQLSTATE 23P01 (an exclusion constraint refused overlapping rows), optionally on one named constraint. */
  isExclusionViolation(constraint?: string): boolean {
    return this.code === "23P01" && (constraint === undefined || this.constraint === constraint)
  }
}

const toSqlError = (cause: unknown): SqlError => {
  const record = (typeof cause === "object" && cause !== null ? cause : {}) as Record<string, unknown>
  const code = typeof record["code"] === "string" ? record["code"] : undefined
  // pg reports the constraint as `constraint`; PGlite as `constraint` too (same wire protocol field).
  const constraint = typeof record["constraint"] === "string" ? record["constraint"] : undefined
  return new SqlError({ cause, code, constraint })
}

/** A PostgreSQL pool's connections: all open ones, the idle ones, and statements waiting for one. */
export interface PoolStats {
  readonly total: number
  readonly idle: number
  readonly waiting: number
}

export interface DbService {
  readonly kysely: Kysely<Database>
  readonly dialect: DbConfig["_tag"]
  /** The pool's state now (PostgreSQL; PGlite has one connection and no pool). */
  readonly poolStats?: () => PoolStats
}

/** The embedded PGlite behind a kysely instance made by {@link makeKysely}, for {@link scriptRunner}. */
const embedded = new WeakMap<Kysely<Database>, PGlite>()
/** The pg pool behind a kysely instance made by {@link makeKysely}, for {@link scriptRunner}. */
const pools = new WeakMap<Kysely<Database>, pg.Pool>()

/** The rows of a pg result, or of every statement's result when the text held several. */
const rowsOf = (result: pg.QueryResult | ReadonlyArray<pg.QueryResult>): Array<unknown> =>
  Array.isArray(result) ? result.flatMap((one: pg.QueryResult) => one.rows ?? []) : (result as pg.QueryResult).rows

/**
 * A runner of statements for a library that brings its own SQL (the pg-boss job queue, issue 22), outside any
 * transaction: one statement with parameters, or a script of several statements without any (as PostgreSQL's simple
 * protocol runs it). On PostgreSQL it takes a connection of the pool for each call; on PGlite it waits for kysely's
 * one connection, so it never runs inside another fiber's open transaction, and runs a script through `exec`,
 * rolling back what a failed script left open (as a pooled connection would be dropped). Resolves to the rows, of
 * every statement of a script.
 */
export const scriptRunner = (service: DbService) => {
  const pglite = embedded.get(service.kysely)
  const pool = pools.get(service.kysely)
  const plain = service.kysely.withoutPlugins()
  const onPglite = (text: string, values: ReadonlyArray<unknown> | undefined) =>
    plain.connection().execute(async (connection) => {
      if (pglite === undefined || (values !== undefined && values.length > 0)) {
        const result = await connection.executeQuery(CompiledQuery.raw(text, [...(values ?? [])]))
        return { rows: [...result.rows] }
      }
      try {
        const results = await pglite.exec(text)
        return { rows: results.flatMap((result) => result.rows) }
      } catch (error) {
        await pglite.exec("rollback").catch(() => undefined)
        throw error
      }
    })
  return (text: string, values?: ReadonlyArray<unknown>): Promise<{ rows: Array<unknown> }> =>
    pool === undefined
      ? onPglite(text, values)
      : pool.query(text, values === undefined ? undefined : [...values]).then((result) => ({ rows: rowsOf(result) }))
}

/** The database service. Use {@link query} and {@link transaction} rather than `kysely` directly. */
export class Db extends Context.Tag("@propline/db/Db")<Db, DbService>() {}

/**
 * `effect` in a span named `name`, with `db.system` and, when given, the statement's text (its parameters never): what
 * a statement or a transaction runs in when spans are recorded (telemetry on). Without telemetry the callers run
 * `effect` itself, having read the switch in the step that reads the fiber's transaction and service.
 */
const inSpan = <A, E, R>(name: string, effect: Effect.Effect<A, E, R>, text?: () => string): Effect.Effect<A, E, R> =>
  Effect.withSpan(effect, name, {
    kind: "client",
    captureStackTrace: false,
    attributes: { "db.system": "postgresql", ...(text === undefined ? {} : { "db.query.text": text() }) }
  })

/**
 * The open transaction of the current fiber, if any, as one value: its kysely handle and the callbacks
 * {@link afterCommit} registered in it. Set by {@link transaction} for the transaction's effect and unset after it
 * (two copies of the fiber's fiber-ref map, as an `Effect.locally`). The value is made per transaction and its fields are never reassigned, so a
 * fiber forked inside a transaction shares it as it shares any inherited value, and nothing it does is seen by its
 * parent through it except {@link afterCommit}'s callbacks (as before).
 */
interface OpenTransaction {
  readonly kysely: Kysely<Database>
  readonly afterCommit: Array<() => void>
}

const currentTransaction = FiberRef.unsafeMake<OpenTransaction | undefined>(undefined)

/**
 * `run` on the current transaction's kysely, or on the pool's outside one, as one effect: the service, the
 * transaction and the tracer switch read from the fiber directly (one step per statement instead of three).
 */
const onConnection = <A>(
  run: (db: Kysely<Database>) => Promise<A>,
  text?: (db: Kysely<Database>) => string
): Effect.Effect<A, SqlError, Db> =>
  Effect.withFiberRuntime((fiber) => {
    const db = fiber.getFiberRef(currentTransaction)?.kysely ?? Context.unsafeGet(fiber.currentContext, Db).kysely
    const statement = Effect.tryPromise({ try: () => run(db), catch: toSqlError })
    return fiber.getFiberRef(FiberRef.currentTracerEnabled)
      ? inSpan("sql.query", statement, text === undefined ? undefined : () => text(db))
      : statement
  })

/**
 * Runs one kysely statement (or several) on the current transaction, or on the pool outside one.
 * Fails with {@link SqlError}; repositories turn what callers can't act on into defects.
 */
export const query = <A>(run: (db: Kysely<Database>) => Promise<A>): Effect.Effect<A, SqlError, Db> => onConnection(run)

/** Per kysely instance (the pool's, or a transaction's), its executor without plugins, made once. */
const plainExecutors = new WeakMap<Kysely<Database>, QueryExecutorProvider>()

const withoutPlugins = (db: Kysely<Database>): QueryExecutorProvider => {
  let provider = plainExecutors.get(db)
  if (provider === undefined) {
    const executor = db.getExecutor().withoutPlugins()
    provider = { getExecutor: () => executor }
    plainExecutors.set(db, provider)
  }
  return provider
}

/**
 * Runs one `sql` statement like {@link query} (on the current transaction, or on the pool outside one), but without
 * the CamelCasePlugin: neither the statement nor its rows are rewritten. The statement names its result columns
 * itself (see {@link selectColumns}), so the rows come back as pg parses them instead of being re-keyed one field
 * at a time, which is most of the plugin's cost on a page of rows. Resolves to the rows; fails with
 * {@link SqlError}.
 */
export const queryPlain = <Row>(statement: RawBuilder<Row>): Effect.Effect<ReadonlyArray<Row>, SqlError, Db> =>
  onConnection(
    (db) => statement.execute(withoutPlugins(db)).then((result) => result.rows),
    (db) => statement.compile(withoutPlugins(db)).sql
  )

/** Where a {@link prepare}d statement's argument goes: the `index`-th argument of the call. */
class ArgumentSlot {
  constructor(readonly index: number) {}
}

/**
 * A plain statement compiled once, for {@link queryPrepared}: the text PostgreSQL receives (kysely's, with its
 * numbered placeholders) and, per placeholder in order, the argument it takes or the constant it always has.
 */
export interface PreparedStatement<Args extends ReadonlyArray<unknown>, Row> {
  readonly text: string
  readonly parameters: ReadonlyArray<unknown>
  /** Phantom: the call's arguments and the statement's rows. */
  readonly _shape?: (args: Args) => Row
}

/**
 * `build`'s `sql` statement compiled once (at module load) by kysely's PostgreSQL compiler, the text every call sends
 * as it is: each `${value}` of the template a placeholder, those of `build`'s arguments filled per call by
 * {@link queryPrepared}, any other (a constant) fixed now. `build` runs once, with stand-ins for its `arity`
 * arguments: it must only place them in the template (what it computes from them must be an argument of its own).
 * Throws when the template holds no placeholder for an argument.
 */
export const prepare = <Args extends ReadonlyArray<unknown>, Row>(
  arity: Args["length"],
  build: (...args: Args) => RawBuilder<Row>
): PreparedStatement<Args, Row> => {
  const slots = Array.from({ length: arity }, (_, index) => new ArgumentSlot(index))
  const compiled = new PostgresQueryCompiler().compileQuery(
    build(...(slots as unknown as Args)).toOperationNode(),
    createQueryId()
  )
  for (const slot of slots) {
    if (!compiled.parameters.includes(slot)) throw new Error(`prepared statement: argument ${slot.index} is never used`)
  }
  return { text: compiled.sql, parameters: compiled.parameters }
}

/** A {@link prepare}d statement with `args` in its placeholders: what {@link queryPrepared} runs. */
export const compiledWith = <Args extends ReadonlyArray<unknown>, Row>(
  statement: PreparedStatement<Args, Row>,
  args: Args
): CompiledQuery<Row> =>
  CompiledQuery.raw(
    statement.text,
    statement.parameters.map((parameter) => (parameter instanceof ArgumentSlot ? args[parameter.index] : parameter))
  )

/**
 * Runs a {@link prepare}d statement with `args` like {@link queryPlain} (on the current transaction or the pool,
 * without the CamelCasePlugin), without building and compiling its `sql` template per call. Resolves to the rows;
 * fails with {@link SqlError}.
 */
export const queryPrepared = <Args extends ReadonlyArray<unknown>, Row>(
  statement: PreparedStatement<Args, Row>,
  ...args: Args
): Effect.Effect<ReadonlyArray<Row>, SqlError, Db> =>
  onConnection(
    (db) =>
      withoutPlugins(db)
        .getExecutor()
        .executeQuery(compiledWith(statement, args))
        .then((result) => result.rows),
    () => statement.text
  )

const snakeCase = (name: string): string => name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

/**
 * The select list `column_name as "columnName", …` for the given camelCase properties of a table type (list every
 * property once: `{ id: true, createdAt: true }`), optionally qualified by a table alias. Made once per query shape,
 * at module load; for {@link queryPlain}.
 */
export const selectColumns = <Row>(
  columns: { readonly [K in keyof Row]-?: true },
  alias?: string
): RawBuilder<Row> =>
  sql.raw<Row>(
    Object.keys(columns)
      .map((name) => `${alias === undefined ? "" : `${alias}.`}${snakeCase(name)} as "${name}"`)
      .join(", ")
  )

/**
 * Calls `callback` once the current transaction commits (never when it rolls back), or at once outside a
 * transaction. For in-process signals about committed data (the outbox wakes its publisher), never for work that
 * must happen: a process may stop between the commit and the call. A callback must not throw.
 */
export const afterCommit = (callback: () => void): Effect.Effect<void> =>
  Effect.map(FiberRef.get(currentTransaction), (open) => {
    if (open === undefined) callback()
    else if (!open.afterCommit.includes(callback)) open.afterCommit.push(callback)
  })

/**
 * Runs `effect` in one READ COMMITTED transaction: committed when it succeeds, rolled back when it fails,
 * dies or is interrupted. Nested calls join the outer transaction.
 */
export const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, R | Db> =>
  // The open transaction, the service and the tracer switch read from the fiber in one step (as `onConnection`).
  Effect.withFiberRuntime((fiber) => {
    if (fiber.getFiberRef(currentTransaction) !== undefined) return effect
    const service = Context.unsafeGet(fiber.currentContext, Db)
    const callbacks: Array<() => void> = []
    // What `Effect.locally(effect, currentTransaction, open)` does, inside this acquire/release instead of a second
    // one of its own: the transaction is set when `effect` starts and unset (it was unset: see above) before the
    // commit or rollback, whatever `effect`'s exit, an interruption included.
    const inTransaction = Effect.acquireUseRelease(
      Effect.tryPromise({ try: () => service.kysely.startTransaction().execute(), catch: toSqlError }),
      (trx) =>
        Effect.zipRight(
          FiberRef.set(currentTransaction, { kysely: trx as Kysely<Database>, afterCommit: callbacks }),
          effect
        ),
      (trx: ControlledTransaction<Database>, exit) =>
        Effect.zipRight(
          FiberRef.set(currentTransaction, undefined),
          Effect.promise(async () => {
            if (!Exit.isSuccess(exit)) return trx.rollback().execute()
            await trx.commit().execute()
            for (const callback of callbacks) callback()
          }).pipe(Effect.orDie)
        )
    )
    return fiber.getFiberRef(FiberRef.currentTracerEnabled) ? inSpan("sql.transaction", inTransaction) : inTransaction
  })

const int8 = (value: string): number => Number(value)
const asText = (value: string): string => value

const pgTypes = {
  getTypeParser: ((oid: number, format?: "text" | "binary") => {
    if (oid === pg.types.builtins.INT8) return int8
    if (oid === pg.types.builtins.DATE) return asText
    if (oid === pg.types.builtins.TIMESTAMPTZ && format !== "binary") return parseTimestamptz
    return pg.types.getTypeParser(oid, format)
  }) as typeof pg.types.getTypeParser
}

/** How long a statement waits for a PostgreSQL connection unless the config says otherwise, in ms. */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000

/** Opens the kysely instance for a config; `destroy()` closes it. */
export const makeKysely = async (config: DbConfig): Promise<Kysely<Database>> => {
  if (config._tag === "postgres") {
    const pool = new pg.Pool({
      connectionString: config.connectionString,
      max: config.maxConnections ?? 10,
      connectionTimeoutMillis: config.connectionTimeoutMillis ?? DEFAULT_CONNECTION_TIMEOUT_MS,
      types: pgTypes
    })
    // An idle client's error (a restarted server) must not crash the process; the next query reconnects.
    pool.on("error", () => {})
    // A transaction's `begin` goes out with its first statement, one round trip fewer (internal/PipelinedBegin.ts).
    const kysely = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: pipelinedBeginPool(pool) }),
      plugins: [new CamelCasePlugin()]
    })
    pools.set(kysely, pool)
    return kysely
  }
  // A first start on a fresh machine: the data directory and its parents don't exist yet.
  if (config.dataDir !== undefined) await mkdir(config.dataDir, { recursive: true })
  // Loaded only here: a process on PostgreSQL never holds PGlite's modules (their source and compiled code, ~1 MiB
  // of heap; docs/performance.md, issue 27).
  const [{ PGlite, types: pgliteTypes }, { btree_gist }, { PGliteDialect }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/btree_gist"),
    import("kysely-pglite-dialect")
  ])
  const pglite = await PGlite.create({
    ...(config.dataDir === undefined ? {} : { dataDir: config.dataDir }),
    // btree_gist: the booking exclusion constraint compares a uuid with = inside a GiST index.
    extensions: { btree_gist },
    parsers: { [pgliteTypes.INT8]: int8, [pgliteTypes.DATE]: asText }
  })
  const kysely = new Kysely<Database>({ dialect: new PGliteDialect(pglite), plugins: [new CamelCasePlugin()] })
  embedded.set(kysely, pglite)
  return kysely
}

const poolStatsOf = (kysely: Kysely<Database>): Pick<DbService, "poolStats"> => {
  const pool = pools.get(kysely)
  return pool === undefined
    ? {}
    : { poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }) }
}

/** Migrates through the direct connection when the config names one (one connection, closed after), else `kysely`. */
const migrate = async (config: DbConfig, kysely: Kysely<Database>): Promise<void> => {
  if (config._tag !== "postgres" || config.directConnectionString === undefined) {
    await migrateToLatest(kysely.withoutPlugins() as Kysely<unknown>)
    return
  }
  const direct = await makeKysely({ _tag: "postgres", connectionString: config.directConnectionString, maxConnections: 1 })
  try {
    await migrateToLatest(direct.withoutPlugins() as Kysely<unknown>)
  } finally {
    await direct.destroy()
  }
}

/** A scoped layer: opens the database, brings the schema up to date, closes it when the scope ends. */
export const layer = (config: DbConfig): Layer.Layer<Db> =>
  Layer.scoped(
    Db,
    Effect.acquireRelease(
      Effect.promise(async () => {
        const kysely = await makeKysely(config)
        try {
          await migrate(config, kysely)
        } catch (error) {
          await kysely.destroy()
          throw error
        }
        return { kysely, dialect: config._tag, ...poolStatsOf(kysely) } satisfies DbService
      }),
      (service) => Effect.promise(() => service.kysely.destroy())
    )
  )
