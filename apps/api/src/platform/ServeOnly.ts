/**
 * Serving an HTTP app with only the services it names in its requests' Context (issue 27).
 *
 * `HttpServer.serve` runs every request in the whole Context the serving layer was built in: every service of the
 * process (23 on the identity host: the API's storage, signer, verifier, the platform's file system, terminal, worker
 * manager, …). A request copies its Context several times (the platform adds the request and its Scope, the access log
 * its request state: `docs/performance.md`), each a copy of that whole map. {@link serveOnly} builds the same server
 * with the request fibers' Context holding only the services `app` requires, so each copy is of a map less than half the size.
 * An HttpApi handler group merges the Context it was built in into every request's Context; {@link buildOnly} builds
 * it (any layer) with only the services it requires, so that merge adds those, not every service of the process.
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Context, Effect, Layer, Scope } from "effect"

/** The entries of `context` for `tags` (those it holds), as a new map. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tag, as below
const servicesOf = (context: Context.Context<never>, tags: ReadonlyArray<Context.Tag<any, any>>): Map<string, unknown> => {
  const only = new Map<string, unknown>()
  for (const tag of tags) {
    const service = context.unsafeMap.get(tag.key)
    if (service !== undefined) only.set(tag.key, service)
  }
  return only
}

/**
 * `HttpServer.serve(app, middleware)`, its requests run with only `services` (and the serving layer's Scope and Layer
 * memo map, as before) in their Context. `app`, and `middleware` when given (a server middleware: it wraps the app
 * that has already sent its answer, as `HttpServer.serve`'s does), may require nothing else (checked by their types): a
 * service read without requiring it would be missing. Requires the HTTP server and the services.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tag: a Tag's type parameters are invariant
export const serveOnly = <const Tags extends ReadonlyArray<Context.Tag<any, any>>, E>(
  app: HttpApp.Default<E, Context.Tag.Identifier<Tags[number]> | HttpServerRequest.HttpServerRequest | Scope.Scope>,
  services: Tags,
  middleware?: (
    app: HttpApp.Default<E, Context.Tag.Identifier<Tags[number]> | HttpServerRequest.HttpServerRequest | Scope.Scope>
  ) => HttpApp.Default<unknown, Context.Tag.Identifier<Tags[number]> | HttpServerRequest.HttpServerRequest | Scope.Scope>
): Layer.Layer<never, never, HttpServer.HttpServer | Context.Tag.Identifier<Tags[number]>> =>
  Layer.scopedDiscard(
    Effect.contextWithEffect((context: Context.Context<HttpServer.HttpServer | Scope.Scope | Context.Tag.Identifier<Tags[number]>>) => {
      const only = servicesOf(context, [...services, Scope.Scope, Layer.CurrentMemoMap])
      const server = Context.get(context, HttpServer.HttpServer)
      // The Context replaced, not merged into (what `Effect.provide` of a Context does): the handler's runtime is the
      // Context `serve` runs in.
      return Effect.mapInputContext(
        middleware === undefined ? server.serve(app) : server.serve(app, middleware),
        () => Context.unsafeMake<Scope.Scope | Context.Tag.Identifier<Tags[number]>>(only)
      )
    })
  )

/**
 * `layer` built with only `services` (and the building layer's Scope and Layer memo map) in its Context: what it
 * captures of its Context is that, not every service of the process. For an HttpApi handler group
 * (`HttpApiBuilder.group`), which merges the Context it was built in into every request's Context (a copy of the whole
 * map per request), so that copy is of the services the group requires. `layer` may require nothing else (checked by
 * its type); the layers it builds share the memo map, so a layer built elsewhere too (the router) is built once.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any tag: a Tag's type parameters are invariant
export const buildOnly = <const Tags extends ReadonlyArray<Context.Tag<any, any>>, A, E>(
  layer: Layer.Layer<A, E, Context.Tag.Identifier<Tags[number]>>,
  services: Tags
): Layer.Layer<A, E, Context.Tag.Identifier<Tags[number]>> =>
  Layer.scopedContext<A, E, Scope.Scope | Context.Tag.Identifier<Tags[number]>>(
    Effect.contextWithEffect((context: Context.Context<Scope.Scope | Context.Tag.Identifier<Tags[number]>>) => {
      const only = servicesOf(context, services)
      return Effect.mapInputContext(
        Layer.buildWithMemoMap(layer, Context.get(context, Layer.CurrentMemoMap), Context.get(context, Scope.Scope)),
        () => Context.unsafeMake<Context.Tag.Identifier<Tags[number]>>(only)
      )
    })
  )
