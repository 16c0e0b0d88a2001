/** SQL of the console's organization page: the organization, its context tree and how many records it holds. */
import * as Db from "@propline/db/Db"
import { Effect } from "effect"

/** The organization's name and country, or undefined. */
export const organization = (organizationId: string) =>
  Db.query((db) =>
    db.selectFrom("organizations").select(["id", "name", "country"]).where("id", "=", organizationId).executeTakeFirst()
  ).pipe(Effect.orDie)

/** Every operational context of the organization, by creation then id. */
export const contexts = (organizationId: string) =>
  Db.query((db) =>
    db
      .selectFrom("operationalContexts")
      .select(["id", "parentId", "kind", "name", "createdAt"])
      .where("organizationId", "=", organizationId)
      .orderBy("createdAt")
      .orderBy("id")
      .execute()
  ).pipe(Effect.orDie)

/** Counts of customers, contracts, Applications and operators, in one round trip. */
export const counts = (organizationId: string) =>
  Db.query((db) =>
    db
      .selectNoFrom((eb) => [
        eb.selectFrom("customers").select(eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).as("customers"),
        eb.selectFrom("contracts").select(eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).as("contracts"),
        eb.selectFrom("applications").select(eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).as("applications"),
        eb.selectFrom("operators").select(eb.fn.countAll<number>().as("n")).where("organizationId", "=", organizationId).as("operators")
      ])
      .executeTakeFirstOrThrow()
  ).pipe(
    Effect.orDie,
    Effect.map((row) => ({
      customers: Number(row.customers),
      contracts: Number(row.contracts),
      applications: Number(row.applications),
      operators: Number(row.operators)
    }))
  )

/** Which of `ids` are contexts of the organization. */
export const ownContextIds = (organizationId: string, ids: ReadonlyArray<string>) =>
  ids.length === 0
    ? Effect.succeed(new Set<string>())
    : Db.query((db) =>
        db
          .selectFrom("operationalContexts")
          .select("id")
          .where("organizationId", "=", organizationId)
          .where("id", "in", ids)
          .execute()
      ).pipe(
        Effect.orDie,
        Effect.map((rows) => new Set(rows.map((row) => row.id)))
      )
