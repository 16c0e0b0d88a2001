/**
 * Which endpoints receive an event (issue 22, item 2): an endpoint receives an event of a type it subscribes to
 * (none listed: every type) that its principal could read through the API — the visibility rule of
 * `@propline/identity/EventVisibility`, never across organizations.
 *
 * - An organization's endpoint reads as its organization with the roles `billing`, `signing` and `booking` (an
 *   `integrations.*` event belongs to one installation, so it reaches only that installation's app) and the
 *   endpoint's contexts, each with its subtree (none listed: every context of the organization).
 * - A connector app's webhook reads as each active installation of the app: its roles (with `integrations`), its
 *   granted contexts with their subtrees, and its id.
 */
import { canRead, type EventReader, type VisibleEvent } from "@propline/identity/EventVisibility"

/** An endpoint as the rule reads it: the types it subscribes to and who it reads as. */
export interface Subscriber {
  readonly eventTypes: ReadonlyArray<string>
  readonly reader: EventReader
}

/** The roles an organization's own endpoint reads with. */
export const ORGANIZATION_ROLES = ["billing", "signing", "booking"] as const

/** Whether `subscriber` receives `event`. */
export const receives = (subscriber: Subscriber, event: VisibleEvent): boolean =>
  (subscriber.eventTypes.length === 0 || subscriber.eventTypes.includes(event.type)) && canRead(subscriber.reader, event)
