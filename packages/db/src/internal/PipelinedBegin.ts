/**
 * A transaction's `begin` sent in the same write as its first statement (issue 27): the pool kysely's
 * `PostgresDialect` is given, whose clients hold a transaction's `begin` back (answering it at once, as PostgreSQL
 * would) and send it ahead of the transaction's first statement, in that statement's extended-protocol messages:
 * `Parse`/`Bind`/`Execute` of `begin`, then the statement's `Parse`/`Bind`/`Describe`/`Execute`, then one `Sync`,
 * in one socket write. PostgreSQL runs them in order (protocol 55.2.4, pipelining: an explicit `BEGIN` inside the
 * pipeline opens a regular transaction block, which the `Sync` leaves open), so the transaction is the same one it
 * was with `begin` as its own round trip, one round trip shorter:
 *
 * - a failure of the first statement leaves the transaction aborted (`begin` ran), as before, and the caller's
 *   `rollback` ends it; a failure of `begin` itself (a lost connection) is the first statement's failure;
 * - a first statement without parameters (simple protocol: it may hold several statements, which one
 *   extended-protocol `Parse` refuses) gets `begin` as its own round trip first, as before;
 * - a transaction that ran no statement sends nothing: its `commit` or `rollback` answers at once.
 *
 * Only the exact text `begin` is held back (kysely's `beginTransaction` without an isolation level or access
 * mode); every other statement, `start transaction …` included, goes as it is.
 */
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from "kysely"
import pg from "pg"

/** The messages pg's `Connection` writes that a pipelined `begin` uses (not in `@types/pg`). */
interface ProtocolWriter {
  parse(query: { readonly text: string }): void
  bind(config: object): void
  execute(config: object): void
}

/** pg's `Query` with what its `submit` calls to write an extended-protocol statement (not in `@types/pg`). */
const QueryBase = pg.Query as unknown as new (config: pg.QueryConfig & { callback: QueryCallback }) => {
  prepare(connection: ProtocolWriter): void
}

type QueryCallback = (error: Error | null, result: pg.QueryResult | ReadonlyArray<pg.QueryResult>) => void

/**
 * A statement with parameters preceded by `begin` in the same write (pg's `submit` corks the socket around
 * `prepare`). Its result is the statement's: pg gives the two commands' results as an array, `begin`'s first.
 */
class BeginThenQuery extends QueryBase {
  override prepare(connection: ProtocolWriter): void {
    connection.parse({ text: "begin" })
    connection.bind({})
    connection.execute({})
    super.prepare(connection)
  }
}

/** What PostgreSQL answers a command that returns no rows, for the commands this client answers itself. */
const answered = (command: string): PostgresQueryResult<never> =>
  ({ command, rowCount: null, rows: [] }) as unknown as PostgresQueryResult<never>

const resultOf = (result: pg.QueryResult | ReadonlyArray<pg.QueryResult>): pg.QueryResult =>
  Array.isArray(result) ? (result as ReadonlyArray<pg.QueryResult>)[result.length - 1]! : (result as pg.QueryResult)

/** A pooled client whose transactions send `begin` with their first statement (see the module's docstring). */
class PipelinedBeginClient {
  /** A `begin` was answered and not sent yet: the next statement carries it. */
  private beginHeld = false

  constructor(private readonly client: pg.PoolClient) {}

  get processID(): number | undefined {
    return (this.client as unknown as { readonly processID?: number }).processID
  }

  query(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<unknown>> {
    if (!this.beginHeld) {
      if (sql === "begin" && parameters.length === 0) {
        this.beginHeld = true
        return Promise.resolve(answered("BEGIN"))
      }
      return this.client.query(sql, parameters as Array<unknown>) as unknown as Promise<PostgresQueryResult<unknown>>
    }
    this.beginHeld = false
    if (sql === "commit" || sql === "rollback") return Promise.resolve(answered(sql.toUpperCase()))
    if (parameters.length === 0) {
      return this.client
        .query("begin")
        .then(() => this.client.query(sql, [])) as unknown as Promise<PostgresQueryResult<unknown>>
    }
    return new Promise((resolve, reject) => {
      this.client.query(
        new BeginThenQuery({
          text: sql,
          values: parameters as Array<unknown>,
          callback: (error, result) => (error === null ? resolve(resultOf(result) as never) : reject(error))
        }) as unknown as pg.Submittable
      )
    })
  }

  release(destroy?: boolean): void {
    this.beginHeld = false
    this.client.release(destroy)
  }
}

/** Each pooled client's one wrapper (kysely keeps its connection per client object). */
const wrappers = new WeakMap<pg.PoolClient, PipelinedBeginClient>()

/** `pool` as kysely's `PostgresDialect` takes it, its clients sending `begin` with their transaction's first statement. */
export const pipelinedBeginPool = (pool: pg.Pool): PostgresPool => ({
  connect: async () => {
    const client = await pool.connect()
    let wrapper = wrappers.get(client)
    if (wrapper === undefined) {
      wrapper = new PipelinedBeginClient(client)
      wrappers.set(client, wrapper)
    }
    return wrapper as unknown as PostgresPoolClient
  },
  end: () => pool.end(),
  options: pool.options,
  // What kysely cancels a statement with (a control connection outside the pool), as the pool's own.
  Client: (pool as unknown as Required<Pick<PostgresPool, "Client">>).Client
})
