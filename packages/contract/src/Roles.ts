/**
 * Role requirements (decisions 2: roles travel in the token; an operation without its role is 403). One middleware
 * per role, checked right after authentication and before the input is read, so a token without the role learns
 * nothing about the input's validity.
 */
import { HttpApiMiddleware } from "@effect/platform"
import { Forbidden } from "./Problem.js"

/** The billing group needs the `billing` role. */
export class BillingRole extends HttpApiMiddleware.Tag<BillingRole>()("@propline/contract/BillingRole", {
  failure: Forbidden
}) {}
