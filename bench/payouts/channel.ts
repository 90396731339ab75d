import { startChannelSimulator } from "../../src/routing/channels/simulator.js";
import type { StoreKind } from "../shared/payintake.js";
import { adminJson } from "../shared/timed-http.js";
import {
  addAccount,
  loadAverage,
  log,
  makeWithdrawals,
  quantile,
  startReceiver,
  startScene,
} from "./scene.js";

/**
 * A payout through a payout channel from its release to the merchant's callback (issue 47: p99
 * under 2 s), the channel simulator answering "paid" at once and the account allowing its final
 * word to approve (`channel_final_approves`). Two shapes: CHANNEL_SINGLES batches of one payout
 * released one after another, and one batch of CHANNEL_BATCH payouts released at once (the channel
 * is sent four at a time), each payout timed from the release's start. The callback worker keeps
 * its default poll; the payment pokes it.
 */
export interface Latencies {
  samples: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface ChannelRun {
  kind: StoreKind;
  singles: Latencies;
  batch: Latencies & { releaseMs: number };
  load: number;
}

function latencies(times: number[]): Latencies {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    samples: sorted.length,
    p50Ms: quantile(sorted, 0.5),
    p99Ms: quantile(sorted, 0.99),
    maxMs: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

interface Released {
  stage: string;
  outcomes: Record<string, number>;
  items: { transaction_id: number; stage: string }[];
}

export async function channelRun(
  kind: StoreKind,
  opts: { singles: number; batch: number },
): Promise<ChannelRun> {
  const receiver = await startReceiver();
  const sim = await startChannelSimulator({ payoutBehaviour: { kind: "payout-paid" } });
  const scene = await startScene(kind, receiver.url);
  try {
    await adminJson(scene.url, scene.token, "POST", "/admin/v1/channels", {
      code: "PAYBENCH",
      kind: "http",
      url: sim.url,
      timeout_ms: 2_000,
    });
    const account = await addAccount(scene, { channel: "PAYBENCH" });
    await adminJson(scene.url, scene.token, "PATCH", "/admin/v1/payouts/settings", {
      account: account.id,
      channel_final_approves: true,
      actor: "bench",
    });
    const batchOf = async (max: number) => {
      const made = await adminJson(scene.url, scene.token, "POST", "/admin/v1/payouts/batches", {
        account: account.id,
        max_count: max,
        actor: "bench",
      });
      if (made.payouts !== max || made.stage !== "batched") throw new Error(`batch: ${JSON.stringify(made)}`);
      return made.batch as number;
    };
    const release = async (batch: number): Promise<Released> => {
      const r = await adminJson(
        scene.url,
        scene.token,
        "POST",
        `/admin/v1/payouts/batches/${batch}/release`,
        { actor: "bench" },
        200,
      );
      if (r.outcomes.paid !== r.items.length) throw new Error(`release: ${JSON.stringify(r.outcomes)}`);
      return r;
    };

    log(`${kind}: ${opts.singles} payouts released one at a time`);
    await makeWithdrawals(scene, opts.singles, "C1");
    const load = loadAverage();
    const single: number[] = [];
    for (let i = 0; i < opts.singles; i++) {
      const batch = await batchOf(1);
      const started = performance.now();
      const r = await release(batch);
      single.push((await receiver.arrival(r.items[0]?.transaction_id as number)) - started);
    }

    log(`${kind}: one batch of ${opts.batch} payouts released at once`);
    await makeWithdrawals(scene, opts.batch, "C2");
    const batch = await batchOf(opts.batch);
    const started = performance.now();
    const r = await release(batch);
    const releaseMs = performance.now() - started;
    const times = await Promise.all(
      r.items.map(async (item) => (await receiver.arrival(item.transaction_id)) - started),
    );
    const out: ChannelRun = {
      kind,
      singles: latencies(single),
      batch: { ...latencies(times), releaseMs },
      load,
    };
    log(
      `${kind}: singles p50 ${out.singles.p50Ms.toFixed(0)} p99 ${out.singles.p99Ms.toFixed(0)} ms; batch p99 ${out.batch.p99Ms.toFixed(0)} ms (release answered in ${releaseMs.toFixed(0)} ms)`,
    );
    return out;
  } finally {
    await scene.close();
    await sim.close();
    await receiver.close();
  }
}
