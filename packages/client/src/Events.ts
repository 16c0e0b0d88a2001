/**
 * Events (issue 22): every event type and its body, and the events feed as a stream.
 *
 * ```ts
 * const api = yield* IntegrationClient.make({ baseUrl, accessToken })
 * // Catch up from a saved cursor, page by page; save each page's nextCursor once its events are handled.
 * for await (const page of Stream.toAsyncIterable(Events.pages(api, { cursor: saved }))) { … page.nextCursor }
 * // A webhook body, checked against the catalog:
 * const event = yield* Events.decode(JSON.parse(body)) // Event: narrow on event.type
 * ```
 *
 * The types come from the contract (`@propline/contract/Events`): `EventType` (every dotted type), `Event<T>` (an
 * event as decoded, `createdAt` a `Date`), `EventJson<T>` (its JSON body, as a webhook receives it).
 */
import type { EventListParams } from "@propline/contract/Events"
import { EVENT_SCHEMAS, EVENT_TYPES, type Event, type EventType } from "@propline/contract/Events"
import { Chunk, Effect, Option, Schema, Stream } from "effect"
import type { ParseError } from "effect/ParseResult"
import type { IntegrationClient } from "./IntegrationClient.js"

export {
  EVENT_CATALOG,
  EVENT_SCHEMAS,
  EVENT_TYPES,
  type Event,
  type EventJson,
  type EventSchema,
  type EventType,
  FeedEvent
} from "@propline/contract/Events"

/** What to read: only these `types`, from a saved `cursor`, `limit` events per request (1 to 100). */
export interface FeedOptions {
  readonly types?: ReadonlyArray<EventType>
  readonly cursor?: string
  readonly limit?: number
}

const params = (options: FeedOptions, cursor: string | undefined): EventListParams => ({
  ...(options.types === undefined || options.types.length === 0 ? {} : { types: options.types.join(",") }),
  ...(options.limit === undefined ? {} : { limit: options.limit }),
  ...(cursor === undefined ? {} : { cursor })
})

/**
 * The feed's pages from `options.cursor` (the start when absent) until the reader has caught up (`hasMore` false);
 * each page's `nextCursor` is where to read on from later. Fails with the operation's errors.
 */
export const pages = (client: IntegrationClient, options: FeedOptions = {}) =>
  Stream.paginateEffect(options.cursor, (cursor) =>
    Effect.map(client.events.listEvents({ urlParams: params(options, cursor) }), (page) => [
      page,
      page.hasMore && page.nextCursor !== null ? Option.some(page.nextCursor) : Option.none()
    ])
  )

/** The feed's events, oldest first, from `options.cursor` until caught up (see {@link pages}). */
export const events = (client: IntegrationClient, options: FeedOptions = {}) =>
  Stream.flatMap(pages(client, options), (page) => Stream.fromChunk(Chunk.fromIterable(page.items)))

/** Any event of the catalog: the union of every type's schema, told apart by `type`. */
export const AnyEvent = Schema.Union(...EVENT_TYPES.map((type) => EVENT_SCHEMAS[type]))

/**
 * Decodes an event's JSON body (a webhook delivery, or a feed item as received) against its type's schema; fails
 * with a `ParseError` for an unknown type or a body that does not match.
 */
export const decode = (body: unknown): Effect.Effect<Event, ParseError> =>
  Schema.decodeUnknown(AnyEvent)(body) as Effect.Effect<Event, ParseError>
