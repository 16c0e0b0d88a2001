/**
 * The client's Promise API: `new Propline(options)` gives every operation of the contract as
 * `propline.<group>.<operation>(request)` returning a Promise, with the Effect API's tokens, retries, timeouts and
 * errors (`Client.ts`): a failure rejects with one of the `Errors.ts` classes (`instanceof NotFoundError`, `error.code`,
 * `error.issues`, `error.requestId`).
 *
 * ```ts
 * const propline = new Propline({ baseUrl, tokenUrl: `${authUrl}/oauth/token`, clientId, clientSecret })
 * // or an installed connector: new Propline({ baseUrl, tokenUrl, appId, installationId, privateKey })
 * for await (const invoice of propline.paginate(propline.billing.getSendQueue, { urlParams: {} })) { … }
 * try {
 *   await propline.billing.reportPayment({ path: { invoiceId }, payload })
 * } catch (error) {
 *   if (error instanceof ConflictError) console.log(error.code, error.requestId)
 * }
 * ```
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { type CursorPage, type CursorRequest, make, nextCursor, type Operations, type Options, withCursor } from "./Client.js"

const run = async <A>(effect: Effect.Effect<A, unknown>): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}

// The class's groups (`billing`, `booking`, …) are the contract's, added by the constructor.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type, @typescript-eslint/no-unsafe-declaration-merging
export interface Propline extends Operations<"promise"> {}

// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class Propline {
  /** Builds the client; no request is sent until the first operation (which first gets a token). */
  constructor(options: Options) {
    const client = Effect.runSync(Effect.provide(make(options), FetchHttpClient.layer)) as unknown as Record<
      string,
      Record<string, (request: unknown) => Effect.Effect<unknown, unknown>>
    >
    for (const [group, operations] of Object.entries(client)) {
      const promised: Record<string, (request: unknown) => Promise<unknown>> = {}
      for (const [name, operation] of Object.entries(operations)) promised[name] = (request) => run(operation(request))
      Object.defineProperty(this, group, { value: promised, enumerable: true })
    }
  }

  /**
   * Every item of a cursor list, from `request`'s cursor (the start when absent) to the last page, fetching a page
   * when the previous one is used up: `for await (const item of propline.paginate(propline.billing.getSendQueue,
   * { urlParams: { limit: 100 } }))`. Works with every list (queues, resources, add-on products, configurations,
   * operational contexts) and the events feed (`propline.events.listEvents`, until caught up). Rejects with the
   * operation's error.
   */
  async *paginate<Req extends CursorRequest, Item>(
    list: (request: Req) => Promise<CursorPage<Item>>,
    request: Req
  ): AsyncGenerator<Item, void, undefined> {
    let cursor = request?.urlParams?.cursor
    for (;;) {
      const page = await list(withCursor(request, cursor))
      yield* page.items
      cursor = nextCursor(page)
      if (cursor === undefined) return
    }
  }
}
