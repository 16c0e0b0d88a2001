/**
 * The operator's side of booking (decisions 1 and 7; the admin console calls these): setting up resources and
 * add-on products, which products a resource offers, which resources an Application may sell, and approving or
 * declining pending booking requests. Each is one transaction with its audit entry (an operator actor) and, for
 * decisions, its events.
 */
import type { AddOnProduct } from "@propline/booking/AddOnProduct"
import type { LateCancellationDecision } from "@propline/booking/BookingCheck"
import type { BookingCheckRefusal } from "@propline/booking/BookingRefusal"
import { approve, type BookingRequestRecord, type BookingRequestTransition, cancel, decline } from "@propline/booking/BookingRequest"
import type { BookableResource } from "@propline/booking/Resource"
import { addOnProductSetupIssues, checkResourceSetup, resourceSetupIssues, type SetupIssue } from "@propline/booking/ResourceSetup"
import { Refusal } from "@propline/refusal/Refusal"
import type * as Db from "@propline/db/Db"
import { Effect } from "effect"
import { ApplicationRepository } from "../identity/ApplicationRepository.js"
import * as Audit from "../platform/Audit.js"
import * as Outbox from "../platform/Outbox.js"
import { RecordNotFound } from "../platform/RecordNotFound.js"
import * as Sql from "../platform/Sql.js"
import { BookingRequestRepository } from "./BookingRequestRepository.js"
import { ResourceRepository } from "./ResourceRepository.js"

/** `VALIDATION_FAILED`, 400: setup values that are not valid; `issues` has one issue per field (JSON Pointer, spec 7.1). */
export class SetupInvalid extends Refusal("SetupInvalid", "VALIDATION_FAILED", 400)<{ readonly issues: ReadonlyArray<SetupIssue> }> {}

const setupInvalid = (issues: ReadonlyArray<SetupIssue>) => new SetupInvalid({ issues, detail: "The request is not valid; see issues." })

const span = (name: string) => Effect.withSpan(`BookingOperatorService.${name}`, { captureStackTrace: false })

export class BookingOperatorService extends Effect.Service<BookingOperatorService>()(
  "@propline/api/booking/BookingOperatorService",
  {
    effect: Effect.gen(function* () {
      const resources = yield* ResourceRepository
      const applications = yield* ApplicationRepository
      const requests = yield* BookingRequestRepository

      const decide = (
        actor: Audit.Actor,
        organizationId: string,
        bookingId: string,
        action: "approve" | "decline" | "cancel",
        run: (
          record: BookingRequestRecord,
          now: Date
        ) => Effect.Effect<BookingRequestTransition, BookingCheckRefusal | Effect.Effect.Error<ReturnType<typeof approve>>, Db.Db>
      ) =>
        Sql.transaction(
          Effect.gen(function* () {
            const record = yield* requests.lock(organizationId, bookingId)
            if (record === undefined) return yield* new RecordNotFound({ kind: "booking request" })
            const now = yield* Sql.now
            const transition = yield* run(record, now)
            yield* requests.updateStatus(transition.record)
            yield* Outbox.append(transition.events)
            yield* Audit.byActor(organizationId, actor, {
              action: `booking.booking_request.${action}`,
              targetType: "booking_request",
              targetId: bookingId,
              at: now
            })
            return transition.record
          })
        )

      return {
        /** A resource of the organization as set up (its record with price rules); undefined when not the organization's. */
        resourceSetup: (organizationId: string, resourceId: string) =>
          resources.find(organizationId, resourceId).pipe(
            Effect.map((found) => found?.resource),
            span("resourceSetup")
          ),

        /** An add-on product of the organization as set up; undefined when not the organization's. */
        addOnProductSetup: (organizationId: string, productId: string) =>
          Effect.map(resources.addOnProducts(organizationId, [productId]), (found) => found.at(0)).pipe(span("addOnProductSetup")),

        /**
         * Creates or replaces a resource and its price rules. `SetupInvalid` for invalid values; refusals
         * BOOKING_RESOURCE_BUFFER_NOT_ON_INCREMENT, BOOKING_PRICE_RULE_AMBIGUOUS, BOOKING_RESOURCE_CURRENCY_MISMATCH
         * (against the products it already offers).
         */
        setUpResource: (actor: Audit.Actor, resource: BookableResource) =>
          Sql.transaction(
            Effect.gen(function* () {
              const issues = resourceSetupIssues(resource)
              if (issues.length > 0) return yield* setupInvalid(issues)
              const existing = yield* resources.find(resource.organizationId, resource.id, true)
              const offered = existing === undefined ? [] : (yield* resources.offeredAddOns(resource.id)).map((row) => row.record)
              yield* checkResourceSetup(resource, offered)
              const now = yield* Sql.now
              yield* resources.save(resource, now)
              yield* Audit.byActor(resource.organizationId, actor, {
                action: existing === undefined ? "booking.resource.create" : "booking.resource.update",
                targetType: "bookable_resource",
                targetId: resource.id,
                at: now
              })
              return resource
            })
          ).pipe(span("setUpResource")),

        /** Creates or replaces an add-on product. `SetupInvalid` for invalid values. */
        setUpAddOnProduct: (actor: Audit.Actor, product: AddOnProduct) =>
          Sql.transaction(
            Effect.gen(function* () {
              const issues = addOnProductSetupIssues(product)
              if (issues.length > 0) return yield* setupInvalid(issues)
              const now = yield* Sql.now
              yield* resources.saveAddOnProduct(product, now)
              yield* Audit.byActor(product.organizationId, actor, {
                action: "booking.add_on_product.save",
                targetType: "add_on_product",
                targetId: product.id,
                at: now
              })
              return product
            })
          ).pipe(span("setUpAddOnProduct")),

        /**
         * Sets which add-on products a resource offers, in order. 404 for a resource or product not of the
         * organization; BOOKING_RESOURCE_CURRENCY_MISMATCH for a product in another currency.
         */
        offerAddOnProducts: (actor: Audit.Actor, organizationId: string, resourceId: string, productIds: ReadonlyArray<string>) =>
          Sql.transaction(
            Effect.gen(function* () {
              const row = yield* resources.find(organizationId, resourceId, true)
              if (row === undefined) return yield* new RecordNotFound({ kind: "bookable resource" })
              const products = yield* resources.addOnProducts(organizationId, productIds)
              if (products.length !== new Set(productIds).size) return yield* new RecordNotFound({ kind: "add-on product" })
              yield* checkResourceSetup(row.resource, products)
              const now = yield* Sql.now
              yield* resources.offer(resourceId, [...new Set(productIds)])
              yield* Audit.byActor(organizationId, actor, {
                action: "booking.resource.offer_add_ons",
                targetType: "bookable_resource",
                targetId: resourceId,
                details: { addOnProductIds: productIds },
                at: now
              })
            })
          ).pipe(span("offerAddOnProducts")),

        /** Lets an Application sell resources of its organization. 404 for an Application or resource not of it. */
        allowApplication: (actor: Audit.Actor, organizationId: string, applicationId: string, resourceIds: ReadonlyArray<string>) =>
          Sql.transaction(
            Effect.gen(function* () {
              if (!(yield* applications.existsInOrganization(organizationId, applicationId))) {
                return yield* new RecordNotFound({ kind: "application" })
              }
              for (const resourceId of resourceIds) {
                if ((yield* resources.find(organizationId, resourceId)) === undefined) {
                  return yield* new RecordNotFound({ kind: "bookable resource" })
                }
              }
              const now = yield* Sql.now
              yield* resources.allow(applicationId, resourceIds, now)
              yield* Audit.byActor(organizationId, actor, {
                action: "booking.application.allow_resources",
                targetType: "application",
                targetId: applicationId,
                details: { resourceIds },
                at: now
              })
            })
          ).pipe(span("allowApplication")),

        /**
         * Approves a pending request within its hold. 404 when missing; BOOKING_NOT_PENDING_APPROVAL (not pending),
         * BOOKING_APPROVAL_WINDOW_PASSED (its hold expired). Concurrent decisions run one after another (row lock).
         */
        approve: (actor: Audit.Actor, organizationId: string, bookingId: string) =>
          decide(actor, organizationId, bookingId, "approve", approve).pipe(span("approve")),

        /** Declines a pending request with a reason (1 to 1000 characters); refusals as {@link approve}. */
        decline: (actor: Audit.Actor, organizationId: string, bookingId: string, reason: string) =>
          decide(actor, organizationId, bookingId, "decline", (record, now) => decline(record, { reason }, now)).pipe(
            span("decline")
          ),

        /**
         * Cancels a live request for the organization (issue 26): the check's cancellation refusals as a website
         * gets them, except that an operator may `waive` a late cancellation's charge (even where the resource takes
         * no late cancellations). The request's lock orders it with a website's cancel and with approvals.
         */
        cancel: (
          actor: Audit.Actor,
          organizationId: string,
          bookingId: string,
          command: { readonly reason?: string; readonly lateCancellation?: LateCancellationDecision }
        ) =>
          decide(actor, organizationId, bookingId, "cancel", (record, now) =>
            Effect.flatMap(resources.find(organizationId, record.resourceId), (found) =>
              found === undefined
                ? Effect.dieMessage("a booking request's resource is not there")
                : cancel({ resource: found.resource }, record, { ...command, by: "operator" }, now)
            )
          ).pipe(
            span("cancel")
          )
      }
    }),
    dependencies: [ResourceRepository.Default, BookingRequestRepository.Default, ApplicationRepository.Default]
  }
) {}
