/**
 * Serving an HTTP app with only the services it names in its requests' Context (issue 27).
 *
 * `HttpServer.serve` runs every request in the whole Context the serving layer was built in: every service of the
 * process (23 on the identity host: the API's storage, signer, verifier, the platform's file system, terminal, worker
 * manager, …). A request copies its Context several times (the platform adds the request and its Scope, the access log
 * its request state: `docs/performance.md`), each a copy of that whole map. {@link serveOnly} builds the same server
 * with the request fibers' Context holding only the services `app` requires, so each copy is of a map less than half the size.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Context, Effect, Layer, Scope } from "effect"

/**
 * `HttpServer.serve(app)`, its requests run with only `services` (and the serving layer's Scope and Layer memo map, as
 * before) in their Context. `app` may require nothing else (checked by its type): a service it reads without requiring
 * it would be missing. Requires the HTTP server and the services.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tag: a Tag's type parameters are invariant
export const serveOnly = <const Tags extends ReadonlyArray<Context.Tag<any, any>>, E>(
  app: HttpApp.Default<E, Context.Tag.Identifier<Tags[number]> | HttpServerRequest.HttpServerRequest | Scope.Scope>,
  services: Tags
): Layer.Layer<never, never, HttpServer.HttpServer | Context.Tag.Identifier<Tags[number]>> =>
  Layer.scopedDiscard(
    Effect.contextWithEffect((context: Context.Context<HttpServer.HttpServer | Scope.Scope | Context.Tag.Identifier<Tags[number]>>) => {
      const only = new Map<string, unknown>()
      for (const tag of [...services, Scope.Scope, Layer.CurrentMemoMap]) {
        const service = context.unsafeMap.get(tag.key)
        if (service !== undefined) only.set(tag.key, service)
      }
      // The Context replaced, not merged into (what `Effect.provide` of a Context does): the handler's runtime is the
      // Context `serve` runs in.
      return Effect.mapInputContext(
        Context.get(context, HttpServer.HttpServer).serve(app),
        () => Context.unsafeMake<Scope.Scope | Context.Tag.Identifier<Tags[number]>>(only)
      )
    })
  )
