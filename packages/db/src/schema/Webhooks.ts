/** `webhook_endpoints`: an organization's endpoint or a connector app's one webhook (issue 22). */
export interface WebhookEndpointTable {
  readonly id: string
  readonly organizationId: string
  readonly appId: string | null
  url: string
  description: string
  eventTypes: ReadonlyArray<string>
  contextIds: ReadonlyArray<string>
  status: "enabled" | "disabled"
  disabledReason: "operator" | "failing" | null
  disabledAt: Date | null
  failingSince: Date | null
  secretEnvelope: string
  secretLastFour: string
  previousSecretEnvelope: string | null
  previousSecretExpiresAt: Date | null
  readonly createdAt: Date
  updatedAt: Date
}

/** `webhook_deliveries`: one event to one endpoint, with its JSON body as delivered. */
export interface WebhookDeliveryTable {
  readonly id: string
  readonly endpointId: string
  readonly organizationId: string
  readonly eventId: string
  readonly eventType: string
  readonly payload: string
  status: "pending" | "delivered" | "failed"
  attemptCount: number
  lastAttemptAt: Date | null
  lastStatusCode: number | null
  nextAttemptAt: Date | null
  deliveredAt: Date | null
  readonly manual: boolean
  readonly createdAt: Date
}

/** `webhook_attempts`: one HTTP attempt of a delivery. */
export interface WebhookAttemptTable {
  readonly deliveryId: string
  readonly number: number
  readonly startedAt: Date
  readonly latencyMs: number
  readonly statusCode: number | null
  readonly error: string | null
  readonly responseBody: string
}
