/**
 * What the fuzz suites send (decisions 4: never a 500 for anything a client sent): hostile texts, values, ids and
 * bodies, and a request helper that asserts every answer is below 500 and every error is problem details
 * (spec 2.3), counting the statuses it saw.
 */
import fc from "fast-check"
import { expect } from "vitest"

export const hostileText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.constantFrom("\u0000", "\u0085", "\ud800", "  ", "", "null", "0x10", "1e2", "-1", "99999999999999999999"),
  fc.string({ unit: fc.constantFrom("[", "]", "{", "}", "\"", "\\", ",", ":", "9", "e", "-", "%"), maxLength: 60 })
)

export const hostileValue = fc.oneof(hostileText, fc.jsonValue({ maxDepth: 3 }))

/** A body: any JSON, `fields` (each member optional, hostile or not) as JSON, deep nesting, or hostile text. */
export const hostileBody = (fields: fc.Arbitrary<Record<string, unknown>>) =>
  fc.oneof(
    fc.jsonValue({ maxDepth: 5 }).map((value) => JSON.stringify(value)),
    fields.map((value) => JSON.stringify(value)),
    fc.integer({ min: 1, max: 3000 }).map((depth) => "[".repeat(depth) + "]".repeat(depth)),
    hostileText
  )

const percentEncoded = hostileText.map((text) =>
  [...Buffer.from(text, "utf8")].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join("")
)

/** A path id: a UUID, percent-encoded hostile text, or a few classics. */
export const hostileId = fc.oneof(fc.uuid(), percentEncoded, fc.constantFrom("not-a-uuid", "%00", "..%2F..%2F"))

/**
 * A request helper against `baseUrl()` with the bearer `token()` (none when `bearer: false`): it asserts the answer
 * is below 500 and, for an error, problem details; `statuses` counts what it saw. Resolves to the status.
 */
export const checkedSender =
  (baseUrl: () => string, token: () => string, statuses: Map<number, number>) =>
  async (method: string, path: string, options: { body?: string | Uint8Array; type?: string; bearer?: boolean } = {}) => {
    const headers: Record<string, string> = options.bearer === false ? {} : { authorization: `Bearer ${token()}` }
    if (options.type !== undefined) headers["content-type"] = options.type
    const response = await fetch(`${baseUrl()}${path}`, {
      method,
      headers,
      ...(options.body === undefined ? {} : { body: options.body })
    })
    const text = await response.text()
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    const sent = typeof options.body === "string" ? options.body.slice(0, 80) : `${options.body?.length ?? 0} bytes`
    expect(response.status, `${method} ${path} ${sent} → ${text.slice(0, 200)}`).toBeLessThan(500)
    if (response.status >= 400) {
      expect(response.headers.get("content-type")).toContain("application/problem+json")
      const problem = JSON.parse(text) as { type: string; status: number }
      expect(problem.type).toBe("about:blank")
      expect(problem.status).toBe(response.status)
    }
    return response.status
  }

/**
 * A body for the signed-PDF upload crafted against the document check (issue 19 item 1): `%PDF-1.7` and a unit
 * repeated (the shapes that made the old trailer scan quadratic, unbalanced strings, deep nesting), or a real-looking
 * PDF with an unclosed trailer or `/Encrypt` in odd places; 1 to 200 KiB.
 */
export const hostilePdf = fc
  .tuple(
    fc.constantFrom(
      " obj<<",
      "trailer<<",
      "1 0 obj (endobj\n",
      "1 0 obj <</A endobj\n",
      "<<",
      "[",
      "(",
      "/Encr#79pt",
      "stream\n",
      "trailer << /Encrypt 1 0 R >>",
      "9 0 obj << /Type /XRef /Encrypt 1 0 R >> stream\n"
    ),
    fc.integer({ min: 1, max: 200 * 1024 })
  )
  .map(([unit, size]) => new TextEncoder().encode(`%PDF-1.7\n${unit.repeat(Math.max(1, Math.floor(size / unit.length)))}`))

/** Dates that do not exist, or fall outside 1900-01-01..2999-12-31, or are spelled otherwise (issue 19). */
export const impossibleDate = fc.constantFrom(
  "2027-02-29",
  "2027-04-31",
  "2026-11-31",
  "2026-00-10",
  "2026-13-01",
  "0000-01-01",
  "1899-12-31",
  "3000-01-01",
  "9999-12-31",
  "+002026-01-01",
  "2026-1-5",
  "2026-01-01T00:00:00Z"
)

/** Instants that name no instant exactly: impossible dates and times, out of range, finer than a millisecond. */
export const impossibleInstant = fc.oneof(
  impossibleDate.map((date) => `${date}T09:00:00Z`),
  fc.constantFrom(
    "2026-11-31T09:00:00Z",
    "0000-01-01T00:00:00Z",
    "2026-05-01T24:00:00Z",
    "2026-05-01T10:60:00Z",
    "2026-05-01T10:00:60Z",
    "2026-05-01T10:00:00.0001Z",
    "2026-05-01T10:00:00+24:00",
    "2026-05-01T10:00:00",
    "+275760-09-13T00:00:00Z",
    "-000001-01-01T00:00:00Z",
    "2026-05-01"
  )
)

/** Bodies that are JSON but not an object, and no body at all. */
export const nonObjectBody = fc.constantFrom("[]", "[1,2]", "[{}]", "\"s\"", "\"\"", "1", "0", "-1.5", "null", "true", "")

/**
 * `fields` as a JSON object with 1 to 4 members no operation names added: misspellings, prototype names
 * (`__proto__` arrives as an own member, as JSON.parse makes it) and random names.
 */
export const withUnknownMembers = (fields: fc.Arbitrary<Record<string, unknown>>) =>
  fc
    .tuple(
      fields,
      fc.array(
        fc.tuple(fc.oneof(fc.constantFrom("addons", "__proto__", "constructor", "toString", "hasOwnProperty", "ADDONS"), fc.string({ maxLength: 12 })), hostileValue),
        { minLength: 1, maxLength: 4 }
      )
    )
    .map(([known, extra]) =>
      `{${[...Object.entries(known), ...extra].map(([name, value]) => `${JSON.stringify(name)}:${JSON.stringify(value ?? null)}`).join(",")}}`
    )
