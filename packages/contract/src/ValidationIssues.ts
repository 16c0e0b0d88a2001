/**
 * VALIDATION_FAILED issues an integrator can read (spec 7.1, issue 19), made from the schema decoder's issues
 * (`ParseResult.ArrayFormatter`) by the API host, the admin host and the console's client alike. The contract's
 * shared value schemas carry message annotations ("must be a date (YYYY-MM-DD) that exists in the calendar …",
 * "must be one of: SEK, NOK, …"); this turns whatever else the decoder says into the same kind of sentence.
 */
/** The longest message an issue carries; a longer one (a filter's sentence quoting input) is cut. */
export const MAX_ISSUE_MESSAGE_LENGTH = 300

/** The most issues a problem lists (the first ones, in the order of the input): a bound on its size. */
export const MAX_ISSUES = 100

/** One issue as the schema decoder reports it (`ParseResult.ArrayFormatter`). */
export interface DecoderIssue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const expectedActual = /^Expected ([\s\S]*?), actual [\s\S]*$/
const literal = /^(?:"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?|true|false|null)$/
const optionalNoise = /^Expected undefined, actual /

/** `"a" | "b" | 1` → `["a", "b", "1"]`, or undefined when the text is not a union of literals. */
const literals = (text: string): Array<string> | undefined => {
  const parts = text.split(" | ")
  if (!parts.every((part) => literal.test(part))) return undefined
  return parts.map((part) => String(JSON.parse(part)))
}

const oneOf = (values: ReadonlyArray<string>) => `must be one of: ${[...new Set(values)].join(", ")}`

/** What the decoder expected, as the end of "must be …"; never the actual value. */
const expectation = (expected: string): string => {
  const values = literals(expected)
  if (values !== undefined) return oneOf(values)
  if (expected === "string") return "must be a string"
  if (expected === "number") return "must be a number"
  if (expected === "boolean") return "must be true or false"
  if (expected === "a Universally Unique Identifier") return "must be a UUID"
  if (expected.startsWith("{") || /^[A-Z]\w*(?: \(Encoded side\))?$/.test(expected)) return "must be a JSON object"
  if (expected.startsWith("ReadonlyArray<") || expected.startsWith("readonly [")) return "must be an array"
  if (expected.startsWith("a string matching the pattern")) return "is not in the expected format"
  // Effect's own descriptions of its refinements read as sentences ("an integer", "an array of at most 20 item(s)").
  if (/^an? [a-z]/.test(expected)) return `must be ${expected.replaceAll("(s)", "s")}`
  return "is not valid"
}

const sentence = (issue: DecoderIssue): string => {
  if (issue._tag === "Missing") return "is required"
  if (issue._tag === "Unexpected") {
    const known = /^is unexpected, expected: (.*)$/.exec(issue.message)
    const names = known === null ? undefined : literals(known[1]!)
    if (names !== undefined) return `is not a member of this request; its members are: ${names.join(", ")}`
    return issue.message.startsWith("is unexpected") ? "is not a member of this request" : issue.message
  }
  const expected = expectedActual.exec(issue.message)
  return expected === null ? issue.message : expectation(expected[1]!)
}

const capped = (message: string): string =>
  message.length <= MAX_ISSUE_MESSAGE_LENGTH ? message : `${message.slice(0, MAX_ISSUE_MESSAGE_LENGTH - 1)}…`

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
const pointer = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment) => `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")

/**
 * Spec 7.1, issue 19: the decoder's issues as an integrator reads them — one per failing field (its JSON Pointer),
 * each a sentence ("must be an integer from 1 to 100", "must be one of: SEK, NOK, …", "is required", "is not a
 * member of this request"), never "Expected …, actual …" and never the value sent, at most
 * {@link MAX_ISSUE_MESSAGE_LENGTH} characters. An optional member's "or absent" branch is not a second issue, and
 * a literal union the decoder reports one literal at a time is one issue naming every value. At most
 * {@link MAX_ISSUES} issues.
 */
export const readableIssues = (
  issues: ReadonlyArray<DecoderIssue>
): Array<{ readonly path: string; readonly message: string }> => {
  const byPath = new Map<string, Array<DecoderIssue>>()
  for (const issue of issues) {
    const path = pointer(issue.path)
    const group = byPath.get(path)
    if (group === undefined) byPath.set(path, [issue])
    else group.push(issue)
  }
  const paths = [...byPath.keys()]
  const out: Array<{ path: string; message: string }> = []
  for (const [path, group] of byPath) {
    const real = group.filter((issue) => !optionalNoise.test(issue.message))
    if (real.length === 0) {
      // Only "or absent" failed here: the member's own issues are deeper, or it is simply not valid.
      if (!paths.some((other) => other.startsWith(`${path}/`))) out.push({ path, message: "is not valid" })
      continue
    }
    const each = real.map((issue) => expectedActual.exec(issue.message)?.[1])
    const values = each.every((expected) => expected !== undefined)
      ? each.flatMap((expected) => literals(expected!) ?? [])
      : []
    const message = values.length > 0 && each.every((expected) => literals(expected!) !== undefined)
      ? oneOf(values)
      : sentence(real.find((issue) => !expectedActual.test(issue.message)) ?? real[0]!)
    out.push({ path, message: capped(path === "" && message === "must be a JSON object" ? "The body must be a JSON object." : message) })
  }
  return out.slice(0, MAX_ISSUES)
}

