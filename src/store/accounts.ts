import type { Kysely, Selectable, Updateable } from "kysely";
import type { Database, PaymentAccountTable } from "./schema.js";

export type AccountRow = Selectable<PaymentAccountTable>;

export interface AccountRepository {
  add(values: Omit<AccountRow, "id">): Promise<AccountRow>;
  update(id: number, changes: Updateable<PaymentAccountTable>): Promise<AccountRow | undefined>;
  get(id: number): Promise<AccountRow | undefined>;
  list(): Promise<AccountRow[]>;
  /** The accounts deposits may be routed to. */
  listActive(): Promise<AccountRow[]>;
}

export function createAccountRepository(db: Kysely<Database>): AccountRepository {
  return {
    add(values) {
      return db.insertInto("payment_accounts").values(values).returningAll().executeTakeFirstOrThrow();
    },
    update(id, changes) {
      return db
        .updateTable("payment_accounts")
        .set(changes)
        .where("id", "=", id)
        .returningAll()
        .executeTakeFirst();
    },
    get(id) {
      return db.selectFrom("payment_accounts").selectAll().where("id", "=", id).executeTakeFirst();
    },
    list() {
      return db.selectFrom("payment_accounts").selectAll().orderBy("id").execute();
    },
    listActive() {
      return db.selectFrom("payment_accounts").selectAll().where("active", "=", 1).orderBy("id").execute();
    },
  };
}
