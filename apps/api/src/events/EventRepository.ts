/**
 * SQL of published events (issue 22): claiming the outbox rows of `events` that wait to be published, stamping
 * them published with their envelope, the feed's pages and single events as a reader's scope allows, and the
 * retention purge. Plain statements (`Sql.rows`): the publisher and the feed are hot paths.
 */
import { Effect } from "effect"
import { type RawBuilder, sql } from "kysely"
import * as CursorPage from "../platform/CursorPage.js"
import * as Sql from "../platform/Sql.js"

/** An outbox row waiting to be published. */
export interface OutboxRow {
  readonly id: string
  readonly organizationId: string
  readonly type: string
  /** The domain event as `Outbox.append` wrote it (`at` as ISO 8601). */
  readonly payload: Record<string, unknown>
  readonly occurredAt: Date
}

/** What publishing sets on a row. */
export interface Publication {
  readonly id: string
  readonly operationalContextId: string | null
  readonly installationId: string | null
  /** The envelope as JSON text. */
  readonly envelope: string
}

/**
 * Who reads the feed, as SQL needs it: the organization, the event areas its roles read (`billing`, `crm`, …), the
 * contexts it was granted (their subtrees are added in SQL, as the API's scoping does) and, for an installation's
 * token, the installation (it alone reads its `integrations.*` events).
 */
export interface FeedScope {
  readonly organizationId: string
  readonly areas: ReadonlyArray<string>
  readonly grantedContextIds: ReadonlyArray<string>
  readonly installationId: string | undefined
}

/** A feed row: the envelope and its cursor key. */
export interface FeedRow {
  readonly id: string
  readonly envelope: Record<string, unknown>
  readonly cursorAt: string
}

const outboxColumns = sql.raw<OutboxRow>(
  `id, organization_id as "organizationId", type, payload, occurred_at as "occurredAt"`
)

/**
 * The scope's condition on `events` (`with visible` must precede the statement): the organization, an area the
 * roles read, a context among the visible ones (or none), and an `integrations.*` event only of the installation.
 * The same rule as `@propline/identity/EventVisibility`'s `canRead`.
 */
const inScope = (scope: FeedScope): RawBuilder<boolean> =>
  sql<boolean>`organization_id = ${scope.organizationId}
    and split_part(type, '.', 1) in (${sql.join(scope.areas)})
    and (operational_context_id is null or operational_context_id in (select id from visible))
    and (split_part(type, '.', 1) <> 'integrations' or installation_id = ${scope.installationId ?? null}::uuid)`

const visible = (scope: FeedScope): RawBuilder<unknown> =>
  sql`with recursive visible(id) as (
        select id from operational_contexts
        where organization_id = ${scope.organizationId}
          and id in (${scope.grantedContextIds.length === 0 ? sql`null` : sql.join(scope.grantedContextIds)})
        union
        select child.id from operational_contexts as child inner join visible on visible.id = child.parent_id
      )`

export class EventRepository extends Effect.Service<EventRepository>()("@propline/api/events/EventRepository", {
  succeed: {
    /**
     * Up to `limit` unpublished outbox rows, oldest first, locked for the transaction; rows another transaction
     * holds are skipped (`for update skip locked`), so concurrent publishers claim disjoint rows.
     */
    claim: (limit: number) =>
      Sql.rows(
        sql<OutboxRow>`
          select ${outboxColumns} from events
          where published_at is null
          order by occurred_at, id
          limit ${limit}
          for update skip locked`
      ),

    /** Stamps claimed rows published now (the transaction's time), with their envelope, context and installation. */
    markPublished: (publications: ReadonlyArray<Publication>) =>
      publications.length === 0
        ? Effect.void
        : Sql.rows(
            sql`
              update events set published_at = now(), envelope = v.envelope::jsonb,
                operational_context_id = v.context_id::uuid, installation_id = v.installation_id::uuid
              from (values ${sql.join(
                publications.map(
                  (publication) =>
                    sql`(${publication.id}::uuid, ${publication.envelope}::text, ${publication.operationalContextId}::text,
                         ${publication.installationId}::text)`
                )
              )}) as v(id, envelope, context_id, installation_id)
              where events.id = v.id and events.published_at is null`
          ).pipe(Effect.asVoid),

    /**
     * A page of the feed: the scope's events published at least `settleSeconds` ago and within `retentionDays`, of
     * `types` when given, oldest publication first, after `after`; `limit + 1` rows.
     */
    feed: (
      scope: FeedScope,
      types: ReadonlyArray<string> | undefined,
      after: CursorPage.Position | undefined,
      limit: number,
      settleSeconds: number,
      retentionDays: number
    ) =>
      scope.areas.length === 0
        ? Effect.succeed<ReadonlyArray<CursorPage.Keyed<FeedRow>>>([])
        : CursorPage.pageRows({
            with: visible(scope),
            columns: sql.raw<FeedRow>(`id, envelope`),
            from: "events",
            where: sql`${inScope(scope)}
              and published_at is not null
              and published_at <= now() - make_interval(secs => ${settleSeconds})
              and published_at > now() - make_interval(days => ${retentionDays})
              and ${types === undefined ? sql`true` : sql`type in (${sql.join(types)})`}`,
            sortColumn: "published_at",
            idColumn: "id",
            after,
            limit
          }),

    /** One published event of the scope within `retentionDays`, by id (`id` is a UUID); undefined otherwise. */
    one: (scope: FeedScope, id: string, retentionDays: number) =>
      scope.areas.length === 0
        ? Effect.succeed(undefined)
        : Effect.map(
            Sql.rows(
              sql<{ readonly envelope: Record<string, unknown> }>`
                ${visible(scope)}
                select envelope from events
                where id = ${id} and ${inScope(scope)}
                  and published_at is not null
                  and published_at > now() - make_interval(days => ${retentionDays})`
            ),
            (rows) => rows[0]?.envelope
          ),

    /**
     * Deletes up to `limit` events published more than `retentionDays` ago by the database's clock, as the feed
     * counts them (rows another purge holds are skipped); resolves to how many it deleted. Unpublished rows are
     * never purged.
     */
    purge: (retentionDays: number, limit: number) =>
      Effect.map(
        Sql.rows(
          sql<{ readonly id: string }>`
            delete from events where id in (
              select id from events
              where published_at is not null and published_at <= now() - make_interval(days => ${retentionDays})
              limit ${limit}
              for update skip locked)
            returning id`
        ),
        (rows) => rows.length
      )
  }
}) {}
