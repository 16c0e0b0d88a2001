/** The event types an endpoint can subscribe to: every type of the catalog (`@propline/contract/Events`, issue 22, item 1). */
import { EVENT_TYPES } from "@propline/contract/Events"

export const SUBSCRIBABLE_EVENT_TYPES: ReadonlyArray<string> = EVENT_TYPES
