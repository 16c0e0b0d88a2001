/** The benchmarks' settings from the environment. */

/** The integer `name` holds, `fallback` when unset or empty; throws unless it is an integer from `min` to `max`. */
export const intFrom = (name: string, fallback: number, min: number, max: number): number => {
  const raw = process.env[name]
  const value = raw === undefined || raw === "" ? fallback : Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer from ${min} to ${max}`)
  return value
}

/** The PostgreSQL server a benchmark makes its fresh databases on: `DATABASE_URL`, by default the local one. */
export const benchServerUrl = (): string => process.env["DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/postgres"
