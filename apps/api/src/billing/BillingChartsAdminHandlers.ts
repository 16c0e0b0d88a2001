/**
 * The billing overview's charts (issue 25, item 6): the month range from `months` (the current UTC month and the
 * ones before it) and the figures of {@link BillingChartsReadRepository}.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import { CurrentOperator } from "@propline/contract/AdminSession"
import { BillingCharts } from "@propline/contract/PicturesAdmin"
import { Effect } from "effect"
import * as Sql from "../platform/Sql.js"
import { BillingChartsReadRepository } from "./BillingChartsReadRepository.js"

/** The `count` months ending with `today`'s, oldest first, as `YYYY-MM`. */
export const monthsEnding = (today: string, count: number): ReadonlyArray<string> => {
  const year = Number(today.slice(0, 4))
  const month = Number(today.slice(5, 7)) - 1
  return Array.from({ length: count }, (_, index) => {
    const at = new Date(Date.UTC(year, month - (count - 1) + index, 1))
    return at.toISOString().slice(0, 7)
  })
}

export const BillingChartsAdminHandlers = HttpApiBuilder.group(AdminApi, "billingCharts", (handlers) =>
  Effect.gen(function* () {
    const charts = yield* BillingChartsReadRepository
    return handlers.handle("billingCharts", ({ urlParams }) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        const today = (yield* Sql.now).toISOString().slice(0, 10)
        const months = monthsEnding(today, urlParams.months ?? 12)
        const [figures, overdueByAge] = yield* Effect.all([
          charts.months(operator.organizationId, `${months[0]}-01`, today),
          charts.overdueByAge(operator.organizationId, today)
        ])
        return new BillingCharts({ today, months: [...months], figures, overdueByAge })
      })
    )
  })
)
