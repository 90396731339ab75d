import { createHash } from "node:crypto";
import { request } from "undici";
import type { StoreKind } from "../shared/payintake.js";
import { adminJson } from "../shared/timed-http.js";
import {
  addAccount,
  loadAverage,
  log,
  makeWithdrawals,
  memoryKb,
  resetPeak,
  startReceiver,
  startScene,
} from "./scene.js";

/**
 * A batch of PAYOUTS_BATCH (10,000) waiting withdrawals to a pain.001.001.09 file (issue 47: under
 * 5 s with under 50 MB above the server's resting memory). The withdrawals are made through the
 * merchant API; the server then rests, its resident size is read, and its peak (VmHWM, reset just
 * before each step) is read after `POST …/payouts/batches` and after the file's last byte.
 */
export interface BatchRun {
  kind: StoreKind;
  payouts: number;
  fillSeconds: number;
  createSeconds: number;
  fileFirstByteSeconds: number;
  fileSeconds: number;
  fileBytes: number;
  restingMb: number;
  createPeakAboveMb: number;
  filePeakAboveMb: number;
  load: number;
}

const FORMAT = "pain.001.001.09";
const TAG = "</CdtTrfTxInf>";

export async function batchRun(kind: StoreKind, count: number): Promise<BatchRun> {
  const receiver = await startReceiver();
  const scene = await startScene(kind, receiver.url);
  try {
    const account = await addAccount(scene);
    log(`${kind}: making ${count} withdrawals`);
    const fillSeconds = await makeWithdrawals(scene, count, "B");
    log(`${kind}: made in ${fillSeconds.toFixed(1)} s; resting`);
    await new Promise((r) => setTimeout(r, 3_000));
    const pid = scene.server.child.pid;
    const resting = memoryKb(pid, "VmRSS");
    const load = loadAverage();

    resetPeak(pid);
    const t0 = performance.now();
    const made = await adminJson(scene.url, scene.token, "POST", "/admin/v1/payouts/batches", {
      account: account.id,
      max_count: count,
      actor: "bench",
    });
    const createSeconds = (performance.now() - t0) / 1000;
    const createPeak = memoryKb(pid, "VmHWM");
    if (made.payouts !== count || made.stage !== "batched")
      throw new Error(`batch: ${JSON.stringify(made)} (expected ${count} payouts, batched)`);

    resetPeak(pid);
    const t1 = performance.now();
    const res = await request(
      `${scene.url}/admin/v1/payouts/batches/${made.batch}/file?format=${FORMAT}&actor=bench`,
      { headers: { authorization: `Bearer ${scene.token}` } },
    );
    let firstByte = Number.NaN;
    let bytes = 0;
    let transfers = 0;
    let carry = "";
    const hash = createHash("sha256");
    for await (const chunk of res.body) {
      if (Number.isNaN(firstByte)) firstByte = performance.now();
      const buf = chunk as Buffer;
      bytes += buf.length;
      hash.update(buf);
      const text = carry + buf.toString("latin1");
      transfers += text.split(TAG).length - 1;
      carry = text.slice(-(TAG.length - 1));
    }
    const fileSeconds = (performance.now() - t1) / 1000;
    const filePeak = memoryKb(pid, "VmHWM");
    if (res.statusCode !== 200) throw new Error(`file answered ${res.statusCode}`);
    if (transfers !== count) throw new Error(`file holds ${transfers} transfers, not ${count}`);
    log(
      `${kind}: batch ${createSeconds.toFixed(2)} s, file ${fileSeconds.toFixed(2)} s (${(bytes / 1e6).toFixed(1)} MB, sha256 ${hash.digest("hex").slice(0, 12)}), peaks above resting ${((createPeak - resting) / 1024).toFixed(0)} / ${((filePeak - resting) / 1024).toFixed(0)} MB`,
    );
    return {
      kind,
      payouts: count,
      fillSeconds,
      createSeconds,
      fileFirstByteSeconds: (firstByte - t1) / 1000,
      fileSeconds,
      fileBytes: bytes,
      restingMb: resting / 1024,
      createPeakAboveMb: (createPeak - resting) / 1024,
      filePeakAboveMb: (filePeak - resting) / 1024,
      load,
    };
  } finally {
    await scene.close();
    await receiver.close();
  }
}
