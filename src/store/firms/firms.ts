import type { Kysely, Selectable, SelectQueryBuilder, Updateable } from "kysely";
import type { BannedUserTable, Database, FirmTable, ProviderTable } from "../schema.js";

export type FirmRow = Selectable<FirmTable>;
/** The columns of a firm an update may set. */
export type FirmUpdate = Updateable<FirmTable>;
export type ProviderRow = Selectable<ProviderTable>;

/** A firm with what authentication and callback resolution need from its provider. */
export interface FirmWithProvider extends FirmRow {
  provider_kind: ProviderRow["kind"] | null;
  provider_callback_url: string | null;
  /** The provider's auto-cancel time for pending deposits (0: none); null without a provider. */
  provider_auto_cancel_minutes: number | null;
}

/** The columns a new firm takes the migrations' defaults for unless given. */
type FirmDefaulted =
  | "reconcile_auto"
  | "reconcile_by_name"
  | "answer_payment_code"
  | "max_pending_count"
  | "max_pending_amount"
  | "max_cap_share"
  | "display_name"
  | "usual_amount_max"
  | "overdraft";

export interface FirmRepository {
  findByApiKey(apiKey: string): Promise<FirmWithProvider | undefined>;
  findWithProvider(id: number): Promise<FirmWithProvider | undefined>;
  get(id: number): Promise<FirmRow | undefined>;
  list(): Promise<FirmRow[]>;
  /** The firms whose deposits route to the live pool: active, not test firms, deposits open. */
  liveIds(): Promise<number[]>;
  /** The reconciliation settings are on and the pending bounds at their defaults unless given. */
  create(
    values: Omit<FirmRow, "id" | FirmDefaulted> & Partial<Pick<FirmRow, FirmDefaulted>>,
  ): Promise<FirmRow>;
  update(id: number, changes: Updateable<FirmTable>): Promise<FirmRow | undefined>;
  createProvider(values: Omit<ProviderRow, "id">): Promise<ProviderRow>;
  getProvider(id: number): Promise<ProviderRow | undefined>;
  listProviders(): Promise<ProviderRow[]>;
  updateProvider(id: number, changes: Updateable<ProviderTable>): Promise<ProviderRow | undefined>;
  bans(firmId: number): Promise<Selectable<BannedUserTable>[]>;
}

/**
 * The firms whose deposits route to the live pool: active, not test firms, deposits open. Those are
 * the firms that share each live account's daily cap (domain/cap-share.ts).
 */
export function liveFirmsOnly<O>(
  qb: SelectQueryBuilder<Database, "firms", O>,
): SelectQueryBuilder<Database, "firms", O> {
  return qb.where("firms.active", "=", 1).where("firms.sandbox", "=", 0).where("firms.deposits_open", "=", 1);
}

export function createFirmRepository(db: Kysely<Database>): FirmRepository {
  /** A firm with what its provider decides for it (FirmWithProvider). */
  const withProvider = () =>
    db
      .selectFrom("firms")
      .leftJoin("providers", "providers.id", "firms.provider_id")
      .selectAll("firms")
      .select([
        "providers.kind as provider_kind",
        "providers.callback_url as provider_callback_url",
        "providers.auto_cancel_minutes as provider_auto_cancel_minutes",
      ]);
  return {
    findByApiKey(apiKey) {
      return withProvider().where("firms.api_key", "=", apiKey).executeTakeFirst();
    },
    findWithProvider(id) {
      return withProvider().where("firms.id", "=", id).executeTakeFirst();
    },
    get(id) {
      return db.selectFrom("firms").selectAll().where("id", "=", id).executeTakeFirst();
    },
    list() {
      return db.selectFrom("firms").selectAll().orderBy("id").execute();
    },
    async liveIds() {
      const rows = await db.selectFrom("firms").select("firms.id").$call(liveFirmsOnly).execute();
      return rows.map((r) => Number(r.id));
    },
    create(values) {
      return db.insertInto("firms").values(values).returningAll().executeTakeFirstOrThrow();
    },
    update(id, changes) {
      return db.updateTable("firms").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
    },
    createProvider(values) {
      return db.insertInto("providers").values(values).returningAll().executeTakeFirstOrThrow();
    },
    getProvider(id) {
      return db.selectFrom("providers").selectAll().where("id", "=", id).executeTakeFirst();
    },
    listProviders() {
      return db.selectFrom("providers").selectAll().orderBy("id").execute();
    },
    updateProvider(id, changes) {
      return db.updateTable("providers").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
    },
    bans(firmId) {
      return db
        .selectFrom("banned_users")
        .selectAll()
        .where("firm_id", "=", firmId)
        .orderBy("created_at", "desc")
        .limit(1000)
        .execute();
    },
  };
}
