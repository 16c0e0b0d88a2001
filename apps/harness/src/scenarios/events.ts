/**
 * The events feed (issue 22, item 6; decisions 9) read through the published client's Promise API from its packed
 * tarball (`for await` over `propline.paginate(propline.events.listEvents, …)`): after the billing pass, the feed
 * lists its events — the proposal passed, the invoice created and approved — with the resources as the API returned
 * them, each matching its type's schema in the contract, filtered by type, oldest first; one event reads by id
 * (`propline.events.getEvent`); an unknown id is 404. Events join the list a few seconds after they are published,
 * so the scenario reads on from the last page's cursor for up to {@link WAIT_MS}.
 */
import { EVENT_SCHEMAS, EVENT_TYPES } from "@propline/contract/Events"
import { Schema } from "effect"
import { randomUUID } from "node:crypto"
import { api, check, decode, equal, expectStatus, published, type Scenario, Skip } from "../Harness.js"

/** How long the scenario waits for the pass's events to be listed (publication, then the feed's settle time). */
const WAIT_MS = 30_000

const TYPES = ["billing.invoice_proposal.passed", "billing.invoice.created", "billing.invoice.approved"] as const

/** Any event of the catalog, told apart by `type`. */
const AnyEvent = Schema.Union(...EVENT_TYPES.map((type) => EVENT_SCHEMAS[type]))

const feedAfterPass: Scenario = {
  name: "events feed: the billing pass's events",
  run: async (context) => {
    const passed = context.state.passed
    if (passed === undefined) throw new Skip("no proposal was passed in this run")
    const propline = await published(context)
    type Listing = Parameters<typeof propline.events.listEvents>[0]
    // The feed's pages as the client reads them, keeping the last page's nextCursor to read on from later.
    let cursor: string | undefined
    const listEvents = async (request: Listing) => {
      const page = await propline.events.listEvents(request)
      if (page.nextCursor !== null) cursor = page.nextCursor
      return page
    }
    const seen: Array<Awaited<ReturnType<typeof listEvents>>["items"][number]> = []
    const mine = () =>
      seen.filter((event) => {
        const object = event.data.object as { readonly id?: string }
        return object.id === passed.proposalId || object.id === passed.invoiceId
      })
    const deadline = Date.now() + WAIT_MS
    for (;;) {
      const from = cursor
      const request = { urlParams: { types: TYPES.join(","), limit: 100, ...(from === undefined ? {} : { cursor: from }) } }
      for await (const event of propline.paginate(listEvents, request)) seen.push(event)
      if (mine().length >= TYPES.length || Date.now() > deadline) break
      await new Promise((resolve) => setTimeout(resolve, 1000))
    }
    check(seen.every((event) => (TYPES as ReadonlyArray<string>).includes(event.type)), "the types filter let another type through")
    for (let i = 1; i < seen.length; i++) check(seen[i - 1]!.id !== seen[i]!.id, "the feed repeated an event")
    const events = mine()
    equal(events.map((event) => event.type).sort(), [...TYPES].sort(), `the pass's events within ${WAIT_MS / 1000} s`)
    for (const event of events) {
      decode(AnyEvent, event, `event ${event.id} (${event.type})`)
      const object = event.data.object as { readonly externalReference?: string }
      equal(object.externalReference, passed.externalReference, `${event.type}'s data.object.externalReference`)
    }
    const passedEvent = events.find((event) => event.type === "billing.invoice_proposal.passed")!
    equal(passedEvent.data["invoiceId"], passed.invoiceId, "billing.invoice_proposal.passed's data.invoiceId")
    const byId = await propline.events.getEvent({ path: { eventId: events[0]!.id } })
    equal(byId.id, events[0]!.id, "GET /v1/events/{eventId}")
    // Raw on purpose: the exact status and problem body of an unknown id.
    const unknown = await api(context, "GET", `/v1/events/${randomUUID()}`)
    expectStatus(unknown, 404, "GET /v1/events/{an unknown id}")
    return (
      `${events.map((event) => event.type).join(", ")} of proposal ${passed.proposalId} listed by for await ` +
      `(${seen.length} event(s) of ${TYPES.length} types read); one read by id; an unknown id 404`
    )
  }
}

/** The events scenarios: after the ERP scenarios, whose pass they look for. */
export const eventsScenarios: ReadonlyArray<Scenario> = [feedAfterPass]
