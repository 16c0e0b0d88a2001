/**
 * The events feed (issue 22, item 6): `GET /v1/events` and `GET /v1/events/{eventId}`, scoped exactly as the API
 * scopes the caller (`@propline/identity/EventVisibility`): the token's organization, the areas of its roles, its
 * operational contexts with their subtrees, and for an installation's token (the only ones holding `integrations`)
 * its own `integrations.*` events. Published events of the last 30 days; the list shows an event
 * `FEED_SETTLE_SECONDS` after its publication, oldest publication first.
 */
import type { PrincipalShape } from "@propline/contract/Authentication"
import { EVENT_RETENTION_DAYS, FEED_SETTLE_SECONDS } from "@propline/contract/Events"
import { AREA_ROLES } from "@propline/identity/EventVisibility"
import { Effect, Schema } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import { EventRepository, type FeedScope } from "./EventRepository.js"
import { traced } from "../platform/Spans.js"

/** The cursor kind of the feed. */
export const FEED_CURSOR = "events"

const isUuid = Schema.is(Schema.UUID)

/** The feed scope of a token: see the module's description. */
export const scopeOf = (principal: PrincipalShape): FeedScope => ({
  organizationId: principal.organizationId,
  areas: Object.keys(AREA_ROLES).filter((area) => principal.roles.includes(AREA_ROLES[area]!)),
  grantedContextIds: principal.contexts,
  // Only installation tokens hold `integrations` (decisions 2); their subject is the installation.
  installationId: principal.roles.includes("integrations") ? principal.subject : undefined
})

/** A page of the feed: envelopes, the cursor to read on from, and whether more are listed now. */
export interface FeedPage {
  readonly items: ReadonlyArray<Record<string, unknown>>
  readonly nextCursor: string | null
  readonly hasMore: boolean
}

export class EventService extends Effect.Service<EventService>()("@propline/api/events/EventService", {
  effect: Effect.gen(function* () {
    const events = yield* EventRepository
    return {
      /** A page of the principal's events after `after` (the decoded `cursor`), of `types` when given. */
      list: (
        principal: PrincipalShape,
        types: ReadonlyArray<string> | undefined,
        cursor: string | undefined,
        after: CursorPage.Position | undefined,
        limit: number
      ) =>
        Effect.map(
          events.feed(scopeOf(principal), types, after, limit, FEED_SETTLE_SECONDS, EVENT_RETENTION_DAYS),
          (rows): FeedPage => {
            const items = rows.slice(0, limit)
            const last = items.at(-1)
            return {
              items: items.map((row) => row.record.envelope),
              nextCursor: last === undefined ? (cursor ?? null) : CursorPage.encode(FEED_CURSOR, last.position),
              hasMore: rows.length > limit
            }
          }
        ).pipe(traced("EventService.list")),

      /** One event the principal can read; 404 `RecordNotFound` (`event`) otherwise. */
      get: (principal: PrincipalShape, eventId: string) =>
        Effect.flatMap(
          isUuid(eventId) ? events.one(scopeOf(principal), eventId, EVENT_RETENTION_DAYS) : Effect.succeed(undefined),
          (envelope) => (envelope === undefined ? Effect.fail(new RecordNotFound({ kind: "event" })) : Effect.succeed(envelope))
        ).pipe(traced("EventService.get"))
    }
  }),
  dependencies: [EventRepository.Default]
}) {}
