import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cashAccount, firmAccount, type PostingDraft } from "../../src/domain/ledger.js";
import { commissionFor } from "../../src/ledger/commission.js";
import { depositApproved, lineHeld } from "../../src/ledger/postings.js";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { LedgerPostingError, ledgerViolation } from "../../src/store/ledger/ledger-errors.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

const IBAN = "TR330006100519786457841326";
const T0 = Date.parse("2026-12-01T09:00:00Z");

/**
 * The ledger's rules as the database keeps them (migration 20261206T1200_ledger): a posting that
 * does not sum to zero, has one entry, is not in lira, or is changed or deleted afterwards is
 * refused by the store itself, whoever writes; a retried event posts once; a correction is a new
 * posting. The balances' arithmetic under random postings is ledger-balances.test.ts.
 */
describe.each(STORES)("the ledger's rules in the database (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repos: Repositories;
  let seq = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repos = createRepositories(store);
  });
  afterAll(async () => {
    await close?.();
  });

  const deposit = (firmId: number, amount: number, bp = 150) =>
    depositApproved({
      transactionId: ++seq,
      firmId,
      amount,
      commission: commissionFor(
        { firmId, kind: "deposit", percentBp: bp, fixed: 0, min: null, max: null, fromAt: 0 },
        amount,
      ),
      source: { iban: IBAN },
      at: T0 + seq,
      actor: "operator:1",
    });
  /** A posting written by hand, past the repository's own checks: what the database alone says. */
  const rawPosting = (lines: unknown[], key = `raw:${++seq}`) =>
    sql`INSERT INTO ledger_postings (idempotency_key, kind, at, actor, lines)
        VALUES (${key}, 'adjustment', ${T0}, 'test', ${JSON.stringify(lines)})`.execute(store.db);
  const line = (account: string, amount: number, currency = "TRY") => {
    const [accountKind, ref = null] = account.split(":");
    return { account, account_kind: accountKind, ref, amount, kind: "adjustment", currency };
  };
  const refusal = async (write: Promise<unknown>) => {
    const err = await write.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err, "the write was refused").toBeDefined();
    return ledgerViolation(err);
  };
  const postings = async () =>
    Number(
      (await sql<{ n: unknown }>`SELECT count(*) AS n FROM ledger_postings`.execute(store.db)).rows[0]?.n,
    );

  it("posts a deposit with its commission, and a retried event posts once", async () => {
    const firm = await insertFirm(store, 1);
    const draft = deposit(firm, 100_050);
    const first = await repos.ledger.post(store.db, draft);
    expect(first.replayed).toBe(false);
    const again = await repos.ledger.post(store.db, draft);
    expect(again).toEqual({ posting: first.posting, replayed: true });
    // 1.5 % of 1,000.50 TL is 15.0075 TL: 15.01 TL, half up.
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(100_050 - 1501);
    expect(await repos.ledger.balance("commission")).toBeGreaterThanOrEqual(1501);
    const rows = await sql<{ n: unknown }>`SELECT count(*) AS n FROM ledger_postings
      WHERE idempotency_key = ${draft.key}`.execute(store.db);
    expect(Number(rows.rows[0]?.n)).toBe(1);
  });

  it("the same key with other entries is a bug, refused whole", async () => {
    const firm = await insertFirm(store, 1);
    const draft = deposit(firm, 5000);
    await repos.ledger.post(store.db, draft);
    const other: PostingDraft = { ...draft, lines: deposit(firm, 6000).lines };
    await expect(repos.ledger.post(store.db, other)).rejects.toMatchObject({ rule: "ledger_key_reused" });
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(5000 - 75);
  });

  it("same event from two writers at once: one posting", async () => {
    const firm = await insertFirm(store, 1);
    const draft = deposit(firm, 7000);
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => repos.ledger.post(store.db, draft)));
    expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
    expect(new Set(outcomes.map((o) => o.posting.id)).size).toBe(1);
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(7000 - 105);
  });

  it("refuses a posting that does not sum to zero, has one entry, or is not in lira; nothing of it stays", async () => {
    const before = await postings();
    expect(await refusal(rawPosting([line("equity", 100), line("firm:1", -99)]))).toBe(
      "ledger_posting_unbalanced",
    );
    expect(await refusal(rawPosting([line("equity", 0), line("firm:1", 0)]))).toBe("ledger_entry_amount");
    expect(await refusal(rawPosting([line("equity", 1.5), line("firm:1", -1.5)]))).toBe(
      "ledger_entry_amount",
    );
    expect(await refusal(rawPosting([line("equity", 100)]))).toBe("ledger_posting_too_few_entries");
    expect(await refusal(rawPosting([line("equity", 100, "EUR"), line("firm:1", -100, "EUR")]))).toBe(
      "ledger_entry_try_only",
    );
    expect(
      await refusal(rawPosting([line("equity", 100), { ...line("firm:1", -100), account: "firm:x" }])),
    ).toBe("ledger_account_key");
    expect(await postings()).toBe(before);
    // The repository names the same rules before a round trip.
    const firm = await insertFirm(store, 1);
    const bad = deposit(firm, 1000);
    bad.lines[0] = { ...bad.lines[0], amount: 999 } as PostingDraft["lines"][number];
    await expect(repos.ledger.post(store.db, bad)).rejects.toBeInstanceOf(LedgerPostingError);
    await expect(repos.ledger.post(store.db, bad)).rejects.toMatchObject({
      rule: "ledger_posting_unbalanced",
    });
  });

  it("refuses an entry written outside its posting's own insert", async () => {
    const firm = await insertFirm(store, 1);
    const { posting } = await repos.ledger.post(store.db, deposit(firm, 2000));
    const account = await store.db
      .selectFrom("ledger_accounts")
      .select("id")
      .where("key", "=", firmAccount(firm))
      .executeTakeFirstOrThrow();
    const sneak = (amount: number) =>
      sql`INSERT INTO ledger_entries (posting_id, account_id, kind, amount, currency, at)
          VALUES (${posting.id}, ${account.id}, 'deposit', ${amount}, 'TRY', ${T0})`;
    // Both refuse at once: the posting is complete.
    expect(
      await refusal(
        store.db.transaction().execute(async (trx) => {
          await sneak(500).execute(trx);
          await sneak(-500).execute(trx);
        }),
      ),
    ).toBe("ledger_entry_outside_posting");
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(2000 - 30);
    const entries = await store.db
      .selectFrom("ledger_entries")
      .select("id")
      .where("posting_id", "=", posting.id)
      .execute();
    expect(entries).toHaveLength(4);
  });

  it("never updates or deletes an entry or a posting", async () => {
    const firm = await insertFirm(store, 1);
    const { posting } = await repos.ledger.post(store.db, deposit(firm, 3000));
    const writes = [
      sql`UPDATE ledger_entries SET amount = amount * 2 WHERE posting_id = ${posting.id}`,
      sql`DELETE FROM ledger_entries WHERE posting_id = ${posting.id}`,
      sql`UPDATE ledger_postings SET memo = 'changed' WHERE id = ${posting.id}`,
      sql`DELETE FROM ledger_postings WHERE id = ${posting.id}`,
      ...(kind === "postgres" ? [sql`TRUNCATE ledger_entries CASCADE`] : []),
    ];
    for (const write of writes) expect(await refusal(write.execute(store.db))).toBe("ledger_immutable");
    expect(await repos.ledger.posting(posting.id)).toEqual(posting);
  });

  it("a posting within the caller's transaction goes or stays with it", async () => {
    const firm = await insertFirm(store, 1);
    await expect(
      store.db.transaction().execute(async (trx) => {
        await repos.ledger.post(trx, deposit(firm, 4000));
        throw new Error("the decision failed");
      }),
    ).rejects.toThrow("the decision failed");
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(0);
    await store.db.transaction().execute((trx) => repos.ledger.post(trx, deposit(firm, 4000)));
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(4000 - 60);
  });

  it("a correction is a new posting naming the one it corrects", async () => {
    const firm = await insertFirm(store, 1);
    const { posting } = await repos.ledger.post(store.db, deposit(firm, 10_000));
    const cash = await repos.ledger.balance(cashAccount(IBAN));
    const reversal = await repos.ledger.correct(store.db, {
      corrects: posting.id,
      at: T0 + 1000,
      actor: "admin",
      memo: "approved by mistake",
    });
    expect(reversal?.posting).toMatchObject({
      kind: "correction",
      corrects: posting.id,
      key: `reversal:${posting.id}`,
    });
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(0);
    expect(await repos.ledger.balance(cashAccount(IBAN))).toBe(cash - 10_000);
    // Reversed once, however often asked.
    const again = await repos.ledger.correct(store.db, {
      corrects: posting.id,
      at: T0 + 2000,
      actor: "admin",
      memo: "approved by mistake",
    });
    expect(again?.replayed).toBe(true);
    expect(await repos.ledger.posting(posting.id)).toEqual(posting);
    expect(
      await repos.ledger.correct(store.db, { corrects: 9_999_999, at: T0, actor: "a", memo: "m" }),
    ).toBeUndefined();
    // The database takes a correction only of an earlier posting.
    const bad = sql`INSERT INTO ledger_postings (idempotency_key, kind, at, actor, corrects, lines)
      VALUES ('raw:bad-correction', 'correction', ${T0}, 'test', 9999999,
      ${JSON.stringify([line("equity", 1), line("opening", -1)])})`;
    expect(await refusal(bad.execute(store.db))).toBe("ledger_correction_unknown");
  });

  it("money held for nobody and later given to a deposit is cash once", async () => {
    const firm = await insertFirm(store, 1);
    const cash = await repos.ledger.balance(cashAccount(IBAN));
    const suspense = await repos.ledger.balance("suspense");
    await repos.ledger.post(
      store.db,
      lineHeld({ lineId: 77, iban: IBAN, amount: 2500, at: T0, actor: "service:reconcile" }),
    );
    await repos.ledger.post(
      store.db,
      depositApproved({
        transactionId: ++seq,
        firmId: firm,
        amount: 2500,
        commission: { commission: 0, net: 2500, capped: false },
        source: { heldLineId: 77 },
        at: T0 + 1,
        actor: "operator:1",
      }),
    );
    expect(await repos.ledger.balance(cashAccount(IBAN))).toBe(cash + 2500);
    expect(await repos.ledger.balance("suspense")).toBe(suspense);
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(2500);
  });

  it("a firm's commission schedules, the one in force by date", async () => {
    const firm = await insertFirm(store, 1);
    const base = { firmId: firm, kind: "deposit" as const, fixed: 0, min: null, max: null };
    expect(await repos.commissions.inForce(firm, "deposit", T0)).toBeUndefined();
    await repos.commissions.addAll([{ ...base, percentBp: 150, fromAt: T0 }], "admin", T0);
    await repos.commissions.addAll([{ ...base, percentBp: 200, fromAt: T0 + 86_400_000 }], "admin", T0);
    await repos.commissions.addAll([{ ...base, kind: "withdrawal", percentBp: 50, fromAt: T0 }], "admin", T0);
    expect(await repos.commissions.addAll([{ ...base, percentBp: 1, fromAt: T0 }], "admin", T0)).toEqual({
      ok: false,
      reason: "exists",
      kind: "deposit",
    });
    expect((await repos.commissions.inForce(firm, "deposit", T0 - 1)) ?? null).toBeNull();
    expect((await repos.commissions.inForce(firm, "deposit", T0 + 5))?.percentBp).toBe(150);
    expect((await repos.commissions.inForce(firm, "deposit", T0 + 86_400_000))?.percentBp).toBe(200);
    expect((await repos.commissions.inForce(firm, "withdrawal", T0 + 86_400_000))?.percentBp).toBe(50);
    expect(await repos.commissions.list(firm)).toHaveLength(3);
  });
});
