import { type Kysely, sql, type Transaction } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import type { Store } from "../../src/store/engine/open.js";
import type { Database } from "../../src/store/schema.js";
import { createSummaryFigureRepository } from "../../src/store/transactions/summary-figures.js";
import { foldHours } from "../../src/store/transactions/summary-hours.js";
import { STORES } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

/**
 * On PostgreSQL the summary's buckets take no lock that writers share (migration
 * 20261208T1000_summary_busy_day): two instances writing one firm's withdrawals in the same hour,
 * deciding them and recording deliveries, and the minute's fold on a third, never wait on each
 * other; every statement here gives up after a second of waiting. Then folds on several instances
 * at once, with writes going on, leave the figures what the rows say.
 */
const AT = startOfTurkeyDay(Date.UTC(2027, 5, 1, 12)) + 3_600_000;

describe.runIf(STORES.includes("postgres"))("the summary's buckets and writers (postgres)", () => {
  let close: () => Promise<void>;
  let stores: Store[];
  let firmId: number;
  let accountId: number;
  let serial = 0;

  beforeAll(async () => {
    const fresh = await freshStore("postgres", 4);
    close = fresh.close;
    stores = [fresh.store, await fresh.open(), await fresh.open()];
    firmId = await insertFirm(fresh.store, AT);
    accountId = await insertAccount(fresh.store, AT);
  });
  afterAll(async () => {
    await close?.();
  });

  const withdrawal = (at: number) => ({
    ...depositRow({ firmId, accountId, amount: 500, reference: `w-${serial++}` }, at),
    type: "withdrawal" as const,
  });

  async function impatient<T>(store: Store, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return store.db.transaction().execute(async (trx) => {
      await sql`SET LOCAL lock_timeout = '1s'`.execute(trx);
      return work(trx);
    });
  }

  /** A withdrawal written, one decided and a delivery recorded, in one transaction. */
  async function write(db: Kysely<Database>, pendingId: number, at: number): Promise<number> {
    const row = await db
      .insertInto("transactions")
      .values(withdrawal(at))
      .returning("id")
      .executeTakeFirstOrThrow();
    await db
      .updateTable("transactions")
      .set({ status: "approved", decided_at: at, decided_by: "operator:a@ops.example" })
      .where("id", "=", pendingId)
      .execute();
    await db
      .insertInto("callbacks")
      .values({
        transaction_id: pendingId,
        firm_id: firmId,
        event: "withdrawal.approved",
        url: "https://hooks.example/cb",
        origin: "https://hooks.example:443",
        payload: "{}",
        hash_input: "x",
        status: "delivered",
        step: 1,
        attempts: 1,
        next_attempt_at: at,
        lease_until: 0,
        lease_owner: null,
        last_attempt_at: at,
        last_result: "HTTP 200",
        delivered_at: at,
        failed_at: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    return Number(row.id);
  }

  it("writers of one firm and hour, and the fold, wait for none of each other", async () => {
    const [first, second, third] = stores as [Store, Store, Store];
    const pending: number[] = [];
    for (let i = 0; i < 2; i++)
      pending.push(
        Number(
          (
            await first.db
              .insertInto("transactions")
              .values(withdrawal(AT))
              .returning("id")
              .executeTakeFirstOrThrow()
          ).id,
        ),
      );
    let release = () => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let inside = () => {};
    const written = new Promise<void>((r) => {
      inside = r;
    });
    const holding = first.db.transaction().execute(async (trx) => {
      await write(trx, pending[0] as number, AT + 1);
      inside();
      await held;
    });
    await written;
    try {
      await impatient(second, (trx) => write(trx, pending[1] as number, AT + 2));
      await impatient(third, (trx) => foldHours(trx, "postgres", 1_000));
      // The fold held its buckets and deltas to its commit; a writer after it does not wait either.
      await impatient(second, (trx) =>
        trx
          .insertInto("transactions")
          .values(withdrawal(AT + 3))
          .execute(),
      );
    } finally {
      release();
      await holding;
    }
  });

  it("folds on three instances at once, with writes going on, leave the figures what the rows say", async () => {
    const since = startOfTurkeyDay(AT);
    const writes = Array.from({ length: 60 }, (_, i) =>
      (stores[i % 3] as Store).db
        .insertInto("transactions")
        .values({ ...withdrawal(since + (i % 5) * 3_600_000), status: i % 2 === 0 ? "pending" : "rejected" })
        .execute(),
    );
    const folds = stores.flatMap((s) => [foldHours(s.db, "postgres", 7), foldHours(s.db, "postgres", 7)]);
    await Promise.all([...writes, ...folds]);
    const repo = createSummaryFigureRepository((stores[0] as Store).db, "postgres");
    const before = await repo.totalsSince(since);
    while ((await repo.foldHours(1_000)) > 0);
    expect(await repo.totalsSince(since)).toEqual(before);
    const plain = await (stores[0] as Store).db
      .selectFrom("transactions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("created_at", ">=", since)
      .where("firm_id", "=", firmId)
      .executeTakeFirstOrThrow();
    expect(before.reduce((a, t) => a + t.count, 0)).toBe(Number(plain.n));
    const left = await sql<{ n: number }>`SELECT count(*)::int AS n FROM transaction_hour_deltas`.execute(
      (stores[0] as Store).db,
    );
    expect(left.rows[0]?.n).toBe(0);
  });
});
