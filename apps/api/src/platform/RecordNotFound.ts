/**
 * 404 (spec 7.1, decisions 2): the record does not exist, or lies outside the token's organization or contexts —
 * never 403, so a caller learns nothing about another organization's records.
 */
import { Data } from "effect"

export class RecordNotFound extends Data.TaggedError("RecordNotFound")<{
  /** What was looked for, as a client would name it: `invoice`, `invoice proposal`, `signing attempt` … */
  readonly kind: string
}> {
  get detail(): string {
    return `No such ${this.kind}, or the token cannot see it.`
  }
}
