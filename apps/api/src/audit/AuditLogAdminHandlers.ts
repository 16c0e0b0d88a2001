/** The audit log of the operator's organization, newest first, filtered by action, actor, target, request or time. */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import { AuditEntryView } from "@propline/contract/AuditLogAdmin"
import { CurrentOperator } from "@propline/contract/AdminSession"
import { Effect } from "effect"
import * as CursorPage from "../platform/CursorPage.js"
import { given, limitOf } from "../platform/ConsoleListing.js"
import { AuditLogReadRepository } from "./AuditLogReadRepository.js"

const dateOnly = /^\d{4}-\d{2}-\d{2}$/

/** A bound: a date alone is UTC midnight; `to` given as a date includes that whole day. */
const bound = (text: string | undefined, end: boolean): Date | undefined => {
  const value = given(text)
  if (value === undefined) return undefined
  if (!dateOnly.test(value)) return new Date(value)
  const midnight = new Date(`${value}T00:00:00.000Z`)
  return end ? new Date(midnight.getTime() + 24 * 60 * 60 * 1000) : midnight
}

export const AuditLogAdminHandlers = HttpApiBuilder.group(AdminApi, "auditLog", (handlers) =>
  Effect.gen(function* () {
    const views = yield* AuditLogReadRepository
    return handlers.handle("list", ({ urlParams }) =>
      Effect.gen(function* () {
        const { organizationId } = yield* CurrentOperator
        const after = yield* CursorPage.decode("admin-audit", urlParams.cursor)
        const filter = {
          action: given(urlParams.action),
          actorType: given(urlParams.actorType),
          targetType: given(urlParams.targetType),
          targetId: given(urlParams.targetId),
          requestId: given(urlParams.requestId),
          from: bound(urlParams.from, false),
          to: bound(urlParams.to, true)
        }
        const page = yield* views.entries(organizationId, filter, after, limitOf(urlParams.limit))
        return { items: page.items.map((row) => new AuditEntryView(row)), nextCursor: page.nextCursor }
      })
    )
  })
)
