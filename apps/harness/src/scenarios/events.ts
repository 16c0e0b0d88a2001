/**
 * The events feed (issue 22, item 6; decisions 9) read through the published client (`@propline/client/Events`):
 * after the billing pass, the feed lists its events — the proposal passed, the invoice created and approved — with
 * the resources as the API returned them, filtered by type, oldest first; one event reads by id; an unknown id is
 * 404. Events join the list a few seconds after they are published, so the scenario reads on from its cursor for up
 * to {@link WAIT_MS}.
 */
import { FetchHttpClient } from "@effect/platform"
import * as Events from "@propline/client/Events"
import * as IntegrationClient from "@propline/client/IntegrationClient"
import { Effect, Stream } from "effect"
import { randomUUID } from "node:crypto"
import { accessToken, api, AssertionFailed, check, equal, expectStatus, type Scenario, show, Skip } from "../Harness.js"

/** How long the scenario waits for the pass's events to be listed (publication, then the feed's settle time). */
const WAIT_MS = 30_000

const TYPES = ["billing.invoice_proposal.passed", "billing.invoice.created", "billing.invoice.approved"] as const

const feedAfterPass: Scenario = {
  name: "events feed: the billing pass's events",
  run: async (context) => {
    const passed = context.state.passed
    if (passed === undefined) throw new Skip("no proposal was passed in this run")
    const token = await accessToken(context)
    const found = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* IntegrationClient.make({ baseUrl: context.credentials.base_url, accessToken: token })
        const seen: Array<Events.FeedEvent> = []
        let cursor: string | undefined
        const deadline = Date.now() + WAIT_MS
        for (;;) {
          const pages = yield* Stream.runCollect(Events.pages(client, { types: [...TYPES], limit: 100, ...(cursor === undefined ? {} : { cursor }) }))
          for (const page of pages) {
            seen.push(...page.items)
            if (page.nextCursor !== null) cursor = page.nextCursor
          }
          const mine = seen.filter((event) => {
            const object = event.data.object as { readonly id?: string }
            return object.id === passed.proposalId || object.id === passed.invoiceId
          })
          if (mine.length >= TYPES.length || Date.now() > deadline) {
            const byId = mine[0] === undefined ? undefined : yield* client.events.getEvent({ path: { eventId: mine[0].id } })
            return { seen, mine, byId }
          }
          yield* Effect.sleep(1000)
        }
      }).pipe(
        Effect.mapError((error) => new AssertionFailed(`the events feed failed: ${show(error)}`)),
        Effect.provide(FetchHttpClient.layer)
      )
    )
    check(found.seen.every((event) => (TYPES as ReadonlyArray<string>).includes(event.type)), "the types filter let another type through")
    for (let i = 1; i < found.seen.length; i++) {
      check(found.seen[i - 1]!.id !== found.seen[i]!.id, "the feed repeated an event")
    }
    equal(found.mine.map((event) => event.type).sort(), [...TYPES].sort(), `the pass's events within ${WAIT_MS / 1000} s`)
    for (const event of found.mine) {
      const decoded = await Effect.runPromise(Events.decode(JSON.parse(JSON.stringify(event))).pipe(Effect.either))
      check(decoded._tag === "Right", `event ${event.id} does not match its type's schema: ${show(decoded)}`)
      const object = event.data.object as { readonly externalReference?: string }
      equal(object.externalReference, passed.externalReference, `${event.type}'s data.object.externalReference`)
    }
    const passedEvent = found.mine.find((event) => event.type === "billing.invoice_proposal.passed")!
    equal(passedEvent.data["invoiceId"], passed.invoiceId, "billing.invoice_proposal.passed's data.invoiceId")
    equal(found.byId?.id, found.mine[0]!.id, "GET /v1/events/{eventId}")
    const unknown = await api(context, "GET", `/v1/events/${randomUUID()}`)
    expectStatus(unknown, 404, "GET /v1/events/{an unknown id}")
    return (
      `${found.mine.map((event) => event.type).join(", ")} of proposal ${passed.proposalId} listed ` +
      `(${found.seen.length} event(s) of ${TYPES.length} types read); one read by id; an unknown id 404`
    )
  }
}

/** The events scenarios: after the ERP scenarios, whose pass they look for. */
export const eventsScenarios: ReadonlyArray<Scenario> = [feedAfterPass]
