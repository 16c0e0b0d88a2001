/**
 * Which events a reader may see (issue 22; decisions 2 and 9): the same scope the API applies to the reader's
 * requests, so the events feed and webhooks never show what the reader could not read through the API.
 *
 * An event is readable when all of these hold:
 * 1. it belongs to the reader's organization (never across organizations);
 * 2. the reader holds the role of the event's area: `billing.*` needs `billing`, `crm.*` (signing) needs `signing`,
 *    `booking.*` needs `booking`, `integrations.*` needs `integrations`; an event of any other area is readable by
 *    no one (fail closed);
 * 3. its operational context, when it has one, is one the reader sees (a granted context or one below it);
 * 4. an `integrations.*` event belongs to one installation, and only that installation reads it (an Application
 *    never holds `integrations`; an event without an installation is read by none).
 *
 * @since 0.3.0
 */
import type { Role } from "./AccessTokenClaims.js"
import type { ContextNode } from "./Grant.js"

/**
 * Who reads: an organization, the roles of its token or grant, `visibleContextIds`, the contexts it sees (each
 * granted context and every context below it: {@link visibleContexts}), and, for a connector app's installation,
 * its id.
 *
 * @since 0.3.0
 */
export interface EventReader {
  readonly organizationId: string
  readonly roles: ReadonlyArray<Role>
  readonly visibleContextIds: ReadonlySet<string>
  readonly installationId?: string | undefined
}

/**
 * What the rule reads of an event: its dotted type, organization, operational context (`null` for an event of no
 * context, such as an installation's) and, for an integrations event, its installation.
 *
 * @since 0.3.0
 */
export interface VisibleEvent {
  readonly type: string
  readonly organizationId: string
  readonly operationalContextId: string | null
  readonly installationId?: string | null | undefined
}

/**
 * The role each event area needs, by the type's first dotted segment.
 *
 * @since 0.3.0
 */
export const AREA_ROLES: { readonly [area: string]: Role } = {
  billing: "billing",
  crm: "signing",
  booking: "booking",
  integrations: "integrations"
}

/**
 * The role an event type needs (`billing.invoice.approved` → `billing`), or `undefined` for a type of no known
 * area (readable by no one).
 *
 * @since 0.3.0
 */
export const roleOf = (type: string): Role | undefined => {
  const area = type.slice(0, type.indexOf("."))
  return Object.hasOwn(AREA_ROLES, area) ? AREA_ROLES[area] : undefined
}

/**
 * True when `reader` may read `event` (the four conditions above).
 *
 * @since 0.3.0
 */
export const canRead = (reader: EventReader, event: VisibleEvent): boolean => {
  if (event.organizationId !== reader.organizationId) return false
  const role = roleOf(event.type)
  if (role === undefined || !reader.roles.includes(role)) return false
  if (event.operationalContextId !== null && !reader.visibleContextIds.has(event.operationalContextId)) return false
  if (role === "integrations") {
    return reader.installationId !== undefined && event.installationId != null && event.installationId === reader.installationId
  }
  return true
}

/**
 * The contexts a grant sees: each granted context that is in `tree` (the organization's contexts) and every
 * context below it. A granted id outside the tree sees nothing, as the API's scoping does.
 *
 * @since 0.3.0
 */
export const visibleContexts = (granted: ReadonlyArray<string>, tree: ReadonlyArray<ContextNode>): ReadonlySet<string> => {
  const children = new Map<string, Array<string>>()
  const known = new Set<string>()
  for (const node of tree) {
    known.add(node.id)
    if (node.parentId !== null) children.set(node.parentId, [...(children.get(node.parentId) ?? []), node.id])
  }
  const seen = new Set<string>()
  const pending = granted.filter((id) => known.has(id))
  while (pending.length > 0) {
    const id = pending.pop()!
    if (seen.has(id)) continue
    seen.add(id)
    pending.push(...(children.get(id) ?? []))
  }
  return seen
}
