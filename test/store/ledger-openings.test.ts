import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openingProposal } from "../../src/ledger/manual.js";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { PROPOSAL_SLICE } from "../../src/store/ledger/openings.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

const T0 = Date.parse("2026-12-01T09:00:00Z");

/**
 * What an upgrade's ledger starts from (docs/ledger.md, "Opening balances"): each real firm's and
 * bank account's approvals decided before the ledger's first posting, summed a slice of ids at a
 * time; test firms, pending and rejected transactions and what the ledger posted are left out.
 */
describe.each(STORES)("opening balances proposed (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repos: Repositories;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repos = createRepositories(store);
  });
  afterAll(async () => {
    await close?.();
  });

  it("sums what was decided before the ledger began, across slices, per firm and per IBAN", async () => {
    const account = await insertAccount(store, T0);
    const firm = await insertFirm(store, T0);
    const other = await insertFirm(store, T0);
    const sandbox = await insertFirm(store, T0, { sandbox: 1 });
    let seq = 0;
    const row = (firmId: number, type: "deposit" | "withdrawal", status: string, amount: number) => ({
      ...depositRow({ firmId, accountId: account, amount, reference: `O-${++seq}` }, T0),
      type,
      status: status as "approved",
      decided_at: T0 + 1_000,
    });
    const rows = [
      row(firm, "deposit", "approved", 10_000),
      row(firm, "withdrawal", "approved", 2_500),
      row(firm, "deposit", "rejected", 99_900),
      row(firm, "deposit", "pending", 77_700),
      row(other, "deposit", "approved", 1_234),
      row(sandbox, "deposit", "approved", 55_500),
    ];
    await store.db.insertInto("transactions").values(rows).execute();
    // Ids past the first slice: the sums go on over every slice.
    const far = { ...row(firm, "deposit", "approved", 1_000), id: PROPOSAL_SLICE * 2 + 7 };
    await store.db.insertInto("transactions").values(far).execute();
    const proposal = await openingProposal({ repos, now: () => T0 + 60_000 });
    expect(proposal.since).toBe(new Date(T0 + 60_000).toISOString());
    expect(proposal.firms.sort((a, b) => a.firm - b.firm)).toEqual([
      { firm, deposits: "110.00", withdrawals: "25.00", proposed: "85.00", set: null },
      { firm: other, deposits: "12.34", withdrawals: "0.00", proposed: "12.34", set: null },
    ]);
    expect(proposal.accounts).toEqual([
      { accounts: [account], deposits: "122.34", withdrawals: "25.00", proposed: "97.34", set: null },
    ]);
  });
});
