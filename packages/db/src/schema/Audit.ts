/** `audit_log`: every change, with who, what, when and the request id (decisions 4). */
export interface AuditLogTable {
  readonly id: string
  readonly organizationId: string | null
  /** `client`: a caller not (yet) authenticated, by its client address: a failed or throttled operator sign-in. */
  readonly actorType: "application" | "installation" | "operator" | "system" | "client"
  readonly actorId: string
  readonly action: string
  readonly targetType: string
  readonly targetId: string
  readonly requestId: string | null
  readonly details: Record<string, unknown>
  readonly occurredAt: Date
}

/** `events`: the outbox of domain events, written in the transaction of the change (decisions 9). */
export interface EventTable {
  readonly id: string
  readonly organizationId: string
  readonly type: string
  readonly payload: Record<string, unknown>
  readonly occurredAt: Date
  /** When the worker published it (its envelope rendered); null while it waits in the outbox. */
  publishedAt: Date | null
  /** The operational context of the event's resource; null for one of no context (an installation's). */
  operationalContextId: string | null
  /** The installation an `integrations.*` event belongs to; null otherwise. */
  installationId: string | null
  /** The JSON body the events feed serves and webhooks deliver; set when published. */
  envelope: Record<string, unknown> | null
}
