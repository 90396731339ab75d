import fc from "fast-check";
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ACCOUNT_KINDS,
  cashAccount,
  firmAccount,
  normalBalance,
  type PostingDraft,
  parseAccountKey,
} from "../../src/domain/ledger.js";
import { turkeyDayOf } from "../../src/domain/turkey-time.js";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";

const HOUR = 3_600_000;
const T0 = Date.parse("2026-11-20T21:30:00Z"); // 00:30 in Türkiye
const NOW = T0 + 6 * 24 * HOUR;

/**
 * The counters and day rows the posting's trigger keeps (ADR 0019) against the entries themselves:
 * after any sequence of postings (out of time order, replays included), every balance read, now or
 * as of any past moment, and every day's figures equal what a sum of the entries says.
 */
describe.each(STORES)("ledger balances (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let repos: Repositories;
  let run = 0;

  beforeAll(async () => {
    ({ store, close } = await freshStore(kind));
    repos = createRepositories(store);
  });
  afterAll(async () => {
    await close?.();
  });

  /** The sum of an account's entries with `at <= upTo`, on its normal side: the answer a balance must give. */
  async function summed(account: string, upTo = Number.MAX_SAFE_INTEGER) {
    const r = await sql<{ s: unknown }>`SELECT coalesce(sum(e.amount), 0) AS s FROM ledger_entries e
      JOIN ledger_accounts a ON a.id = e.account_id WHERE a.key = ${account} AND e.at <= ${upTo}`.execute(
      store.db,
    );
    const parsed = parseAccountKey(account);
    return parsed ? normalBalance(parsed.kind, Number(r.rows[0]?.s)) : 0;
  }

  const lineArb = fc.record({ slot: fc.nat(5), amount: fc.integer({ min: -5_000_000, max: 5_000_000 }) });
  const postingArb = fc.record({
    lines: fc.array(lineArb, { minLength: 1, maxLength: 3 }),
    offset: fc.integer({ min: 0, max: 5 * 24 * HOUR }),
    replay: fc.nat(3),
  });

  it("balances now, as of any moment, and each day's figures equal the sum of the entries", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(postingArb, { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 0, max: NOW - T0 }), { minLength: 3, maxLength: 3 }),
        async (steps, moments) => {
          run++;
          const firms = [await insertFirm(store, 1), await insertFirm(store, 1)];
          const iban = `TR${String(run).padStart(24, "0")}`;
          const accounts = [firmAccount(firms[0] ?? 0), firmAccount(firms[1] ?? 0), cashAccount(iban)];
          accounts.push("commission", "suspense", "equity");
          const posted: PostingDraft[] = [];
          for (const [i, step] of steps.entries()) {
            const earlier = posted[step.replay];
            if (step.replay === 0 && earlier) {
              expect((await repos.ledger.post(store.db, earlier)).replayed).toBe(true);
              continue;
            }
            const lines = step.lines
              .filter((l) => l.amount !== 0)
              .map((l) => ({
                account: accounts[l.slot] ?? "equity",
                amount: l.amount,
                kind: "adjustment" as const,
              }));
            const rest = -lines.reduce((s, l) => s + l.amount, 0);
            lines.push({ account: "opening", amount: rest === 0 ? 1 : rest, kind: "adjustment" });
            if (rest === 0) lines.push({ account: "equity", amount: -1, kind: "adjustment" });
            const draft: PostingDraft = {
              key: `prop:${run}:${i}`,
              kind: "adjustment",
              at: T0 + step.offset,
              actor: "test",
              corrects: null,
              memo: null,
              flag: null,
              lines,
            };
            if (lines.length < 2) continue;
            await repos.ledger.post(store.db, draft);
            posted.push(draft);
          }
          const first = await sql<{ m: unknown }>`SELECT min(at) AS m FROM ledger_postings`.execute(store.db);
          const ledgerBegan = Number(first.rows[0]?.m);
          for (const account of [...accounts, "opening"]) {
            expect(await repos.ledger.balance(account)).toBe(await summed(account));
            for (const m of moments) {
              const at = T0 + m;
              const read = await repos.ledger.balanceAt(account, at, NOW);
              if (at < ledgerBegan) expect(read).toEqual({ ok: false, reason: "before_ledger" });
              else expect(read).toEqual({ ok: true, balance: await summed(account, at) });
            }
          }
          // A firm's day: opening and closing are the balances as of its edges, the movements its entries.
          const firm = firms[0] ?? 0;
          const day = turkeyDayOf(T0 + (moments[0] ?? 0));
          const figures = await repos.ledger.dayFigures(firm, day, NOW);
          if (!figures.ok) throw new Error(figures.reason);
          const start = Date.parse(`${day}T00:00:00+03:00`);
          const own = posted.flatMap((p) =>
            p.lines.filter((l) => l.account === firmAccount(firm)).map((l) => ({ ...l, at: p.at })),
          );
          const side = (debit: number) => normalBalance("firm", debit);
          const upTo = (t: number) => side(own.filter((l) => l.at < t).reduce((s, l) => s + l.amount, 0));
          expect(figures.figures.available.opening).toBe(upTo(start));
          expect(figures.figures.available.closing).toBe(upTo(start + 24 * HOUR));
          expect(figures.figures.available.entries).toBe(
            own.filter((l) => l.at >= start && l.at < start + 24 * HOUR).length,
          );
        },
      ),
      { numRuns: kind === "postgres" ? 12 : 25 },
    );
  });

  it("refuses a balance at a moment to come", async () => {
    expect(await repos.ledger.balanceAt("equity", NOW + 1, NOW)).toEqual({ ok: false, reason: "future" });
    expect(await repos.ledger.dayFigures(1, "2026-13-40", NOW)).toEqual({ ok: false, reason: "bad_day" });
    expect(await repos.ledger.dayFigures(1, turkeyDayOf(NOW + 24 * HOUR), NOW)).toEqual({
      ok: false,
      reason: "future",
    });
    expect(ACCOUNT_KINDS.firm).toBe("credit");
  });
});

/**
 * Two instances posting to one firm at once on PostgreSQL: every posting lands once and the
 * counters stay exact (the shards spread them; a shard two postings share makes one wait).
 */
describe.skipIf(!STORES.includes("postgres"))("ledger balances under concurrent instances (postgres)", () => {
  let close: () => Promise<void>;
  let open: () => Promise<Store>;
  let store: Store;

  beforeAll(async () => {
    ({ store, close, open } = await freshStore("postgres", 6));
  });
  afterAll(async () => {
    await close?.();
  });

  it("keeps one firm's balance exact with two connections posting at once", async () => {
    const other = await open();
    const firm = await insertFirm(store, 1);
    const iban = "TR000000000000000000009999";
    const instances = [createRepositories(store), createRepositories(other)];
    const perInstance = 60;
    const draft = (n: number): PostingDraft => ({
      key: `deposit-approved:c${n}`,
      kind: "deposit_approved",
      at: T0 + n,
      actor: "test",
      corrects: null,
      memo: null,
      flag: null,
      lines: [
        { account: cashAccount(iban), amount: 1000 + n, kind: "deposit" },
        { account: firmAccount(firm), amount: -(1000 + n), kind: "deposit" },
        { account: firmAccount(firm), amount: 10, kind: "commission" },
        { account: "commission", amount: -10, kind: "commission" },
      ],
    });
    const stores = [store, other];
    await Promise.all(
      instances.map(async (repos, i) => {
        const db = stores[i] as Store;
        // Each posting in its own transaction, as a decision's, several in flight per instance;
        // every posting is also sent by the other instance (a retried event).
        const lanes = Array.from({ length: 3 }, async (_, lane) => {
          for (let k = lane; k < perInstance; k += 3) {
            const n = i * perInstance + k;
            await db.db.transaction().execute((trx) => repos.ledger.post(trx, draft(n)));
            await db.db
              .transaction()
              .execute((trx) => repos.ledger.post(trx, draft((n + perInstance) % (2 * perInstance))));
          }
        });
        await Promise.all(lanes);
      }),
    );
    const total = 2 * perInstance;
    const expected = Array.from({ length: total }, (_, n) => 1000 + n - 10).reduce((s, x) => s + x, 0);
    const repos = instances[0] as (typeof instances)[number];
    expect(await repos.ledger.balance(firmAccount(firm))).toBe(expected);
    expect(await repos.ledger.balance(cashAccount(iban))).toBe(expected + 10 * total);
    const counted = await sql<{ n: unknown }>`SELECT count(*) AS n FROM ledger_postings
      WHERE idempotency_key LIKE 'deposit-approved:c%'`.execute(store.db);
    expect(Number(counted.rows[0]?.n)).toBe(total);
    const shards = await sql<{ n: unknown }>`SELECT count(*) AS n FROM ledger_balances b
      JOIN ledger_accounts a ON a.id = b.account_id WHERE a.key = ${firmAccount(firm)}`.execute(store.db);
    expect(Number(shards.rows[0]?.n)).toBeGreaterThan(1);
  });
});
