/**
 * How services and repositories talk to the database. The rule, spelled once: an infrastructure failure (a lost
 * connection, a statement error) is a defect — the request answers 500 and the transaction rolls back — because
 * no caller can act on it. A repository that expects a failure a caller can act on (a unique key that decides a
 * race) catches it with {@link catchUniqueViolation} before it becomes a defect.
 */
import * as Db from "@propline/db/Db"
import type { Database } from "@propline/db/Database"
import { Clock, Context, Effect, type Fiber } from "effect"
import { type Kysely, type RawBuilder, sql } from "kysely"

/**
 * Runs statements on the fiber's transaction (see {@link transaction}), or on the pool outside one. A failure is a
 * defect.
 */
export const query = <A>(run: (db: Kysely<Database>) => Promise<A>): Effect.Effect<A, never, Db.Db> =>
  Effect.catchTag(Db.query(run), "SqlError", Effect.die)

/**
 * As {@link query}, but a unique violation on `constraint` fails with `onConflict()` instead of dying: for the
 * races a unique key settles (an externalReference, a caller's payment id, a consumed `jti`).
 */
export const catchUniqueViolation = <A, E>(
  run: (db: Kysely<Database>) => Promise<A>,
  constraint: string,
  onConflict: () => E
): Effect.Effect<A, E, Db.Db> =>
  Effect.catchTag(Db.query(run), "SqlError", (error) =>
    error.isUniqueViolation(constraint) ? Effect.fail(onConflict()) : Effect.die(error)
  )

/** A constraint that refused a statement: a unique key (SQLSTATE 23505) or an exclusion constraint (23P01). */
export interface ConstraintViolation {
  readonly kind: "unique" | "exclusion"
  /** The constraint's name, as PostgreSQL reports it. */
  readonly constraint: string | undefined
}

/**
 * As {@link catchUniqueViolation}, for a statement whose races several constraints settle (a booking's exclusion
 * constraint and its idempotency key): `onViolation` maps a violation to the caller's typed error, or to undefined
 * when the caller can't act on it; that, and every other failure, is a defect.
 */
export const catchConstraintViolations = <A, E>(
  run: (db: Kysely<Database>) => Promise<A>,
  onViolation: (violation: ConstraintViolation) => E | undefined
): Effect.Effect<A, E, Db.Db> =>
  Effect.catchTag(Db.query(run), "SqlError", (error) => {
    const kind = error.isUniqueViolation() ? "unique" : error.isExclusionViolation() ? "exclusion" : undefined
    const refused = kind === undefined ? undefined : onViolation({ kind, constraint: error.constraint })
    return refused === undefined ? Effect.die(error) : Effect.fail(refused)
  })

/**
 * Runs one plain `sql` statement (`Db.queryPlain`: no CamelCasePlugin; the statement names its result columns, see
 * {@link columns}) on the fiber's transaction or the pool, and resolves to its rows. A failure is a defect. For hot
 * paths: rows come back as pg parses them, not re-keyed field by field, and no query builder is walked and
 * rewritten per statement. Column names in the statement are the SQL ones (`approved_at`).
 */
export const rows = <Row>(statement: RawBuilder<Row>): Effect.Effect<ReadonlyArray<Row>, never, Db.Db> =>
  Effect.catchTag(Db.queryPlain(statement), "SqlError", Effect.die)

/**
 * As {@link rows}, for a hot read whose rows are only read, field by field, before they are dropped (a page encoded to
 * JSON): `Db.queryPlainViews`, whose rows on PostgreSQL (outside a transaction) are views of the column texts pg
 * received, each column parsed as it is read, instead of objects pg fills with every column parsed. Their columns
 * are not own properties: never spread a row or list its keys. A failure is a defect.
 */
export const viewRows = <Row>(statement: RawBuilder<Row>): Effect.Effect<ReadonlyArray<Row>, never, Db.Db> =>
  Effect.catchTag(Db.queryPlainViews(statement), "SqlError", Effect.die)

/**
 * A plain statement compiled once at module load (`Db.prepare`: `build` places its arguments in a `sql` template), for
 * {@link preparedRows}. For the hottest statements: no template built and compiled per request.
 */
export const prepare = Db.prepare

/** As {@link rows}, for a {@link prepare}d statement and its arguments. A failure is a defect. */
export const preparedRows = <Args extends ReadonlyArray<unknown>, Row>(
  statement: Db.PreparedStatement<Args, Row>,
  ...args: Args
): Effect.Effect<ReadonlyArray<Row>, never, Db.Db> =>
  Effect.catchTag(Db.queryPrepared(statement, ...args), "SqlError", Effect.die)

/** How many shapes of one template {@link preparedByShape} keeps compiled. */
const MAX_SHAPES = 32

/**
 * One {@link prepare}d statement per shape of a template whose text depends on counts (the granted contexts, a
 * write's events, a proposal's charges): `make(shape)` compiles a shape's statement on its first call, and it is
 * kept. Past {@link MAX_SHAPES} kept shapes, a new shape is compiled on every call instead (no caller grows the
 * cache without bound). `shape` is a number or a string made of the counts.
 */
export const preparedByShape = <Shape extends string | number, Statement>(
  make: (shape: Shape) => Statement
): ((shape: Shape) => Statement) => {
  const kept = new Map<Shape, Statement>()
  return (shape) => {
    const found = kept.get(shape)
    if (found !== undefined) return found
    const made = make(shape)
    if (kept.size < MAX_SHAPES) kept.set(shape, made)
    return made
  }
}

/** As {@link preparedRows}, with a unique violation on `constraint` failing with `onConflict()` (see {@link catchUniqueViolation}). */
export const preparedRowsCatchingUniqueViolation = <Args extends ReadonlyArray<unknown>, Row, E>(
  statement: Db.PreparedStatement<Args, Row>,
  args: Args,
  constraint: string,
  onConflict: () => E
): Effect.Effect<ReadonlyArray<Row>, E, Db.Db> =>
  Effect.catchTag(Db.queryPrepared(statement, ...args), "SqlError", (error) =>
    error.isUniqueViolation(constraint) ? Effect.fail(onConflict()) : Effect.die(error)
  )

/** As {@link rows}, with a unique violation on `constraint` failing with `onConflict()` (see {@link catchUniqueViolation}). */
export const rowsCatchingUniqueViolation = <Row, E>(
  statement: RawBuilder<Row>,
  constraint: string,
  onConflict: () => E
): Effect.Effect<ReadonlyArray<Row>, E, Db.Db> =>
  Effect.catchTag(Db.queryPlain(statement), "SqlError", (error) =>
    error.isUniqueViolation(constraint) ? Effect.fail(onConflict()) : Effect.die(error)
  )

/**
 * `name as (statement)`: a data-modifying statement carried as a CTE of another one, so a write and the rows that
 * go with it (its events, its audit entry) travel in one round trip. PostgreSQL runs every data-modifying CTE
 * exactly once, whether or not the statement reads it, in the statement's snapshot; a failure of any part fails the
 * whole statement. `name` is a trusted SQL identifier.
 */
export const cte = (name: string, statement: RawBuilder<unknown>): RawBuilder<unknown> =>
  sql`${sql.raw(name)} as (${statement})`

/** What {@link lockVisible} reads: `columns` of `from` where `where` holds; `from` is a trusted table name. */
export interface VisibleRowQuery {
  readonly columns: RawBuilder<unknown>
  readonly from: string
  readonly where: RawBuilder<boolean>
  readonly organizationId: string
  /** The contexts the principal sees (granted ones and their subtrees); none → undefined without a statement. */
  readonly contextIds: ReadonlyArray<string>
}

/**
 * The row of an organization's table that `where` names, in one of the visible contexts (its
 * `operational_context_id`), locked (`for update`) for the rest of the transaction, so concurrent reports on it run
 * one after another. Undefined when there is none or it can't be seen (the service answers 404). One plain statement.
 */
export const lockVisible = <Row>(query: VisibleRowQuery): Effect.Effect<Row | undefined, never, Db.Db> =>
  query.contextIds.length === 0
    ? Effect.succeed(undefined)
    : Effect.map(
        rows(
          sql<Row>`
            select ${query.columns} from ${sql.raw(query.from)}
            where ${query.where} and organization_id = ${query.organizationId}
              and operational_context_id in (${sql.join(query.contextIds)})
            for update`
        ),
        (found) => found[0]
      )

/**
 * The select list `column_name as "columnName", …` of a table type's properties, listed once each (`{ id: true,
 * createdAt: true }`), for {@link rows}: made once per query shape, at module load. `alias` qualifies the columns.
 */
export const columns = Db.selectColumns

/**
 * Runs `effect` in one READ COMMITTED transaction (nested calls join it): committed when it succeeds, rolled back
 * when it fails, dies or is interrupted. Failing to begin or end the transaction is a defect.
 */
export const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | Db.Db> =>
  Effect.catchIf(
    Db.transaction(effect),
    (error): error is Db.SqlError => error instanceof Db.SqlError,
    Effect.die
  ) as Effect.Effect<A, E, R | Db.Db>

/** The current time from Effect's `Clock` (tests move it with `TestClock`). */
export const now: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))

/**
 * {@link now} read from `fiber`'s `Clock` (the one `Clock.currentTimeMillis` reads), for a step already running on
 * it (a `withFiberRuntime`), without steps of its own.
 */
export const nowOn = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Date =>
  new Date(Context.get(fiber.currentDefaultServices, Clock.Clock).unsafeCurrentTimeMillis())
