import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import type { Store } from "../../src/store/engine/open.js";
import { accountDayUse } from "../../src/store/migrations/20261201T1100_account_day_use.js";
import { type CapHoldRepository, createCapHoldRepository } from "../../src/store/routing/cap-holds.js";
import { STORES, type StoreKind } from "../support/harness.js";
import { pauseAfterStatement } from "../support/pause.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore, undoMigration } from "../support/store.js";

/** Daily cap holds on a real store of each kind: judged and written in one transaction. */
describe.each(STORES)("daily cap holds (%s)", (kind: StoreKind) => {
  let close: () => Promise<void>;
  let store: Store;
  let holds: CapHoldRepository;
  const others: Store[] = [];
  const DAY = startOfTurkeyDay(1_800_000_000_000);
  const NOW = DAY + 5_000;

  beforeAll(async () => {
    const fresh = await freshStore(kind);
    ({ store, close } = fresh);
    holds = createCapHoldRepository(store.db, store.dialect);
    // On PostgreSQL, two more stores play two more instances on the same database.
    if (kind === "postgres") for (let i = 0; i < 2; i++) others.push(await fresh.open());
  });
  afterAll(async () => {
    await close?.();
  });

  const account = (dailyCap: number | null) => insertAccount(store, NOW, dailyCap);
  let firmId: number | undefined;
  async function firm(): Promise<number> {
    firmId ??= await insertFirm(store, NOW);
    return firmId;
  }
  /** A pending deposit on the account, written through the given store, as intake writes it. */
  async function insertDeposit(s: Store, accountId: number, amount: number, reference: string) {
    const row = depositRow({ firmId: await firm(), accountId, amount, reference }, NOW);
    await s.db.insertInto("transactions").values(row).execute();
  }
  let holdSeq = 0;
  const hold = async (
    accountId: number,
    amountMinor: number,
    now = NOW,
    repo = holds,
    reference = `H-${++holdSeq}`,
  ) =>
    repo.hold({
      firmId: await firm(),
      reference,
      accountId,
      amountMinor,
      since: DAY,
      now,
      expiresAt: now + 60_000,
      capShare: null,
      // No default share: these tests are of the cap alone (the share's test gives its own).
      defaultCapShare: 100,
    });

  it("holds up to the cap, then refuses; a released hold frees its amount; an expired one stops counting", async () => {
    const id = await account(30_000);
    const first = await hold(id, 15_000);
    expect(first.outcome).toBe("held");
    expect((await hold(id, 15_000)).outcome).toBe("held");
    expect((await hold(id, 1)).outcome).toBe("full");
    expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(30_000);
    if (first.outcome !== "held") throw new Error("unreachable");
    await holds.release(first.id);
    expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(15_000);
    expect((await hold(id, 15_000)).outcome).toBe("held");
    // A minute later nobody released them (an instance that stopped): they no longer count.
    const later = NOW + 60_001;
    expect((await hold(id, 30_000, later)).outcome).toBe("held");
    await holds.purgeExpired(later);
    expect((await holds.usage([id], DAY, later)).get(id)).toBe(30_000);
  });

  it("a deposit counts by its hold until it is written, by itself after: never both", async () => {
    const id = await account(30_000);
    const held = await hold(id, 10_000, NOW, holds, "R-once");
    await insertDeposit(store, id, 10_000, "R-once");
    // Written, its hold not yet released: counted once, and room is left for 200.
    expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(10_000);
    expect((await hold(id, 20_000)).outcome).toBe("held");
    if (held.outcome !== "held") throw new Error("unreachable");
    await holds.release(held.id);
    expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(30_000);
  });

  it("the day's sum follows every change to a deposit, through the triggers that keep it", async () => {
    const id = await account(1_000_000);
    const used = async () => (await holds.usage([id], DAY, NOW)).get(id) ?? 0;
    const ref = (r: string) => `S-${kind}-${r}`;
    const row = async (r: string, amount: number, at = NOW) =>
      depositRow({ firmId: await firm(), accountId: id, amount, reference: ref(r) }, at);
    // A batch in one statement (PostgreSQL sums its rows once), and the day before, which does not count.
    await store.db
      .insertInto("transactions")
      .values([await row("a", 10_000), await row("b", 20_000), await row("c", 40_000, DAY - 1)])
      .execute();
    expect(await used()).toBe(30_000);
    const set = async (r: string, values: Record<string, unknown>) =>
      store.db.updateTable("transactions").set(values).where("reference", "=", ref(r)).execute();
    // Approved as asked: nothing moves. Approved with another amount: that amount counts.
    await set("a", { status: "approved" });
    expect(await used()).toBe(30_000);
    await set("a", { amount: 12_500 });
    expect(await used()).toBe(32_500);
    // Rejected: its amount is free again; back to pending (a correction): counted again.
    await set("b", { status: "rejected" });
    expect(await used()).toBe(12_500);
    await set("b", { status: "pending" });
    expect(await used()).toBe(32_500);
    // Moved to yesterday, or gone: no longer today's.
    await set("b", { created_at: DAY - 10 });
    expect(await used()).toBe(12_500);
    await store.db.deleteFrom("transactions").where("reference", "=", ref("a")).execute();
    expect(await used()).toBe(0);
    // Asked from a moment that is not a day's start: refused, never a sum of something else.
    await expect(holds.usage([id], DAY + 1, NOW)).rejects.toThrow(/not a day's start/);
  });

  it("a store that had deposits before the migration: since yesterday's start they are summed by it", async () => {
    const id = await account(1_000_000);
    const now = Date.now();
    const today = startOfTurkeyDay(now);
    const yesterday = today - 86_400_000;
    const ref = (r: string) => `M-${kind}-${r}`;
    const row = async (r: string, amount: number, at: number) =>
      depositRow({ firmId: await firm(), accountId: id, amount, reference: ref(r) }, at);
    const undo =
      kind === "postgres"
        ? `DROP TRIGGER account_day_use_insert ON transactions; DROP TRIGGER account_day_use_update ON transactions;
           DROP TRIGGER account_day_use_delete ON transactions; DROP FUNCTION account_day_use_added();
           DROP FUNCTION account_day_use_moved(); DROP TABLE account_day_use`
        : `DROP TRIGGER account_day_use_insert; DROP TRIGGER account_day_use_leave;
           DROP TRIGGER account_day_use_enter; DROP TRIGGER account_day_use_delete; DROP TABLE account_day_use`;
    await undoMigration(store, accountDayUse.version, undo.split(";"));
    await store.db
      .insertInto("transactions")
      .values([
        await row("today", 10_000, now),
        { ...(await row("rejected", 5_000, now)), status: "rejected" },
        { ...(await row("approved", 7_000, today)), status: "approved" },
        await row("yesterday", 20_000, yesterday + 1),
        await row("long-ago", 40_000, yesterday - 86_400_000),
      ])
      .execute();
    expect(await store.migrate()).toEqual([accountDayUse.version]);
    const usedOn = async (day: number) => (await holds.usage([id], day, now)).get(id) ?? 0;
    expect(await usedOn(today)).toBe(17_000);
    expect(await usedOn(yesterday)).toBe(20_000);
    // Before yesterday: never asked for (caps are today's), so not summed.
    expect(await usedOn(yesterday - 86_400_000)).toBe(0);
    // And kept from then on.
    await store.db
      .insertInto("transactions")
      .values(await row("after", 1_000, now))
      .execute();
    expect(await usedOn(today)).toBe(18_000);
  });

  it("a firm without its own share takes the default share of a cap only while another live firm shares the account", async () => {
    const id = await account(10_000);
    const firmA = await insertFirm(store, NOW, { name: "A" });
    const request = (firmId: number, amountMinor: number, capShare: number | null = null) =>
      holds.hold({
        firmId,
        reference: `D-${++holdSeq}`,
        accountId: id,
        amountMinor,
        since: DAY,
        now: NOW,
        expiresAt: NOW + 60_000,
        capShare,
        defaultCapShare: 40,
      });
    // The other firms of this store are live: A may take 40 % of 100.00, and no more.
    expect((await request(firmA, 4_000)).outcome).toBe("held");
    expect((await request(firmA, 1)).outcome).toBe("full");
    // Its own share wins over the default: 100 is the whole cap, said explicitly.
    expect((await request(firmA, 1_000, 100)).outcome).toBe("held");
    // Alone (every other firm switched off, a test firm or closed to deposits): the whole cap.
    const others = await store.db.selectFrom("firms").select("id").where("id", "!=", firmA).execute();
    const ids = others.map((o) => o.id);
    await store.db.updateTable("firms").set({ active: 0 }).where("id", "in", ids).execute();
    const sandbox = await insertFirm(store, NOW, { name: "Test", sandbox: 1 });
    const closed = await insertFirm(store, NOW, { name: "Closed", deposits_open: 0 });
    expect((await request(firmA, 3_000)).outcome).toBe("held");
    // A second live firm again: A is past its default share of the account.
    const live = await insertFirm(store, NOW, { name: "B" });
    expect((await request(firmA, 1)).outcome).toBe("full");
    expect((await request(live, 1)).outcome).toBe("held");
    await store.db
      .updateTable("firms")
      .set({ active: 0 })
      .where("id", "in", [live, sandbox, closed])
      .execute();
    await store.db.updateTable("firms").set({ active: 1 }).where("id", "in", ids).execute();
  });

  it("an account without a cap holds nothing", async () => {
    const id = await account(null);
    expect((await hold(id, 15_000)).outcome).toBe("uncapped");
    expect((await holds.usage([id], DAY, NOW)).get(id)).toBeUndefined();
  });

  it.runIf(kind === "postgres")(
    "holds asked by three instances at the same moment never pass the cap together",
    async () => {
      const id = await account(100_000);
      const repos = [holds, ...others.map((s) => createCapHoldRepository(s.db, s.dialect))];
      const outcomes = await Promise.all(
        Array.from({ length: 36 }, (_, i) => hold(id, 10_000, NOW, repos[i % repos.length])),
      );
      // Without the account row locked, each transaction sums before the others insert: most pass.
      expect(outcomes.filter((o) => o.outcome === "held")).toHaveLength(10);
      expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(100_000);
    },
  );

  it.runIf(kind === "postgres")(
    "a hold judged while another deposit is written and its hold released counts that deposit once",
    async () => {
      const id = await account(30_000);
      const [a, b] = others.map((s) => createCapHoldRepository(s.db, s.dialect));
      if (!a || !b) throw new Error("two more instances expected");
      const firstHold = await hold(id, 15_000, NOW, a, "R-between");
      expect((await hold(id, 15_000, NOW, b)).outcome).toBe("held");
      // The third instance's hold stops after its second statement (the first locks the account),
      // and meanwhile the first deposit is written and its hold released, as routing does.
      const pause = pauseAfterStatement({ n: 2 });
      const third = createCapHoldRepository(store.db.withPlugin(pause.plugin), store.dialect);
      const judged = hold(id, 15_000, NOW, third);
      await pause.reached;
      await insertDeposit(others[0] as Store, id, 15_000, "R-between");
      if (firstHold.outcome !== "held") throw new Error("unreachable");
      await a.release(firstHold.id);
      pause.go();
      // 150 written and 150 held: the cap of 300 is full (read apart, the deposit was summed
      // before it was written and its hold after it was released, and a third 150 went through).
      expect((await judged).outcome).toBe("full");
    },
  );

  it.runIf(kind === "postgres")(
    "deposits held, written and released by three instances at once never pass the cap",
    async () => {
      // As routing does it: hold, write the deposit, then release the hold (the deposit counts by
      // itself from then on). A hold judged between another deposit's write and its release must
      // count it once: neither would pass the cap, both would refuse a deposit there was room for.
      const cap = 150;
      const id = await account(cap * 100);
      const stores = [store, ...others];
      let seq = 0;
      async function deposit(s: Store) {
        const repo = createCapHoldRepository(s.db, s.dialect);
        const reference = `R-${++seq}`;
        const held = await hold(id, 100, NOW, repo, reference);
        if (held.outcome !== "held") return false;
        await insertDeposit(s, id, 100, reference);
        await repo.release(held.id);
        return true;
      }
      // Twelve callers per store, each trying until the account is full for it.
      await Promise.all(
        stores.flatMap((s) =>
          Array.from({ length: 12 }, async () => {
            for (let i = 0; i < 20; i++) if (!(await deposit(s))) return;
          }),
        ),
      );
      const written = await store.db
        .selectFrom("transactions")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("account_id", "=", id)
        .executeTakeFirstOrThrow();
      // Each caller stopped at its first refusal, and a refusal means full: exactly the cap.
      expect(Number(written.n)).toBe(cap);
      expect((await holds.usage([id], DAY, NOW)).get(id)).toBe(Number(written.n) * 100);
    },
  );
});
