/**
 * Role requirements (decisions 2: roles travel in the token; an operation without its role is 403). One middleware
 * per role, checked right after authentication and before the input is read, so a token without the role learns
 * nothing about the input's validity. A group declares the one its operations need, e.g.
 * `.middleware(BillingRole).middleware(Authentication)`.
 */
import { HttpApiMiddleware } from "@effect/platform"
import { Forbidden } from "./Problem.js"

/** The billing group needs the `billing` role. */
export class BillingRole extends HttpApiMiddleware.Tag<BillingRole>()("@propline/contract/BillingRole", {
  failure: Forbidden
}) {}

/** The signing (`/v1/crm`) group needs the `signing` role. */
export class SigningRole extends HttpApiMiddleware.Tag<SigningRole>()("@propline/contract/SigningRole", {
  failure: Forbidden
}) {}

/** The booking group needs the `booking` role. */
export class BookingRole extends HttpApiMiddleware.Tag<BookingRole>()("@propline/contract/BookingRole", {
  failure: Forbidden
}) {}

/** The integrations group needs the `integrations` role, which only installation tokens carry (decisions 2). */
export class IntegrationsRole extends HttpApiMiddleware.Tag<IntegrationsRole>()("@propline/contract/IntegrationsRole", {
  failure: Forbidden
}) {}
