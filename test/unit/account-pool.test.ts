import { describe, expect, it } from "vitest";
import type { AccountCandidate } from "../../src/routing/account-order.js";
import { createAccountPool } from "../../src/routing/account-pool.js";

type Stored = Omit<AccountCandidate, "lastAssignedAt">;

const stored = (id: number, over: Partial<Stored> = {}): Stored => ({
  id,
  bankName: `Bank ${id}`,
  holderName: "Holder",
  iban: `TR${id}`,
  minAmount: null,
  maxAmount: null,
  active: true,
  ...over,
});

function pool(initial: Stored[], ttlMs = 1_000) {
  let rows = initial;
  let loads = 0;
  let monotonic = 0;
  const p = createAccountPool({
    async load() {
      loads += 1;
      return { accounts: rows.map((r) => ({ ...r })), channels: [], liveFirms: [] };
    },
    now: () => 1_000,
    ttlMs,
    monotonic: () => monotonic,
  });
  return {
    p,
    setRows: (r: Stored[]) => {
      rows = r;
    },
    advance: (ms: number) => {
      monotonic += ms;
    },
    loads: () => loads,
  };
}

describe("account pool", () => {
  it("rotates equal accounts in turn, even within one millisecond", async () => {
    const { p } = pool([stored(1), stored(2), stored(3)]);
    const picked: number[] = [];
    for (let i = 0; i < 7; i++) picked.push((await p.assign(100))?.id ?? -1);
    expect(picked).toEqual([1, 2, 3, 1, 2, 3, 1]);
  });

  it("rotates fairly when deposits arrive concurrently", async () => {
    const { p, loads } = pool([stored(1), stored(2)]);
    const ids = await Promise.all(Array.from({ length: 10 }, () => p.assign(100)));
    const counts = new Map<number, number>();
    for (const a of ids) counts.set(a?.id ?? -1, (counts.get(a?.id ?? -1) ?? 0) + 1);
    expect(counts).toEqual(
      new Map([
        [1, 5],
        [2, 5],
      ]),
    );
    expect(loads()).toBe(1);
  });

  it("only picks accounts whose range covers the amount, and null when none does", async () => {
    const { p } = pool([stored(1, { maxAmount: 1_000 }), stored(2, { minAmount: 50_000 })]);
    expect((await p.assign(500))?.id).toBe(1);
    expect((await p.assign(60_000))?.id).toBe(2);
    expect(await p.assign(10_000)).toBeNull();
  });

  it("reads the pool again after the TTL, keeping the rotation where it was", async () => {
    const { p, setRows, advance, loads } = pool([stored(1), stored(2)], 1_000);
    expect((await p.assign(100))?.id).toBe(1);
    setRows([stored(1), stored(2), stored(3)]);
    advance(999);
    expect((await p.assign(100))?.id).toBe(2);
    expect(loads()).toBe(1);
    advance(1);
    // Account 3 is new and has never been used: it goes first, then 1, which waited longest.
    expect((await p.assign(100))?.id).toBe(3);
    expect((await p.assign(100))?.id).toBe(1);
    expect(loads()).toBe(2);
  });

  it("invalidate makes the next deposit see a deactivated account gone at once", async () => {
    const { p, setRows } = pool([stored(1), stored(2)]);
    expect((await p.assign(100))?.id).toBe(1);
    setRows([stored(1)]);
    p.invalidate();
    expect((await p.assign(100))?.id).toBe(1);
    expect((await p.assign(100))?.id).toBe(1);
  });

  it("a read that an invalidation overtook is not cached", async () => {
    let release: () => void = () => {};
    let rows = [stored(1)];
    let loads = 0;
    const p = createAccountPool({
      async load() {
        loads += 1;
        const snapshot = rows.map((r) => ({ ...r }));
        if (loads === 1) await new Promise<void>((r) => (release = r));
        return { accounts: snapshot, channels: [], liveFirms: [] };
      },
      now: () => 1,
      ttlMs: 60_000,
    });
    const first = p.assign(100);
    rows = [stored(2)];
    p.invalidate();
    release();
    expect((await first)?.id).toBe(1);
    expect((await p.assign(100))?.id).toBe(2);
    expect(loads).toBe(2);
  });
});
