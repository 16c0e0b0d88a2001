import { Schema } from "effect"

// C0 controls other than tab and line breaks, DEL, C1, and unpaired UTF-16 surrogates: text that can't be stored or
// shown as sent (the contract's texts refuse the same).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const unstorable = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** @internal Whether `value` is `min` to `max` code points of text that is not blank and holds no control character. */
export const textProblem = (value: string, min: number, max: number): string | undefined => {
  const length = [...value].length
  if (length < min || length > max) return `must be ${min} to ${max} characters long`
  if (value.trim().length === 0) return "must not be blank"
  if (unstorable.test(value)) return "must not contain control characters or unpaired surrogates"
  return undefined
}

/** @internal A text schema of `min` to `max` code points (see {@link textProblem}). */
export const Text = (min: number, max: number) =>
  Schema.String.pipe(Schema.filter((value) => textProblem(value, min, max) ?? true))

/** @internal A decoder path as a JSON Pointer (RFC 6901): `~` → `~0`, `/` → `~1`. */
export const pointer = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment) => `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")
