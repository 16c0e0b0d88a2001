/**
 * Post-processing of the generated OpenAPI document: every 400 is the Error record (`BadRequest`) as
 * problem+json, and the platform's generic decode error — which never reaches a client, since the server answers
 * every malformed input with VALIDATION_FAILED — is dropped with the schemas only it used.
 */
type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
export type JsonObject = Record<string, Json>

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const refsIn = (value: Json, into: Set<string>): Set<string> => {
  if (Array.isArray(value)) value.forEach((item) => refsIn(item, into))
  else if (isObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") into.add(item.replace("#/components/schemas/", ""))
      else refsIn(item, into)
    }
  }
  return into
}

/**
 * Every 400 is the Error record (`BadRequest`) as problem+json; the platform's decode error and the schemas only
 * it used are dropped.
 */
export const clean = (spec: JsonObject): JsonObject => {
  const paths = spec["paths"] as JsonObject
  const badRequest = {
    description: "The request is not valid (`VALIDATION_FAILED` with `issues`), or a business rule refused it; " +
      "`code` names the rule.",
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/BadRequest" } } }
  }
  const cleanedPaths: JsonObject = {}
  for (const [path, item] of Object.entries(paths)) {
    const operations: JsonObject = {}
    for (const [method, operation] of Object.entries(item as JsonObject)) {
      const op = operation as JsonObject
      const responses = op["responses"] as JsonObject
      operations[method] = { ...op, responses: { ...responses, "400": badRequest } }
    }
    cleanedPaths[path] = operations
  }
  const components = spec["components"] as JsonObject
  const schemas = { ...(components["schemas"] as JsonObject) }
  delete schemas["HttpApiDecodeError"]
  // Drop schemas nothing refers to any more (the decode error's Issue and PropertyKey).
  for (;;) {
    const used = refsIn({ paths: cleanedPaths, schemas }, new Set())
    const unused = Object.keys(schemas).filter((name) => !used.has(name))
    if (unused.length === 0) break
    unused.forEach((name) => delete schemas[name])
  }
  return { ...spec, paths: cleanedPaths, components: { ...components, schemas } }
}

