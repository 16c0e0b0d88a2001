/**
 * The console's client of the admin API, derived from the same HttpApi the host implements
 * (`../AdminApi.ts`), so a request or an answer that doesn't fit the contract fails to compile or to decode. Every
 * request carries the session's CSRF token once it is known; the browser sends the HttpOnly session cookie itself.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Effect, ParseResult } from "effect"
import { readableIssues } from "@propline/contract/ValidationIssues"
import { AdminApi } from "@propline/contract/AdminApi"
import type { ProblemLike } from "../ErrorMessages.js"

let csrfToken: string | undefined

/** The CSRF token every change sends (from sign-in or the current session); `undefined` after sign-out. */
export const setCsrfToken = (token: string | undefined): void => {
  csrfToken = token
}

const makeClient = HttpApiClient.make(AdminApi, {
  baseUrl: window.location.origin,
  transformClient: HttpClient.mapRequest((request) =>
    csrfToken === undefined ? request : HttpClientRequest.setHeader(request, "x-csrf-token", csrfToken)
  )
})

export type AdminClient = Effect.Effect.Success<typeof makeClient>

const client: AdminClient = Effect.runSync(makeClient.pipe(Effect.provide(FetchHttpClient.layer)))

/** A problem as the console handles it: the API's problem details, or status 0 when the network failed. */
export interface Problem extends ProblemLike {
  readonly requestId?: string | undefined
}

export type Result<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly problem: Problem }

const toProblem = (error: unknown): Problem => {
  // The client encodes with the contract's schemas before sending: input the API would refuse is refused here with
  // the same messages, as the same VALIDATION_FAILED problem.
  if (ParseResult.isParseError(error)) {
    return {
      status: 400,
      code: "VALIDATION_FAILED",
      issues: readableIssues(ParseResult.ArrayFormatter.formatErrorSync(error))
    }
  }
  if (typeof error === "object" && error !== null && "status" in error && typeof error.status === "number") {
    const record = error as { status: number; code?: string; detail?: string; issues?: ReadonlyArray<{ path: string; message: string }> }
    return { status: record.status, code: record.code, detail: record.detail, issues: record.issues }
  }
  return { status: 0, detail: "The console could not reach the server. Check the connection and try again." }
}

/** Runs one call of the client; never rejects. */
export const call = <A, E>(f: (client: AdminClient) => Effect.Effect<A, E>): Promise<Result<A>> =>
  Effect.runPromise(
    f(client).pipe(
      Effect.map((value): Result<A> => ({ ok: true, value })),
      Effect.catchAll((error) => Effect.succeed<Result<A>>({ ok: false, problem: toProblem(error) })),
      Effect.catchAllDefect((defect) => Effect.succeed<Result<A>>({ ok: false, problem: toProblem(defect) }))
    )
  )
