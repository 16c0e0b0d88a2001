import { Effect, Layer, Option, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import { spanned, traced } from "../../src/platform/Spans.js"

/** A tracer that records the names of the spans it starts, and whether the effect saw one as its current span. */
const recording = () => {
  const started: Array<string> = []
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      started.push(name)
      return {
        _tag: "Span",
        name,
        spanId: `span-${started.length}`,
        traceId: "trace",
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes: new Map(),
        links,
        sampled: true,
        kind,
        end: () => {},
        attribute: () => {},
        event: () => {},
        addLinks: () => {}
      }
    },
    context: (f) => f()
  })
  return { started, layer: Layer.setTracer(tracer) }
}

const currentSpanName = Effect.map(Effect.option(Effect.currentSpan), Option.map((span) => span.name))

describe("traced (issue 27)", () => {
  it("records the span, as Effect.withSpan does, when spans are switched on", async () => {
    const { started, layer } = recording()
    const inside = await Effect.runPromise(
      currentSpanName.pipe(traced("Service.method"), Effect.provide(layer), Effect.withTracerEnabled(true))
    )
    expect(started).toEqual(["Service.method"])
    expect(inside).toEqual(Option.some("Service.method"))
  })

  it("runs the effect as it is, making no span at all, when spans are switched off", async () => {
    const { started, layer } = recording()
    const [inside, value] = await Effect.runPromise(
      Effect.all([currentSpanName, traced(Effect.succeed(42), "Service.method")]).pipe(
        traced("Service.outer"),
        Effect.provide(layer),
        Effect.withTracerEnabled(false)
      )
    )
    expect(started).toEqual([])
    expect(inside).toEqual(Option.none())
    expect(value).toBe(42)
  })

  it("keeps failures and the methods of a spanned service", async () => {
    const { started, layer } = recording()
    const service = spanned("Repo", {
      find: (id: string) => (id === "x" ? Effect.succeed({ id }) : Effect.fail(`missing ${id}`))
    })
    const found = await Effect.runPromise(service.find("x").pipe(Effect.provide(layer), Effect.withTracerEnabled(true)))
    const missing = await Effect.runPromise(
      Effect.flip(service.find("y")).pipe(Effect.provide(layer), Effect.withTracerEnabled(false))
    )
    expect(found).toEqual({ id: "x" })
    expect(missing).toBe("missing y")
    expect(started).toEqual(["Repo.find"])
  })
})
