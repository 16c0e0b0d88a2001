/**
 * Booking in the console: resources, add-on products and booking requests of the operator's organization, the
 * operator's decisions on requests, and the setup of resources (opening hours, rules, price rules, offered
 * add-ons, selling Applications) and add-on products — one call of the booking operator service each (lock, rule,
 * persist, events, audit in one transaction), with the operator as actor. The console checks only that ids are the
 * operator's organization's (404 otherwise; a foreign operational context is a field's issue); the service
 * validates the setup (its issues answered as VALIDATION_FAILED) and decides the refusals.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { AdminApi } from "@propline/contract/AdminApi"
import {
  AddOnProductSetup,
  AddOnProductView,
  BookingRequestView,
  PriceRuleView,
  ResourceDetail,
  ResourceSetup,
  ResourceSummary,
  SellerView,
  WeeklyOpening
} from "@propline/contract/BookingAdmin"
import { CurrentOperator, type OperatorShape } from "@propline/contract/AdminSession"
import type { AddOnProduct } from "@propline/booking/AddOnProduct"
import type { BookableResource, PriceRule } from "@propline/booking/Resource"
import { problem } from "@propline/contract/Problem"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { BookingOperatorService } from "./BookingOperatorService.js"
import * as CursorPage from "../platform/CursorPage.js"
import { toProblem } from "../platform/Problems.js"
import { given, limitOf } from "../platform/ConsoleListing.js"
import { BookingReadRepository } from "./BookingReadRepository.js"
import { OrganizationReadRepository } from "../contexts/OrganizationReadRepository.js"
import { ApplicationReadRepository } from "../identity/ApplicationReadRepository.js"
import { ownContexts } from "../contexts/OwnContexts.js"

const actorOf = (operator: OperatorShape) => ({ type: "operator", id: operator.operatorId }) as const

type ResourceRow = Effect.Effect.Success<ReturnType<BookingReadRepository["resource"]>>["resource"]
type RequestRow = Effect.Effect.Success<ReturnType<BookingReadRepository["request"]>>

type SummaryFields = "id" | "name" | "kind" | "operationalContextId" | "operationalContextName" | "timeZone" | "capacity" | "currency" | "status" | "pendingRequests" | "createdAt"

const toResource = (row: Pick<ResourceRow, SummaryFields>) =>
  new ResourceSummary({
    id: row.id,
    name: row.name,
    kind: row.kind,
    operationalContextId: row.operationalContextId,
    operationalContextName: row.operationalContextName,
    timeZone: row.timeZone,
    capacity: row.capacity,
    currency: row.currency,
    status: row.status,
    pendingRequests: Number(row.pendingRequests),
    createdAt: row.createdAt
  })

const toRequest = (row: RequestRow) => new BookingRequestView(row)

/** A resource's setup as the console edits it: the record but its id and organization, price rules without ids. */
const toResourceSetup = ({ id: _id, organizationId: _organizationId, priceRules, ...setup }: BookableResource) =>
  new ResourceSetup({ ...setup, priceRules: priceRules.map(({ id: _ruleId, ...rule }) => rule) })

/**
 * A setup as the domain's record, its price rules with new ids (a setup replaces them all). Weekdays pass as the
 * numbers sent: the service answers one outside 1–7 as its issue.
 */
const toBookableResource = (id: string, organizationId: string, setup: ResourceSetup): BookableResource => ({
  ...setup,
  id,
  organizationId,
  openingHours: setup.openingHours as BookableResource["openingHours"],
  priceRules: setup.priceRules.map((rule) => ({ ...rule, id: randomUUID() }) as PriceRule)
})

/** The same for an add-on product. */
const toProductSetup = ({ id: _id, organizationId: _organizationId, ...setup }: AddOnProduct) => new AddOnProductSetup(setup)

/** `YYYY-MM-DD` as UTC midnight; the calendar asks for whole days. */
const day = (text: string | undefined) => {
  const value = given(text)
  return value === undefined ? undefined : new Date(`${value}T00:00:00.000Z`)
}

export const BookingAdminHandlers = HttpApiBuilder.group(AdminApi, "booking", (handlers) =>
  Effect.gen(function* () {
    const views = yield* BookingReadRepository
    const operations = yield* BookingOperatorService
    const organizations = yield* OrganizationReadRepository
    const applications = yield* ApplicationReadRepository

    /** A resource's page as the console shows it; a 404 problem when it is not the organization's. */
    const detail = (organizationId: string, resourceId: string) =>
      Effect.gen(function* () {
        const found = yield* views.resource(organizationId, resourceId).pipe(Effect.mapError(toProblem))
        const { resource } = found
        const sellers = yield* applications.named(found.sellerIds)
        return new ResourceDetail({
          resource: toResource(resource),
          description: resource.description,
          weekly: resource.openingHours.weekly.map((opening) => new WeeklyOpening(opening)),
          closures: resource.openingHours.closures,
          rules: {
            minDurationMinutes: resource.minDurationMinutes,
            maxDurationMinutes: resource.maxDurationMinutes,
            durationIncrementMinutes: resource.durationIncrementMinutes,
            startIncrementMinutes: resource.startIncrementMinutes,
            minimumNoticeMinutes: resource.minimumNoticeMinutes,
            horizonDays: resource.horizonDays,
            bufferBeforeMinutes: resource.bufferBeforeMinutes,
            bufferAfterMinutes: resource.bufferAfterMinutes,
            holdMinutes: resource.holdMinutes
          },
          priceRules: found.priceRules.map((rule) => new PriceRuleView(rule)),
          addOnProducts: found.addOnProducts.map((product) => new AddOnProductView(product)),
          sellers: sellers.map((seller) => new SellerView(seller))
        })
      })

    /** VALIDATION_FAILED at `/operationalContextId` unless the context is the operator's organization's. */
    const ownContext = (organizationId: string, contextId: string) =>
      ownContexts(organizations, organizationId, [contextId], () => "/operationalContextId")

    /** Creates (a new id) or replaces (an existing resource of the organization, else 404) a resource's setup. */
    const saveResource = (resourceId: string, setup: ResourceSetup, existing: boolean) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        if (existing) yield* detail(operator.organizationId, resourceId)
        yield* ownContext(operator.organizationId, setup.operationalContextId)
        yield* operations
          .setUpResource(actorOf(operator), toBookableResource(resourceId, operator.organizationId, setup))
          .pipe(Effect.mapError(toProblem))
        return yield* detail(operator.organizationId, resourceId)
      })

    /** Creates (a new id) or replaces (an existing product of the organization, else 404) an add-on product. */
    const saveProduct = (productId: string, setup: AddOnProductSetup, existing: boolean) =>
      Effect.gen(function* () {
        const operator = yield* CurrentOperator
        if (existing) yield* views.addOnProduct(operator.organizationId, productId).pipe(Effect.mapError(toProblem))
        yield* ownContext(operator.organizationId, setup.operationalContextId)
        yield* operations
          .setUpAddOnProduct(actorOf(operator), {
            ...setup,
            id: productId,
            organizationId: operator.organizationId,
            deliveryHours: setup.deliveryHours as AddOnProduct["deliveryHours"]
          })
          .pipe(Effect.mapError(toProblem))
        return new AddOnProductView(yield* views.addOnProduct(operator.organizationId, productId).pipe(Effect.orDie))
      })

    return handlers
      .handle("listResources", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-resources", urlParams.cursor)
          const filter = { q: given(urlParams.q), kind: given(urlParams.kind), status: given(urlParams.status) }
          const page = yield* views.resources(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toResource), nextCursor: page.nextCursor }
        })
      )
      .handle("getResource", ({ path }) => Effect.flatMap(CurrentOperator, (operator) => detail(operator.organizationId, path.resourceId)))
      .handle("resourceSetup", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const found = yield* operations.resourceSetup(organizationId, path.resourceId)
          if (found === undefined) return yield* Effect.fail(problem.notFound("No such resource, or it belongs to another organization."))
          return toResourceSetup(found)
        })
      )
      .handle("createResource", ({ payload }) => saveResource(randomUUID(), payload, false))
      .handle("replaceResource", ({ path, payload }) => saveResource(path.resourceId, payload, true))
      .handle("offerAddOnProducts", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operations
            .offerAddOnProducts(actorOf(operator), operator.organizationId, path.resourceId, payload.addOnProductIds)
            .pipe(Effect.mapError(toProblem))
          return yield* detail(operator.organizationId, path.resourceId)
        })
      )
      .handle("allowSeller", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* detail(operator.organizationId, path.resourceId)
          yield* operations
            .allowApplication(actorOf(operator), operator.organizationId, payload.applicationId, [path.resourceId])
            .pipe(Effect.mapError(toProblem))
          return yield* detail(operator.organizationId, path.resourceId)
        })
      )
      .handle("addOnProductSetup", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const found = yield* operations.addOnProductSetup(organizationId, path.productId)
          if (found === undefined) return yield* Effect.fail(problem.notFound("No such add-on product, or it belongs to another organization."))
          return toProductSetup(found)
        })
      )
      .handle("createAddOnProduct", ({ payload }) => saveProduct(randomUUID(), payload, false))
      .handle("replaceAddOnProduct", ({ path, payload }) => saveProduct(path.productId, payload, true))
      .handle("listAddOnProducts", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-add-ons", urlParams.cursor)
          const page = yield* views.addOnProducts(organizationId, { q: given(urlParams.q) }, after, limitOf(urlParams.limit))
          return { items: page.items.map((row) => new AddOnProductView(row)), nextCursor: page.nextCursor }
        })
      )
      .handle("listRequests", ({ urlParams }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          const after = yield* CursorPage.decode("admin-booking-requests", urlParams.cursor)
          const to = day(urlParams.to)
          const filter = {
            status: given(urlParams.status),
            resourceId: urlParams.resourceId,
            from: day(urlParams.from),
            // `to` names the last day shown: requests starting before the next midnight.
            to: to === undefined ? undefined : new Date(to.getTime() + 24 * 60 * 60 * 1000)
          }
          const page = yield* views.requests(organizationId, filter, after, limitOf(urlParams.limit))
          return { items: page.items.map(toRequest), nextCursor: page.nextCursor }
        })
      )
      .handle("getRequest", ({ path }) =>
        Effect.gen(function* () {
          const { organizationId } = yield* CurrentOperator
          return toRequest(yield* views.request(organizationId, path.bookingId).pipe(Effect.mapError(toProblem)))
        })
      )
      .handle("approveRequest", ({ path }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operations.approve(actorOf(operator), operator.organizationId, path.bookingId).pipe(Effect.mapError(toProblem))
          return toRequest(yield* views.request(operator.organizationId, path.bookingId).pipe(Effect.orDie))
        })
      )
      .handle("declineRequest", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operations
            .decline(actorOf(operator), operator.organizationId, path.bookingId, payload.reason)
            .pipe(Effect.mapError(toProblem))
          return toRequest(yield* views.request(operator.organizationId, path.bookingId).pipe(Effect.orDie))
        })
      )
      .handle("cancelRequest", ({ path, payload }) =>
        Effect.gen(function* () {
          const operator = yield* CurrentOperator
          yield* operations
            .cancel(actorOf(operator), operator.organizationId, path.bookingId, {
              ...(payload.reason === undefined ? {} : { reason: payload.reason }),
              ...(payload.lateCancellation === undefined ? {} : { lateCancellation: { decision: payload.lateCancellation } })
            })
            .pipe(Effect.mapError(toProblem))
          return toRequest(yield* views.request(operator.organizationId, path.bookingId).pipe(Effect.orDie))
        })
      )
  })
)
