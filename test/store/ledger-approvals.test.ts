import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callbackDraft } from "../../src/callbacks/message.js";
import { cashAccount, firmAccount, inTransitAccount } from "../../src/domain/ledger.js";
import { approvalPosting } from "../../src/ledger/approval-posting.js";
import type { DecisionWrite } from "../../src/store/decisions/decisions.js";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

const IBAN = "TR000000000000000000000001";
const T0 = Date.parse("2026-12-01T09:00:00Z");

/**
 * Every approval posts in its own database transaction (store/decisions/decisions.ts,
 * ledger/approval-posting.ts): a deposit credits the firm less its commission in force and debits
 * the payment account's cash; a withdrawal approved by hand debits the firm, its commission too, into
 * its transit; a rejection, or a test firm's approval, posts nothing; a decision made twice posts once.
 */
describe.each(STORES)("approvals post to the ledger (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repos: Repositories;
  let account: number;
  let seq = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repos = createRepositories(store);
    account = await insertAccount(store, T0);
  });
  afterAll(async () => {
    await close?.();
  });

  async function firmWith(commission: { deposit?: number; withdrawal?: number }, sandbox = 0) {
    const firm = await insertFirm(store, T0, { sandbox });
    for (const k of ["deposit", "withdrawal"] as const) {
      const bp = commission[k];
      if (bp === undefined) continue;
      const schedule = { firmId: firm, kind: k, percentBp: bp, fixed: 100, min: null, max: null, fromAt: T0 };
      expect((await repos.commissions.addAll([schedule], "test", T0)).ok).toBe(true);
    }
    return firm;
  }

  async function pending(firmId: number, type: "deposit" | "withdrawal", amount: number) {
    const row = { ...depositRow({ firmId, accountId: account, amount, reference: `L-${++seq}` }, T0), type };
    const inserted = await store.db
      .insertInto("transactions")
      .values(row)
      .returning("id")
      .executeTakeFirstOrThrow();
    return Number(inserted.id);
  }

  const decide = (transactionId: number, status: "approved" | "rejected", amount: number) => {
    const write: DecisionWrite = {
      transactionId,
      status,
      amount,
      originalAmount: null,
      decidedBy: "operator:1",
      note: null,
      now: T0 + 60_000,
      callback: (d) => callbackDraft(d, { callbackMiddleName: false }),
      posting: approvalPosting,
    };
    return repos.decisions.decide(write);
  };

  it("a deposit approved: the firm is owed its amount less the commission, the cash holds it all", async () => {
    const firm = await firmWith({ deposit: 150 });
    const id = await pending(firm, "deposit", 20_000);
    // Approved at an edited amount: the posting takes the final one.
    expect(await decide(id, "approved", 19_000)).toMatchObject({ ok: true });
    const commission = Math.floor((19_000 * 150 + 5_000) / 10_000) + 100;
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(19_000 - commission);
    const posting = await repos.ledger.postingByKey(`deposit-approved:${id}`);
    expect(posting?.lines).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ account: cashAccount(IBAN), amount: 19_000 }),
        expect.objectContaining({ account: "commission", amount: -commission }),
      ]),
    );
    expect(posting?.actor).toBe("operator:1");
    // Decided again: refused as decided, and nothing posts a second time.
    expect(await decide(id, "approved", 19_000)).toMatchObject({ ok: false, reason: "not_pending" });
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(19_000 - commission);
  });

  it("a withdrawal approved by hand: out of the firm with its commission, into transit", async () => {
    const firm = await firmWith({ deposit: 0, withdrawal: 100 });
    const d = await pending(firm, "deposit", 50_000);
    const w = await pending(firm, "withdrawal", 30_000);
    expect(await decide(d, "approved", 50_000)).toMatchObject({ ok: true });
    expect(await decide(w, "approved", 30_000)).toMatchObject({ ok: true });
    const depositFee = 100;
    const withdrawalFee = 300 + 100;
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(50_000 - depositFee - 30_000 - withdrawalFee);
    expect(await repos.ledger.balance(inTransitAccount(firm))).toBe(30_000);
  });

  it("a rejection, or a test firm's approval, posts nothing", async () => {
    const firm = await firmWith({ deposit: 150 });
    const rejected = await pending(firm, "deposit", 10_000);
    expect(await decide(rejected, "rejected", 10_000)).toMatchObject({ ok: true });
    expect(await repos.ledger.postingByKey(`deposit-approved:${rejected}`)).toBeUndefined();
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(0);

    const sandbox = await firmWith({ deposit: 150 }, 1);
    const test = await pending(sandbox, "deposit", 10_000);
    expect(await decide(test, "approved", 10_000)).toMatchObject({ ok: true });
    expect(await repos.ledger.postingByKey(`deposit-approved:${test}`)).toBeUndefined();
  });

  it("a firm without a commission is owed the whole amount", async () => {
    const firm = await firmWith({});
    const id = await pending(firm, "deposit", 12_345);
    expect(await decide(id, "approved", 12_345)).toMatchObject({ ok: true });
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(12_345);
  });
});
