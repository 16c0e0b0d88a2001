/**
 * The port `InstallationService.remove` calls, in the removal's transaction, for what other capabilities keep of an
 * installation (decisions 8: its integration configurations are disconnected). identity declares it and
 * integrations provides it (`integrations/InstallationRemovalLive.ts`), so identity never imports integrations:
 * a folder-level cycle is refused (CONTRIBUTING.md, "Between the folders of `apps/api/src/`").
 */
import type * as Db from "@propline/db/Db"
import { Context, type Effect } from "effect"
import type * as Audit from "../platform/Audit.js"

export interface InstallationRemovalShape {
  /**
   * Called once the installation `installationId` is removed (`at`, by `actor`), inside the removal's
   * transaction: its statements commit or roll back with the removal.
   */
  readonly removed: (installationId: string, actor: Audit.Actor, at: Date) => Effect.Effect<void, never, Db.Db>
}

export class InstallationRemoval extends Context.Tag("@propline/api/identity/InstallationRemoval")<
  InstallationRemoval,
  InstallationRemovalShape
>() {}
