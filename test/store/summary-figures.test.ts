import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECONCILE_ACTOR } from "../../src/domain/statement-lines.js";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import type { Store } from "../../src/store/engine/open.js";
import { summaryHours } from "../../src/store/migrations/20261203T1000_summary_hours.js";
import { summaryBusyDay } from "../../src/store/migrations/20261208T1000_summary_busy_day.js";
import { creditFigures } from "../../src/store/statements/summary-line-figures.js";
import {
  createSummaryFigureRepository,
  type HourTotal,
  type SummaryFigureRepository,
} from "../../src/store/transactions/summary-figures.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore, undoMigration } from "../support/store.js";

/**
 * The console summary's totals and deliveries (store/transactions/summary-figures.ts) are what a
 * plain reading of the rows gives, whatever was inserted, decided, changed or deleted: they come from
 * the hours' buckets the triggers keep (migrations 20261203T1000_summary_hours and
 * 20261208T1000_summary_busy_day), on PostgreSQL from the buckets and the deltas not folded yet,
 * folded at any moment, any part of them.
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const START = startOfTurkeyDay(Date.UTC(2027, 2, 1, 12));

const insertOp = fc.record({
  kind: fc.constant("insert" as const),
  firm: fc.integer({ min: 0, max: 2 }),
  type: fc.constantFrom("deposit" as const, "withdrawal" as const),
  status: fc.constantFrom("pending" as const, "approved" as const, "rejected" as const),
  amount: fc.integer({ min: 1, max: 99_999_999_999 }),
  // From two hours before the window's start: rows before it are not counted.
  at: fc.integer({ min: -2 * HOUR, max: 6 * HOUR }),
});
const pick = fc.integer({ min: 0, max: 1_000 });
const changeOp = fc.oneof(
  fc.record({
    kind: fc.constant("decide" as const),
    pick,
    status: fc.constantFrom("approved" as const, "rejected" as const, "pending" as const),
  }),
  fc.record({ kind: fc.constant("amount" as const), pick, amount: fc.integer({ min: 1, max: 9_999_999 }) }),
  fc.record({ kind: fc.constant("move" as const), pick, by: fc.integer({ min: -3 * HOUR, max: 3 * HOUR }) }),
  fc.record({ kind: fc.constant("touch" as const), pick }),
  fc.record({ kind: fc.constant("delete" as const), pick }),
  fc.record({
    kind: fc.constant("decider" as const),
    pick,
    by: fc.constantFrom(RECONCILE_ACTOR, "operator:a@ops.example", null),
  }),
  fc.record({ kind: fc.constant("fold" as const), limit: fc.integer({ min: 1, max: 4 }) }),
);
/** What happens to a transaction's callback: delivered at a moment of the window, again, or gone. */
const callbackOp = fc.record({
  pick,
  kind: fc.constantFrom("deliver" as const, "undeliver" as const, "delete" as const),
  at: fc.integer({ min: -2 * HOUR, max: 6 * HOUR }),
});

describe.each(STORES)("the summary's totals (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repo: SummaryFigureRepository;
  let accountId: number;
  let serial = 0;
  let run = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repo = createSummaryFigureRepository(store.db, store.dialect);
    accountId = await insertAccount(store, START);
  });
  afterAll(async () => {
    await close?.();
  });

  /** What the rows say: live firms' transactions since `since`, per type, status and hour. */
  async function plainReading(since: number): Promise<HourTotal[]> {
    const rows = await store.db
      .selectFrom("transactions as t")
      .innerJoin("firms as f", "f.id", "t.firm_id")
      .select(["t.type", "t.status", "t.amount", "t.created_at", "t.decided_by"])
      .where("t.created_at", ">=", since)
      .where("f.sandbox", "=", 0)
      .execute();
    const buckets = new Map<string, HourTotal>();
    for (const r of rows) {
      const hour = Math.floor((Number(r.created_at) - since) / HOUR);
      const key = `${r.type}|${r.status}|${hour}`;
      const b = buckets.get(key) ?? { type: r.type, status: r.status, hour, count: 0, volume: 0, auto: 0 };
      b.count += 1;
      b.volume += Number(r.amount);
      if (r.decided_by === RECONCILE_ACTOR) b.auto += 1;
      buckets.set(key, b);
    }
    return sorted([...buckets.values()]);
  }
  /** Live firms' pending transactions of each type, however old, by their rows. */
  async function plainQueues() {
    const rows = await store.db
      .selectFrom("transactions as t")
      .innerJoin("firms as f", "f.id", "t.firm_id")
      .select([
        "t.type",
        (eb) => eb.fn.countAll<number>().as("n"),
        (eb) => eb.fn.min("t.created_at").as("oldest"),
      ])
      .where("t.status", "=", "pending")
      .where("f.sandbox", "=", 0)
      .groupBy("t.type")
      .execute();
    return queuesSorted(
      rows.map((r) => ({
        type: r.type,
        count: Number(r.n),
        oldestAt: r.oldest === null ? null : Number(r.oldest),
      })),
    );
  }
  const queuesSorted = (queues: { type: string; count: number; oldestAt: number | null }[]) =>
    [...queues].sort((a, b) => a.type.localeCompare(b.type));
  /** Callbacks last delivered since `since`, by their rows. */
  async function plainDeliveries(since: number): Promise<number> {
    const row = await store.db
      .selectFrom("callbacks")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("delivered_at", ">=", since)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
  async function insertCallback(transactionId: number, firmId: number, deliveredAt: number | null) {
    await store.db
      .insertInto("callbacks")
      .values({
        transaction_id: transactionId,
        firm_id: firmId,
        event: "deposit.approved",
        url: "https://hooks.example/cb",
        origin: "https://hooks.example:443",
        payload: "{}",
        hash_input: "x",
        status: deliveredAt === null ? "pending" : "delivered",
        step: 0,
        attempts: deliveredAt === null ? 0 : 1,
        next_attempt_at: 0,
        lease_until: 0,
        lease_owner: null,
        last_attempt_at: deliveredAt,
        last_result: null,
        delivered_at: deliveredAt,
        failed_at: null,
        created_at: deliveredAt ?? 0,
        updated_at: deliveredAt ?? 0,
      })
      .execute();
  }
  const sorted = (totals: HourTotal[]) =>
    [...totals].sort((a, b) =>
      `${a.type}|${a.status}|${a.hour}`.localeCompare(`${b.type}|${b.status}|${b.hour}`),
    );

  it("equal a plain reading of the rows after any inserts, decisions, changes, deletions and folds", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(insertOp, { minLength: 1, maxLength: 25 }),
        fc.array(changeOp, { maxLength: 25 }),
        fc.array(callbackOp, { maxLength: 12 }),
        async (inserts, changes, callbackOps) => {
          // Each run a day of its own, later than the last run's: earlier runs' rows are before it.
          const since = START + run++ * 2 * DAY;
          const firms = [
            await insertFirm(store, since),
            await insertFirm(store, since),
            await insertFirm(store, since, { sandbox: 1 }),
          ];
          const ids: number[] = [];
          for (const op of inserts) {
            const row = await store.db
              .insertInto("transactions")
              .values({
                ...depositRow(
                  {
                    firmId: firms[op.firm] as number,
                    accountId,
                    amount: op.amount,
                    reference: `s-${serial++}`,
                  },
                  since + op.at,
                ),
                type: op.type,
                status: op.status,
                decided_by: op.status === "approved" && op.amount % 2 === 0 ? RECONCILE_ACTOR : null,
              })
              .returning(["id", "firm_id"])
              .executeTakeFirstOrThrow();
            ids.push(Number(row.id));
          }
          const withCallback = new Set<number>();
          for (const op of callbackOps) {
            const id = ids[op.pick % ids.length] as number;
            const at = since + op.at;
            if (!withCallback.has(id)) {
              if (op.kind === "delete") continue;
              await insertCallback(id, firms[0] as number, op.kind === "deliver" ? at : null);
              withCallback.add(id);
              continue;
            }
            const rows = store.db.updateTable("callbacks").where("transaction_id", "=", id);
            if (op.kind === "deliver") await rows.set({ delivered_at: at, status: "delivered" }).execute();
            if (op.kind === "undeliver") await rows.set({ delivered_at: null, status: "pending" }).execute();
            if (op.kind === "delete") {
              await store.db.deleteFrom("callbacks").where("transaction_id", "=", id).execute();
              withCallback.delete(id);
            }
          }
          for (const op of changes) {
            if (op.kind === "fold") {
              await repo.foldHours(op.limit);
              continue;
            }
            const id = ids[op.pick % ids.length] as number;
            const rows = store.db.updateTable("transactions").where("id", "=", id);
            if (op.kind === "decide") await rows.set({ status: op.status, decided_at: since }).execute();
            if (op.kind === "amount") await rows.set({ amount: op.amount }).execute();
            if (op.kind === "move") await rows.set({ created_at: sql`created_at + ${op.by}` }).execute();
            if (op.kind === "touch") await rows.set({ updated_at: since + 1 }).execute();
            if (op.kind === "decider") await rows.set({ decided_by: op.by }).execute();
            if (op.kind === "delete") {
              await store.db.deleteFrom("callbacks").where("transaction_id", "=", id).execute();
              await store.db.deleteFrom("transactions").where("id", "=", id).execute();
            }
          }
          const expectPlain = async () => {
            expect(sorted(await repo.totalsSince(since))).toEqual(await plainReading(since));
            expect(await repo.deliveredSince(since)).toBe(await plainDeliveries(since));
            expect(queuesSorted(await repo.pendingQueues())).toEqual(await plainQueues());
          };
          await expectPlain();
          // Folded to the end, the same.
          while ((await repo.foldHours(3)) > 0);
          await expectPlain();
        },
      ),
      { numRuns: kind === "sqlite" ? 60 : 25 },
    );
  });

  it("the median time to decision: the lower middle one, live firms' only, none when none was decided", async () => {
    const since = START + 500 * DAY;
    expect(await repo.medianDecisionMsSince(since)).toBeNull();
    const live = await insertFirm(store, since);
    const sandbox = await insertFirm(store, since, { sandbox: 1 });
    const decide = async (firmId: number, createdAt: number, decidedAt: number) => {
      await store.db
        .insertInto("transactions")
        .values({
          ...depositRow({ firmId, accountId, amount: 100, reference: `d-${serial++}` }, createdAt),
          status: "approved",
          decided_at: decidedAt,
        })
        .execute();
    };
    // Decided before the window: not counted, however long it took.
    await decide(live, since - DAY, since - 1);
    await decide(live, since, since + 40_000);
    expect(await repo.medianDecisionMsSince(since)).toBe(40_000);
    await decide(live, since + 1_000, since + 11_000);
    await decide(sandbox, since, since + 5);
    await decide(sandbox, since, since + 6);
    // 10 s and 40 s: the lower one.
    expect(await repo.medianDecisionMsSince(since)).toBe(10_000);
    await decide(live, since - HOUR, since + 2_000);
    // 10 s, 40 s, an hour: the middle one.
    expect(await repo.medianDecisionMsSince(since)).toBe(40_000);
  });

  it("the median from a line's credit to its callback: the rule's lines of the window, the latest at most, the lower middle", async () => {
    const since = START + 600 * DAY;
    const firmId = await insertFirm(store, since);
    const median = (latest: number) =>
      creditFigures(store.db, store.dialect, since, since + DAY, RECONCILE_ACTOR, latest).then(
        (f) => f.creditToCallbackMs,
      );
    expect(await median(10)).toBeNull();
    /** A deposit approved by a line that came at `lineAt`, decided at `decidedAt` by `by`, its callback delivered `ms` later. */
    const line = async (lineAt: number, decidedAt: number, ms: number | null, by = RECONCILE_ACTOR) => {
      const tx = await store.db
        .insertInto("transactions")
        .values({
          ...depositRow({ firmId, accountId, amount: 100, reference: `c-${serial++}` }, lineAt - 1),
          status: "approved",
          decided_at: decidedAt,
          decided_by: by,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await store.db
        .insertInto("statement_lines")
        .values({
          account_id: accountId,
          line_key: `k-${serial++}`,
          import_id: null,
          source: "feed",
          booked_at: lineAt,
          date_only: 0,
          amount: 100,
          direction: "credit",
          currency: "TRY",
          sender_name: null,
          sender_iban: null,
          description: "x",
          bank_ref: null,
          state: "approved",
          transaction_id: Number(tx.id),
          created_at: lineAt,
          decided_at: decidedAt,
          decided_by: by,
        })
        .execute();
      await insertCallback(Number(tx.id), firmId, ms === null ? null : lineAt + ms);
    };
    await line(since - 10, since - 5, 1);
    await line(since + 100, since + 101, null);
    await line(since + 200, since + 201, 9_000, "operator:a@ops.example");
    expect(await median(10)).toBeNull();
    await line(since + 1_000, since + 1_001, 4_000);
    await line(since + 2_000, since + 2_001, 2_000);
    // 2 s and 4 s: the lower one.
    expect(await median(10)).toBe(2_000);
    await line(since + 3_000, since + 3_001, 8_000);
    expect(await median(10)).toBe(4_000);
    // The latest two: 2 s and 8 s.
    expect(await median(2)).toBe(2_000);
    expect(await median(1)).toBe(8_000);
  });

  it("ask for the start of an hour", async () => {
    await expect(repo.totalsSince(START + 1)).rejects.toThrow(/start of an hour/);
    await expect(repo.deliveredSince(START + 1)).rejects.toThrow(/start of an hour/);
  });

  /** The statements that take the store back to before the busy day's migration (SQLite: and the hours'). */
  const undone: Record<StoreKind, { versions: string[]; statements: string[] }> = {
    sqlite: {
      versions: [summaryBusyDay.version, summaryHours.version],
      statements: [
        ...["transaction_hours_insert", "transaction_hours_update", "transaction_hours_delete"].map(
          (t) => `DROP TRIGGER ${t}`,
        ),
        ...["callback_hours_insert", "callback_hours_update", "callback_hours_delete"].map(
          (t) => `DROP TRIGGER ${t}`,
        ),
        "DROP TABLE transaction_hours",
        "DROP TABLE callback_hours",
        "DROP INDEX transactions_pending_created_idx",
      ],
    },
    postgres: {
      versions: [summaryBusyDay.version],
      statements: [
        ...["transaction_hours_insert", "transaction_hours_update", "transaction_hours_delete"].map(
          (t) => `DROP TRIGGER ${t} ON transactions`,
        ),
        ...["callback_hours_insert", "callback_hours_update", "callback_hours_delete"].map(
          (t) => `DROP TRIGGER ${t} ON callbacks`,
        ),
        "DROP FUNCTION transaction_hours_added, transaction_hours_moved, callback_hours_moved",
        "DROP TABLE transaction_hours, transaction_hour_deltas, callback_hours, callback_hour_deltas",
      ],
    },
  };

  it("a store that had transactions and deliveries before the migrations: those since yesterday's start are summed by them", async () => {
    const { versions, statements } = undone[kind];
    for (const [i, version] of versions.entries())
      await undoMigration(store, version, i === 0 ? statements : []);
    // The migration takes the database's clock: yesterday's start in Türkiye by today's. A few
    // seconds before Türkiye's midnight its yesterday could be a day later than the test's.
    const toMidnight = DAY - ((Date.now() + 3 * HOUR) % DAY);
    if (toMidnight < 10_000) await new Promise((r) => setTimeout(r, toMidnight + 100));
    const yesterday = startOfTurkeyDay(Date.now()) - DAY;
    const firmId = await insertFirm(store, yesterday);
    // Pending for days: counted in the queues however old.
    await store.db
      .insertInto("transactions")
      .values({
        ...depositRow({ firmId, accountId, amount: 99, reference: `m-${serial++}` }, yesterday - 3 * DAY),
        type: "withdrawal",
      })
      .execute();
    const at = [yesterday - HOUR, yesterday, Date.now() - 1_000];
    for (const [i, created] of at.entries()) {
      const row = await store.db
        .insertInto("transactions")
        .values({
          ...depositRow({ firmId, accountId, amount: 100 + i, reference: `m-${serial++}` }, created),
          status: "approved",
          decided_at: created,
          decided_by: i === 0 ? "operator:a@ops.example" : RECONCILE_ACTOR,
        })
        .returning("id")
        .executeTakeFirstOrThrow();
      await insertCallback(Number(row.id), firmId, created + 500);
    }

    expect(await store.migrate()).toEqual([...versions].reverse());
    expect(sorted(await repo.totalsSince(yesterday))).toEqual(await plainReading(yesterday));
    expect(await repo.deliveredSince(yesterday)).toBe(await plainDeliveries(yesterday));
    expect(queuesSorted(await repo.pendingQueues())).toEqual(await plainQueues());
    const before = await store.db
      .selectFrom("transaction_hours")
      .selectAll()
      .where("hour_start", "<", yesterday)
      .where("firm_id", "=", firmId)
      .where("status", "<>", "pending")
      .execute();
    expect(before).toEqual([]);
    // And the triggers count from then on.
    const row = await store.db
      .insertInto("transactions")
      .values(depositRow({ firmId, accountId, amount: 7, reference: `m-${serial++}` }, Date.now()))
      .returning("id")
      .executeTakeFirstOrThrow();
    await insertCallback(Number(row.id), firmId, Date.now());
    expect(sorted(await repo.totalsSince(yesterday))).toEqual(await plainReading(yesterday));
    expect(await repo.deliveredSince(yesterday)).toBe(await plainDeliveries(yesterday));
  });
});
