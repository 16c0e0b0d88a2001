/**
 * An operational context (spec 1: "the parts of the organization a token can act in"; its shape is "not shown",
 * so this follows decisions.md section 2: a tree of organization root, region, property, building).
 */
import { Schema } from "effect"
import { OperationalContextId, OrganizationId } from "./Ids.js"
import { Timestamp } from "./Values.js"

export class OperationalContext extends Schema.Class<OperationalContext>("OperationalContext")(
  {
    id: OperationalContextId,
    organizationId: OrganizationId,
    parentId: Schema.NullOr(OperationalContextId).annotations({
      description: "The parent context; null on the organization's root."
    }),
    kind: Schema.Literal("organization", "region", "property", "building"),
    name: Schema.String,
    createdAt: Timestamp,
    updatedAt: Timestamp
  },
  { description: "A part of the organization: a node of its context tree. A granted context includes its subtree." }
) {}
