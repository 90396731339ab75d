import type { Kysely, Selectable, Updateable } from "kysely";
import type { Database, PaymentAccountTable } from "../schema.js";

export type AccountRow = Selectable<PaymentAccountTable>;
/** The columns of a payment account an update may set. */
export type AccountUpdate = Updateable<PaymentAccountTable>;

export interface AccountRepository {
  update(id: number, changes: Updateable<PaymentAccountTable>): Promise<AccountRow | undefined>;
  get(id: number): Promise<AccountRow | undefined>;
  list(): Promise<AccountRow[]>;
  /** The account sandbox firms' deposits are given (docs/sandbox.md). */
  sandbox(): Promise<AccountRow | undefined>;
}

export function createAccountRepository(db: Kysely<Database>): AccountRepository {
  return {
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
    sandbox() {
      return db
        .selectFrom("payment_accounts")
        .selectAll()
        .where("sandbox", "=", 1)
        .where("active", "=", 1)
        .orderBy("id")
        .executeTakeFirst();
    },
  };
}
