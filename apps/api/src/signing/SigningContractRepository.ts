/**
 * SQL of what preparing a contract for signing reads: the contract, locked (so two preparations of one contract
 * run one after the other), with its customer, organization, operational context and monthly lines — the
 * preparation rules' state and the PDF's content.
 */
import { Effect } from "effect"
import * as Sql from "../platform/Sql.js"

export class SigningContractRepository extends Effect.Service<SigningContractRepository>()(
  "@propline/api/signing/SigningContractRepository",
  {
    succeed: {
      /** The contract of the organization with what the document shows, locked; undefined when there is none. */
      lockForPreparation: (organizationId: string, contractId: string) =>
        Sql.query(async (db) => {
          const contract = await db
            .selectFrom("contracts")
            .innerJoin("customers", "customers.id", "contracts.customerId")
            .innerJoin("organizations", "organizations.id", "contracts.organizationId")
            .innerJoin("operationalContexts", "operationalContexts.id", "contracts.operationalContextId")
            .select([
              "contracts.id",
              "contracts.organizationId",
              "contracts.operationalContextId",
              "contracts.contractNumber",
              "contracts.status",
              "contracts.signingStatus",
              "contracts.startsOn",
              "contracts.endsOn",
              "contracts.currency",
              "contracts.paymentTermsDays",
              "customers.name as customerName",
              "customers.customerNumber",
              "customers.kind as customerKind",
              "customers.organisationNumber",
              "organizations.name as organizationName",
              "operationalContexts.name as operationalContextName"
            ])
            .where("contracts.id", "=", contractId)
            .where("contracts.organizationId", "=", organizationId)
            .forUpdate("contracts")
            .executeTakeFirst()
          if (contract === undefined) return undefined
          const lines = await db
            .selectFrom("contractLines")
            .select(["description", "monthlyNetMinorUnits", "vatRateBasisPoints"])
            .where("contractId", "=", contractId)
            .orderBy("createdAt")
            .orderBy("id")
            .execute()
          return { ...contract, lines }
        })
    }
  }
) {}
