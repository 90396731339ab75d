import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/engine/open.js";
import type { Prepared, StatementRunner } from "../../src/store/engine/prepared.js";
import {
  createTransactionRepository,
  type TransactionRepository,
} from "../../src/store/transactions/transactions.js";
import { insertFirm } from "../support/rows.js";

/**
 * The embedded store sends what one turn of the event loop asked as one message to its thread
 * (sqlite-group-commit.ts). A request that asks its second statement only once the first has
 * answered pays a second round trip: measured under load, that was a third of a deposit's wait for
 * the store. Here a real embedded store answers; its runner is only watched, to record the turn in
 * which each statement was asked.
 */
describe("nonce and business facts on the embedded store", () => {
  let dir: string;
  let store: Store;
  let repo: TransactionRepository;
  let firmId: number;
  /** [turn, statement] for each statement asked, turns counted by setImmediate. */
  const asked: [number, string][] = [];
  let turn = 0;
  let ticking = true;
  const tick = () => {
    turn += 1;
    if (ticking) setImmediate(tick);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "payintake-nf-"));
    store = await openStore({ databaseUrl: undefined, dataDir: dir, pgPoolSize: 1 });
    await store.migrate();
    const now = Date.now();
    firmId = await insertFirm(store, now);
    await store.db
      .insertInto("banned_users")
      .values({ firm_id: firmId, user_id: "u-banned", created_at: now })
      .execute();
    const watched: StatementRunner = {
      rows: <R>(s: Prepared, p: readonly unknown[]) => {
        asked.push([turn, s.name]);
        return store.prepared.rows<R>(s, p);
      },
      changes: (s: Prepared, p: readonly unknown[]) => {
        asked.push([turn, s.name]);
        return store.prepared.changes(s, p);
      },
    };
    repo = createTransactionRepository(store.db, watched, "sqlite");
    setImmediate(tick);
  });

  afterAll(async () => {
    ticking = false;
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const nonceAndFacts = (nonce: string, userId: string) =>
    repo.nonceAndFacts(
      { firmId, nonce, expiresAt: Date.now() + 300_000 },
      { reference: "R-1", userId, type: "deposit" },
    );

  it("asks both statements in one turn, so they travel in one message, nonce first", async () => {
    asked.length = 0;
    const outcome = await nonceAndFacts("nonce-0001", "u-banned");
    expect(asked.map(([, name]) => name)).toEqual(["nonce_record", "tx_business_facts"]);
    expect(asked[0]?.[0]).toBe(asked[1]?.[0]);
    expect(outcome).toEqual({
      nonceFresh: true,
      facts: {
        referenceUsed: false,
        userBanned: true,
        pendingExists: false,
        firmPending: { count: 0, amountMinor: 0 },
      },
    });
  });

  it("reports a used nonce from the same message", async () => {
    asked.length = 0;
    const outcome = await nonceAndFacts("nonce-0001", "u-other");
    expect(asked).toHaveLength(2);
    expect(asked[0]?.[0]).toBe(asked[1]?.[0]);
    expect(outcome).toEqual({
      nonceFresh: false,
      facts: {
        referenceUsed: false,
        userBanned: false,
        pendingExists: false,
        firmPending: { count: 0, amountMinor: 0 },
      },
    });
  });
});
