/**
 * The booking statements the API runs for a resource's free time and a priced preview, shared by the benchmark's
 * plain baseline (`BaselineServer.ts`) and its Fastify peer (`bench-peer/PeerServer.ts`). Change them together with
 * the API's (`ResourceRepository`, `BookingRequestRepository`).
 */

/**
 * The resource the Application may sell (the visible-contexts CTE and its grant) with its price rules as a JSON
 * array. Parameters: organization id, granted context ids (uuid[]), application id, resource id.
 */
export const SELLABLE_RESOURCE_SQL = `with recursive visible(id) as (
       select id from operational_contexts where organization_id = $1 and id = any($2::uuid[])
       union select c.id from operational_contexts c join visible v on c.parent_id = v.id)
     select r.*, coalesce((select json_agg(p order by p.position) from booking_price_rules p where p.resource_id = r.id), '[]') as rules
     from booking_resources r join booking_application_resources g on g.resource_id = r.id
     where r.organization_id = $1 and r.status = 'active' and g.application_id = $3 and r.id = $4
       and r.operational_context_id in (select id from visible)`

/** The live bookings (approved, or pending and held) overlapping a window. Parameters: resource id, from, to. */
export const LIVE_BOOKINGS_SQL = `select starts_at, ends_at from booking_requests where resource_id = $1 and starts_at < $3 and ends_at > $2
         and (status = 'approved' or (status = 'pending' and hold_expires_at > now())) order by starts_at`

/** The add-ons a resource offers. Parameter: resource id. */
export const OFFERED_ADD_ONS_SQL = `select p.* from booking_add_on_products p join booking_resource_add_on_products o on o.add_on_product_id = p.id
       where o.resource_id = $1 order by p.created_at, p.id`
