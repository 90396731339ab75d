import { createSecretBox } from "../../src/crypto/secret-box.js";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import type { Child } from "../shared/children.js";
import { createKeptStore, type KeptStore, openKeptStore, startServer } from "../shared/kept-store.js";
import type { StoreKind } from "../shared/payintake.js";
import { type Answer, timedRequest } from "../shared/timed-http.js";
import { ROOT } from "../shared/tree.js";
import type { VolumeConfig } from "./config.js";
import { measure, type PathResult, type Timing } from "./measure.js";
import { type Provisioned, provision, signIn } from "./provision.js";
import { type Fixture, fixtureFor } from "./rows.js";
import { type SeedResult, seedStep } from "./seed.js";

/**
 * The console's summary on a busy day (issue 50): a fresh store per store kind holding `size`
 * transactions made in today's Türkiye day, from its start to now, `busyPending` of them pending
 * throughout the day and the rest decided with their callbacks and audit entries, as the grown
 * stores' rows are (rows.ts, seed.ts). The summary is what operators keep open on such a day, and
 * the one screen whose work follows today's rows rather than a page: it is timed over HTTP, and
 * its answer checked to count the day's transactions (a day cut in two by midnight would not).
 */
export interface BusyDayResult {
  kind: StoreKind;
  /** Transactions seeded into today. */
  size: number;
  pending: number;
  seed: SeedResult;
  /** Today's transactions as the summary counted them (the test firm's left out). */
  counted: number;
  summary: PathResult;
}

export type Log = (line: string) => void;
export type Cleanups = (() => Promise<void>)[];

/** The busy day's rows: spread evenly from the start of today in Türkiye to `end`. */
export function busyFixture(
  cfg: Pick<VolumeConfig, "seed">,
  parts: Pick<Fixture, "firms" | "liveAccounts" | "sandboxAccount">,
  size: number,
  pending: number,
  end: number,
): Fixture {
  return {
    seed: cfg.seed,
    end,
    gapMs: (end - startOfTurkeyDay(end)) / size,
    maxSize: size,
    pendingWindow: size,
    pendingShare: Math.min(1, pending / size),
    firms: parts.firms,
    liveAccounts: parts.liveAccounts,
    sandboxAccount: parts.sandboxAccount,
  };
}

/** A store holding a busy day, made ready by the server of the checkout at `cwd`. */
export interface BusyStore {
  vs: KeptStore;
  prov: Provisioned;
  seed: SeedResult;
  cwd: string;
}

/**
 * `day`: every row made today (busyFixture). `month`: the rows spread over the 30 days up to now,
 * with the volume section's shape (rows.ts: the pending among the newest half day's, a stuck
 * withdrawal every 2,000 rows).
 */
export type BusyShape = "day" | "month";

export async function prepareBusyStore(
  kind: StoreKind,
  size: number,
  cfg: VolumeConfig,
  cwd: string,
  cleanups: Cleanups,
  log: Log,
  shape: BusyShape = "day",
): Promise<BusyStore> {
  const vs = await createKeptStore(kind);
  cleanups.push(vs.remove);
  const prov = await serving(vs, cwd, cleanups, (server) => provision(server.url, vs.adminToken));
  // A minute back: the server's clock reads the rows' day as the same one.
  const end = Date.now() - 60_000;
  if (startOfTurkeyDay(end + 30 * 60_000) !== startOfTurkeyDay(end))
    log(`${kind}: busy day: Türkiye's midnight is less than 30 minutes away; the day may turn meanwhile`);
  const fx =
    shape === "day"
      ? busyFixture(cfg, prov, size, cfg.busyPending, end)
      : fixtureFor(
          { seed: cfg.seed, perDay: Math.round(size / 30), pending: cfg.busyPending, sizes: [size] },
          prov,
          end,
        );
  const store = await openKeptStore(vs, { seeding: true });
  try {
    log(`${kind}: busy ${shape}: seeding ${size.toLocaleString("en-US")} transactions`);
    const seed = await seedStep(store, fx, createSecretBox(vs.masterKey), { from: 0, to: size }, log);
    log(`${kind}: busy day: seeded in ${seed.seconds.toFixed(1)} s`);
    return { vs, prov, seed, cwd };
  } finally {
    await store.close();
  }
}

/** Removes the store, or keeps it (VOLUME_KEEP=1) and logs its settings. */
export async function dropBusyStore(busy: BusyStore, cleanups: Cleanups, log: Log): Promise<void> {
  cleanups.splice(cleanups.indexOf(busy.vs.remove), 1);
  if (process.env.VOLUME_KEEP === "1")
    log(`${busy.vs.kind}: busy-day store kept (VOLUME_KEEP=1): ${JSON.stringify({ env: busy.vs.env })}`);
  else
    await busy.vs
      .remove()
      .catch((err: Error) => log(`${busy.vs.kind}: removing the store failed: ${err.message}`));
}

/** The summary as a signed-in admin asks for it; the first answer is checked and counted. */
export async function summaryCaller(
  server: Child,
  prov: Provisioned,
): Promise<{ get: () => Promise<Answer>; counted: number }> {
  const session = await signIn(server.url, prov.operator);
  const get = () =>
    timedRequest(server.url, "GET", "/ops/api/dashboard", { cookie: session.cookie }, undefined, true);
  const first = await get();
  if (first.status !== 200) throw new Error(`the summary answered ${first.status}: ${first.text}`);
  const view = JSON.parse(first.text) as { deposits: { count: number }; withdrawals: { count: number } };
  return { get, counted: view.deposits.count + view.withdrawals.count };
}

export async function measureBusyDay(
  kind: StoreKind,
  size: number,
  cfg: VolumeConfig,
  timing: Timing,
  cleanups: Cleanups,
  log: Log,
): Promise<BusyDayResult> {
  const busy = await prepareBusyStore(kind, size, cfg, ROOT, cleanups, log);
  try {
    return await serving(busy.vs, ROOT, cleanups, async (server) => {
      const { get, counted } = await summaryCaller(server, busy.prov);
      const summary = await measure("summary (dashboard)", "console", timing, get);
      log(
        `${kind}: busy day ${size.toLocaleString("en-US")}: summary p50 ${summary.p50.toFixed(1)} ms, ` +
          `p99 ${summary.p99.toFixed(1)} ms; today's transactions counted: ${counted.toLocaleString("en-US")}`,
      );
      return { kind, size, pending: cfg.busyPending, seed: busy.seed, counted, summary };
    });
  } finally {
    await dropBusyStore(busy, cleanups, log);
  }
}

/** Runs `work` while the checkout at `cwd` serves the store; stops it whatever happens. */
export async function serving<T>(
  vs: KeptStore,
  cwd: string,
  cleanups: Cleanups,
  work: (server: Child) => Promise<T>,
): Promise<T> {
  const server = await startServer(vs, cwd);
  const stop = () => server.child.stop();
  cleanups.push(stop);
  try {
    return await work(server.child);
  } finally {
    cleanups.splice(cleanups.indexOf(stop), 1);
    await stop();
  }
}
