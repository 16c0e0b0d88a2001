/**
 * The OpenAPI document's operations, for checking that a problem a test receives is one its operation lists
 * (`TestApp.call`): by method and path (templates matched segment by segment), and the codes each problem status
 * names.
 */
import { openApiDocument } from "@propline/contract/OpenApiDocument"

interface Operation {
  readonly operationId: string
  readonly responses: Record<string, { readonly content?: Record<string, { readonly schema?: { readonly $ref?: string } }> }>
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is read as plain JSON
const document = openApiDocument("http://api.test", "http://auth.test") as any
const schemas = document.components.schemas as Record<string, { readonly allOf?: ReadonlyArray<{ readonly properties?: { readonly code?: unknown } }> }>

const templates = Object.entries(document.paths as Record<string, Record<string, Operation>>).map(([path, item]) => ({
  pattern: new RegExp(`^${path.replace(/\{[^}]+\}/g, "[^/]+")}$`),
  literalSegments: path.split("/").filter((segment) => !segment.startsWith("{")).length,
  item
}))

/** The operation serving `method path`: the matching template with the most literal segments. */
export const documentedOperation = (method: string, path: string): Operation | undefined =>
  templates
    .filter((template) => template.pattern.test(path) && template.item[method.toLowerCase()] !== undefined)
    .sort((a, b) => b.literalSegments - a.literalSegments)[0]?.item[method.toLowerCase()]

/**
 * The codes `operation` lists for `status`: its narrowed problem schema's enum, `[]` when the schema forbids a
 * code, every code when the response is the generic problem, `undefined` when the operation has no such response.
 */
export const documentedCodes = (operation: Operation, status: number): ReadonlyArray<string> | undefined => {
  const response = operation.responses[String(status)]
  if (response === undefined) return undefined
  const ref = response.content?.["application/problem+json"]?.schema?.$ref?.replace("#/components/schemas/", "")
  const narrowed = ref === undefined ? undefined : schemas[ref]?.allOf?.[1]?.properties?.code
  if (narrowed === undefined) return [...(document.components.schemas.ErrorCode.enum as ReadonlyArray<string>)]
  return narrowed === false ? [] : ((narrowed as { enum: ReadonlyArray<string> }).enum)
}
