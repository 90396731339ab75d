import type { Kysely } from "kysely";
import { writeAudit } from "../audited.js";
import type { Database } from "../schema.js";

/** Each scope's settings as stored: JSON of the keys set there (payouts/settings.ts reads them). */
export interface PayoutSettingsRepository {
  /** The stored settings of these scopes, by scope; a scope never set is absent. */
  of(scopes: readonly string[]): Promise<Map<string, Record<string, unknown>>>;
  /** Every scope's stored settings (a handful of rows: the service, some firms, some accounts). */
  all(): Promise<Map<string, Record<string, unknown>>>;
  /** Replaces a scope's settings, with its audit entry (a bank template added by an admin). */
  put(scope: string, settings: Record<string, unknown>, actor: string, at: number): Promise<void>;
  /**
   * Sets these keys at a scope, the others set there kept, with its audit entry. Two admins
   * changing one scope at once both keep their changes: the write is conditional on the settings
   * read (compare and swap), read again when another change came first.
   */
  change(scope: string, keys: Record<string, unknown>, actor: string, at: number): Promise<void>;
}

export function createPayoutSettingsRepository(db: Kysely<Database>): PayoutSettingsRepository {
  return {
    async of(scopes) {
      if (scopes.length === 0) return new Map();
      const rows = await db
        .selectFrom("payout_settings")
        .select(["scope", "settings"])
        .where("scope", "in", scopes)
        .execute();
      return new Map(rows.map((r) => [r.scope, JSON.parse(r.settings) as Record<string, unknown>]));
    },

    async all() {
      const rows = await db.selectFrom("payout_settings").select(["scope", "settings"]).execute();
      return new Map(rows.map((r) => [r.scope, JSON.parse(r.settings) as Record<string, unknown>]));
    },

    put(scope, settings, actor, at) {
      return db.transaction().execute(async (trx) => {
        const before = await trx
          .selectFrom("payout_settings")
          .select("settings")
          .where("scope", "=", scope)
          .executeTakeFirst();
        const json = JSON.stringify(settings);
        await trx
          .insertInto("payout_settings")
          .values({ scope, settings: json, updated_by: actor, updated_at: at })
          .onConflict((oc) =>
            oc.column("scope").doUpdateSet({ settings: json, updated_by: actor, updated_at: at }),
          )
          .execute();
        await writeAudit(
          trx,
          { actor, action: "payout.settings", at },
          "payout_settings",
          scope,
          before ? (JSON.parse(before.settings) as Record<string, unknown>) : null,
          settings,
        );
      });
    },

    async change(scope, keys, actor, at) {
      for (;;) if (await changeOnce(db, scope, keys, actor, at)) return;
    },
  };
}

/** One compare-and-swap of a scope's settings; false when another change came first. */
function changeOnce(
  db: Kysely<Database>,
  scope: string,
  keys: Record<string, unknown>,
  actor: string,
  at: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const before = await trx
      .selectFrom("payout_settings")
      .select("settings")
      .where("scope", "=", scope)
      .executeTakeFirst();
    const old = before ? (JSON.parse(before.settings) as Record<string, unknown>) : null;
    const json = JSON.stringify({ ...old, ...keys });
    const written = before
      ? await trx
          .updateTable("payout_settings")
          .set({ settings: json, updated_by: actor, updated_at: at })
          .where("scope", "=", scope)
          .where("settings", "=", before.settings)
          .returning("scope")
          .executeTakeFirst()
      : await trx
          .insertInto("payout_settings")
          .values({ scope, settings: json, updated_by: actor, updated_at: at })
          .onConflict((oc) => oc.column("scope").doNothing())
          .returning("scope")
          .executeTakeFirst();
    if (!written) return false;
    await writeAudit(
      trx,
      { actor, action: "payout.settings", at },
      "payout_settings",
      scope,
      old,
      JSON.parse(json) as Record<string, unknown>,
    );
    return true;
  });
}
