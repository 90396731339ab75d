import type { Kysely, Selectable, Updateable } from "kysely";
import type { Database, PaymentAccountTable } from "./schema.js";

export type AccountRow = Selectable<PaymentAccountTable>;

export interface AccountRepository {
  add(values: Omit<AccountRow, "id" | "last_assigned_at">): Promise<AccountRow>;
  update(id: number, changes: Updateable<PaymentAccountTable>): Promise<AccountRow | undefined>;
  get(id: number): Promise<AccountRow | undefined>;
  list(): Promise<AccountRow[]>;
  /** Active accounts whose amount range covers the amount, least recently assigned first. */
  listEligible(amountMinor: number): Promise<AccountRow[]>;
}

export function createAccountRepository(db: Kysely<Database>): AccountRepository {
  return {
    add(values) {
      return db
        .insertInto("payment_accounts")
        .values({ ...values, last_assigned_at: 0 })
        .returningAll()
        .executeTakeFirstOrThrow();
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
    listEligible(amountMinor) {
      return db
        .selectFrom("payment_accounts")
        .selectAll()
        .where("active", "=", 1)
        .where((eb) => eb.or([eb("min_amount", "is", null), eb("min_amount", "<=", amountMinor)]))
        .where((eb) => eb.or([eb("max_amount", "is", null), eb("max_amount", ">=", amountMinor)]))
        .orderBy("last_assigned_at")
        .orderBy("id")
        .limit(50)
        .execute();
    },
  };
}
