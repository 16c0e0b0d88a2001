/**
 * Add-on products: the extras a booking website sells with a booking, such as catering or equipment
 * (spec section 4.2, `GET /v1/booking/resources/{resourceId}/add-on-products`; decisions.md section 7), and the
 * lines a booking orders of them.
 *
 * @since 0.1.0
 */
import type { Currency } from "@propline/billing/Invoice"
import type { WeeklyOpening } from "./Resource.js"

/**
 * What kind of extra a product is.
 *
 * @since 0.1.0
 */
export type AddOnCategory = "catering" | "equipment" | "service"

/**
 * Every add-on category.
 *
 * @since 0.1.0
 */
export const ADD_ON_CATEGORIES: ReadonlyArray<AddOnCategory> = ["catering", "equipment", "service"]

/**
 * The order deadline of a product: an order must be placed no later than `time` (local `HH:MM`, in the
 * resource's time zone) `daysBefore` local days before the delivery date (`{ daysBefore: 1, time: "14:00" }`:
 * by 14:00 the day before).
 *
 * @since 0.1.0
 */
export interface AddOnCutOff {
  readonly daysBefore: number
  readonly time: string
}

/**
 * An add-on product of an operational context. Ids are UUID strings.
 *
 * - `unitPriceMinorUnits`: net price of one unit (a portion, a device), integer minor units of `currency`;
 *   VAT at `vatRateBasisPoints`.
 * - `leadTimeMinutes`: an order must be placed at least this long before delivery.
 * - `cutOff`: a calendar deadline besides the lead time, when present.
 * - `maxQuantityPerLine`: most units one line may order.
 * - `specialPortions`: whether a line may say how many of its portions are special (vegetarian, gluten-free …).
 * - `deliveryHours`: when it can be delivered, in the resource's local time (any time of the booking when empty).
 * - `retired`: no longer sold; still listed for resources that offered it, so a request names the reason.
 *
 * @since 0.1.0
 */
export interface AddOnProduct {
  readonly id: string
  readonly organizationId: string
  readonly operationalContextId: string
  readonly name: string
  readonly description?: string
  readonly category: AddOnCategory
  readonly currency: Currency
  readonly unitPriceMinorUnits: number
  readonly vatRateBasisPoints: number
  readonly leadTimeMinutes: number
  readonly cutOff?: AddOnCutOff
  readonly maxQuantityPerLine: number
  readonly specialPortions: boolean
  readonly deliveryHours: ReadonlyArray<WeeklyOpening>
  readonly retired: boolean
}

/**
 * How many of a line's portions are special, and which kind (`label`, 1 to 100 characters, such as
 * `vegetarian`); `quantity` ≥ 1.
 *
 * @since 0.1.0
 */
export interface SpecialPortion {
  readonly label: string
  readonly quantity: number
}

/**
 * One add-on line of a booking command: `quantity` (≥ 1) units of a product delivered at `deliverAt`, with
 * optional special portions.
 *
 * @since 0.1.0
 */
export interface AddOnLineCommand {
  readonly addOnProductId: string
  readonly quantity: number
  readonly deliverAt: Date
  readonly specialPortions: ReadonlyArray<SpecialPortion>
}

/**
 * Most add-on lines one booking may carry.
 *
 * @since 0.1.0
 */
export const MAX_ADD_ON_LINES = 20

/**
 * Largest `maxQuantityPerLine` a product may have.
 *
 * @since 0.1.0
 */
export const MAX_QUANTITY_PER_LINE = 10_000
