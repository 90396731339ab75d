import type { Kysely, Selectable, Updateable } from "kysely";
import type { ChannelTable, Database, PaymentAccountTable } from "../schema.js";

export type ChannelRow = Selectable<ChannelTable>;

/** An active account as routing needs it, with its channel's code when it has one. */
export type RoutableAccount = Selectable<PaymentAccountTable> & { channel_code: string | null };

export interface ChannelRepository {
  create(values: Omit<ChannelRow, "id">): Promise<ChannelRow>;
  update(id: number, changes: Updateable<ChannelTable>): Promise<ChannelRow | undefined>;
  get(id: number): Promise<ChannelRow | undefined>;
  byCode(code: string): Promise<ChannelRow | undefined>;
  list(): Promise<ChannelRow[]>;
  /** Active channels, and the active accounts on them (or on none): all that routing reads. */
  routable(): Promise<{ channels: ChannelRow[]; accounts: RoutableAccount[] }>;
}

export function createChannelRepository(db: Kysely<Database>): ChannelRepository {
  return {
    create(values) {
      return db.insertInto("channels").values(values).returningAll().executeTakeFirstOrThrow();
    },
    update(id, changes) {
      return db.updateTable("channels").set(changes).where("id", "=", id).returningAll().executeTakeFirst();
    },
    get(id) {
      return db.selectFrom("channels").selectAll().where("id", "=", id).executeTakeFirst();
    },
    byCode(code) {
      return db.selectFrom("channels").selectAll().where("code", "=", code).executeTakeFirst();
    },
    list() {
      return db.selectFrom("channels").selectAll().orderBy("id").execute();
    },
    async routable() {
      const channels = await db.selectFrom("channels").selectAll().where("active", "=", 1).execute();
      const accounts = await db
        .selectFrom("payment_accounts")
        .leftJoin("channels", "channels.id", "payment_accounts.channel_id")
        .selectAll("payment_accounts")
        .select("channels.code as channel_code")
        .where("payment_accounts.active", "=", 1)
        .where("payment_accounts.sandbox", "=", 0)
        .where((eb) => eb.or([eb("payment_accounts.channel_id", "is", null), eb("channels.active", "=", 1)]))
        .orderBy("payment_accounts.id")
        .execute();
      return { channels, accounts };
    },
  };
}
