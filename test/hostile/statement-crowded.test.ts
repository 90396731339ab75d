import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PaymentCodes } from "../../src/domain/payment-code.js";
import { POOL_CEILING } from "../../src/reconciliation/candidate-pool.js";
import { importStatement, type ReconcileDeps } from "../../src/reconciliation/import.js";
import { openStore, type Store } from "../../src/store/engine/open.js";
import { createRepositories } from "../../src/store/index.js";
import { STORES, storeEnv } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { camtFile } from "../support/statement-files.js";
import { storedPaymentCodes } from "../support/stored.js";

/**
 * A line whose reach holds more deposits than one reading of the candidate pool may (issue 45:
 * candidate-pool.ts), imported through the real import and matcher on each store: it is suggested
 * and held as `crowded`, never a crash and never an approval. The ceiling is made small (ReconcileDeps'
 * `poolCeiling`), so that a few deposits stand for the 20,000 of production; the same line with
 * the production ceiling approves, so the crowd is the reason.
 */
const IBAN = "TR000000000000000000000001";
const CEILING = 5;

describe.each(STORES)("a line past the candidate pool's ceiling (%s)", (kind) => {
  let made: Awaited<ReturnType<typeof storeEnv>>;
  let store: Store;
  let deps: ReconcileDeps;
  let codes: PaymentCodes;
  let accountId: number;
  const depositIds: number[] = [];
  const now = Date.now();

  beforeAll(async () => {
    made = await storeEnv(kind);
    store = await openStore({
      databaseUrl: made.env.DATABASE_URL,
      dataDir: made.env.PAYINTAKE_DATA_DIR as string,
      pgPoolSize: 4,
    });
    const firmId = await insertFirm(store, now, { reconcile_auto: 1 });
    accountId = await insertAccount(store, now);
    // One more deposit than the ceiling, all within the line's reach (the 24 hours before it).
    for (let i = 0; i <= CEILING; i++) {
      const row = await store.db
        .insertInto("transactions")
        .values(
          depositRow({ firmId, accountId, amount: 1_000 + i, reference: `crowd-${i}` }, now - 60_000 + i),
        )
        .returning("id")
        .executeTakeFirstOrThrow();
      depositIds.push(Number(row.id));
    }
    codes = await storedPaymentCodes(store, made.env);
    deps = {
      repos: createRepositories(store),
      paymentCodes: codes,
      now: () => Date.now(),
      decisionsMade: () => {},
      poolCeiling: CEILING,
    };
  });
  afterAll(async () => {
    await store?.close();
    await made?.cleanup();
  });

  async function* once(text: string) {
    yield text;
  }
  /** A line paying a deposit by its code and amount: proof enough to approve it alone. */
  const entryFor = (i: number, ref: string) => ({
    amount: `10.0${i}`,
    at: now,
    description: codes.of(depositIds[i] as number),
    ref,
  });
  const stateOf = async (ref: string) =>
    store.db
      .selectFrom("statement_lines")
      .select(["state", "evidence"])
      .where("bank_ref", "=", ref)
      .executeTakeFirstOrThrow();
  const statusOf = async (id: number) =>
    (
      await store.db
        .selectFrom("transactions")
        .select("status")
        .where("id", "=", id)
        .executeTakeFirstOrThrow()
    ).status;

  it("is suggested, never approved: held as crowded when its deposit was read; with the production ceiling it approves", async () => {
    // The first deposit is in the window read; the last, made at the last instant read, is left out.
    const file = camtFile({
      iban: IBAN,
      sequence: "1",
      entries: [entryFor(0, "CROWD-1"), entryFor(CEILING, "CROWD-2")],
    });
    const crowded = await importStatement(deps, accountId, once(file), "test");
    expect(crowded).toMatchObject({ ok: true, value: { credits: 2, approved: 0, suggested: 2 } });
    const first = await stateOf("CROWD-1");
    expect(first.state).toBe("suggested");
    expect(JSON.parse(first.evidence ?? "{}")).toMatchObject({
      held: { code: "crowded" },
      why: "more deposits were made around this line than one reading holds",
    });
    expect((await stateOf("CROWD-2")).state).toBe("suggested");
    expect([await statusOf(depositIds[0] as number), await statusOf(depositIds[CEILING] as number)]).toEqual([
      "pending",
      "pending",
    ]);

    expect(CEILING).toBeLessThan(POOL_CEILING);
    const roomy = { ...deps, poolCeiling: undefined };
    const again = camtFile({ iban: IBAN, sequence: "2", entries: [entryFor(CEILING, "ROOMY-1")] });
    expect(await importStatement(roomy, accountId, once(again), "test")).toMatchObject({
      ok: true,
      value: { approved: 1 },
    });
    expect((await stateOf("ROOMY-1")).state).toBe("approved");
  });
});
