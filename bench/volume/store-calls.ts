import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import { createRepositories } from "../../src/store/index.js";
import { type KeptStore, openKeptStore } from "../shared/kept-store.js";
import { storeBytes, storeDirectory } from "./disk.js";
import { measureStoreCall, type PathResult, type Timing } from "./measure.js";
import type { Fixture } from "./rows.js";

/**
 * What the service does without an HTTP request, timed by calling the repository functions it
 * calls, in this process, on the store as the service opens it (while no server runs: the embedded
 * store's file is one process's at a time):
 * - auto-cancel's scan (jobs/auto-cancel.ts): `decisions.autoCancel` with its batch of 20, every
 *   15 s on every instance; no seeded deposit is due, so this is the scan alone, as it mostly is;
 * - the daily-cap sum (routing/deposit-routing.ts): `capHolds.usage` over the capped accounts since
 *   the start of the day in Türkiye, once per live deposit.
 * Also the store's size on disk, and where its bytes land (for the next step's check of free space).
 */
const AUTO_CANCEL_BATCH = 20;

export interface StoreFigures {
  calls: PathResult[];
  bytes: number;
  directory: string | undefined;
}

export async function measureStoreCalls(vs: KeptStore, fx: Fixture, timing: Timing): Promise<StoreFigures> {
  const store = await openKeptStore(vs, { seeding: false });
  try {
    const repos = createRepositories(store);
    const capped = fx.liveAccounts.filter((a) => a.daily_cap !== null).map((a) => a.id);
    const calls = [
      await measureStoreCall("store call: auto-cancel's scan", timing, () =>
        repos.decisions.autoCancel(Date.now(), AUTO_CANCEL_BATCH, () => {
          // Throwing rolls the batch back: the bench measures the scan and decides nothing.
          throw new Error("a seeded deposit is due for auto-cancel; the seeding should leave none");
        }),
      ),
      await measureStoreCall("store call: daily-cap sum", timing, () => {
        const now = Date.now();
        return repos.capHolds.usage(capped, startOfTurkeyDay(now), now);
      }),
    ];
    return {
      calls,
      bytes: await storeBytes(store, vs.dataDir),
      directory: await storeDirectory(store, vs.dataDir),
    };
  } finally {
    await store.close();
  }
}
