import { waitForQuiet } from "../shared/load.js";
import { benchKillsUnderLoad, type KillsResult } from "./kills-under-load.js";
import { busyVerdict, type CallbackLoadRun, callbacksLoadSection, killsVerdict } from "./section.js";
import { type BusyResult, benchBusyReceiver, type Track } from "./under-load.js";

/**
 * The callbacks under a saturating deposit load, as `npm run bench` runs them (deposits/run.ts):
 * the busy receiver without hanging first attempts, then with them, then the worker kills; each
 * case on fresh instances and a fresh schema, after a quiet second if one comes.
 */
export async function runLoadCases(opts: {
  cwd: string;
  rate: number;
  seconds: number;
  hangShare: number;
  quietSeconds: number;
  log: (line: string) => void;
  track: Track;
}): Promise<CallbackLoadRun> {
  const { cwd, rate, seconds, track, log } = opts;
  const run: CallbackLoadRun = {};
  const started = performance.now();
  const quiet = async () => {
    if (opts.quietSeconds > 0 && !(await waitForQuiet(opts.quietSeconds)))
      log(`the machine stayed busy for ${opts.quietSeconds} s; measuring anyway`);
  };
  try {
    for (const hangShare of [0, opts.hangShare]) {
      await quiet();
      const r = await benchBusyReceiver({ cwd, rate, seconds, hangShare, track });
      if (hangShare === 0) run.healthy = r;
      else run.hanging = r;
      log(`callbacks under load, ${hangShare * 100} % hanging: ${busyLine(r)}`);
    }
    if (run.healthy && run.hanging)
      log(`callbacks under load: targets ${busyVerdict(run.healthy, run.hanging) ? "held" : "MISSED"}`);
    await quiet();
    run.kills = await benchKillsUnderLoad({ cwd, rate, seconds, track });
    log(
      `callbacks under load, worker killed: ${killsLine(run.kills)}; target ${killsVerdict(run.kills) ? "held" : "MISSED"}`,
    );
  } catch (err) {
    log(`callbacks under load failed: ${(err as Error).message}`);
    run.failure = (err as Error).message.split("\n", 1)[0];
  }
  log(`callbacks under load took ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return run;
}

/** The callbacks-load section, placed before the routing section the first time. */
export const loadDocSection = (date: string, version: string, run: CallbackLoadRun) => ({
  name: "callbacks-load",
  body: callbacksLoadSection(date, version, run),
  before: "routing",
});

/** Measured, and no callback lost (missed targets are only reported). */
export const loadComplete = (run: CallbackLoadRun | undefined) =>
  !run?.failure && (run?.kills?.missing ?? 0) === 0;

const f0 = (x: number) => x.toFixed(0);

function busyLine(r: BusyResult): string {
  return (
    `${r.count} callbacks (${r.hung} hung) decision → arrival p50 ${f0(r.p50)} ms, p99 ${f0(r.p99)} ms, ` +
    `max ${f0(r.max)} ms (from sending the approval ${f0(r.fromSending.p50)} / ${f0(r.fromSending.p99)} / ` +
    `${f0(r.fromSending.max)} ms), ` +
    `missing ${r.missing}, hung delivered later ${r.hungDelivered}, at most ${r.maxHeld} held at once; approvals answered p99 ${f0(r.approval.p99)} ms; ` +
    `p50 / p99 of approval sent → answered ${f0(r.stages.decision.p50)} / ${f0(r.stages.decision.p99)} ms, ` +
    `answered → first attempt ${f0(r.stages.afterAnswer.p50)} / ${f0(r.stages.afterAnswer.p99)} ms ` +
    `(${r.attemptedBeforeAnswer} before the answer), first attempt → arrival ${f0(r.stages.send.p50)} / ` +
    `${f0(r.stages.send.p99)} ms; slowest ${f0(r.slowest.total)} ms = ${f0(r.slowest.decision)} + ` +
    `${f0(r.slowest.afterAnswer)} + ${f0(r.slowest.send)}; ` +
    `deposits ${f0(r.flood.okPerSecond)}/s (p99 ${f0(r.flood.p99)} ms, ${r.flood.non2xx} non-2xx, ` +
    `${r.flood.errors} errors), machine busy ${f0(r.flood.machineBusyPct)} % (steal ${r.flood.stealPct.toFixed(1)} %), cores: api ` +
    `${r.flood.apiCores.map((c) => c.toFixed(2)).join(" + ")}, postgres ${r.flood.dbCores.toFixed(2)}, ` +
    `worker ${r.flood.workerCores.toFixed(2)}, flood ${r.flood.floodCores.toFixed(2)}`
  );
}

function killsLine(k: KillsResult): string {
  const kills = k.kills.map((x) => `${x.atS.toFixed(1)} s (restart ${f0(x.restartMs)} ms)`).join(", ");
  return (
    `${k.callbacks} callbacks, kills at ${kills}; ${k.interrupted} attempts interrupted; pending 60 s after ` +
    `the load ${k.pendingAt60}, last arrival ${(k.lastAfterLoadMs / 1000).toFixed(1)} s after it, delivered ` +
    `later ${k.deliveredLater}, lost ${k.missing}, failed ${k.failed}; due at a restart ${k.dueAfterRestart.count} ` +
    `(p99 ${f0(k.dueAfterRestart.p99)} ms, max ${f0(k.dueAfterRestart.max)} ms); held by the dead worker ` +
    `${k.heldByDead.count} (max ${f0(k.heldByDead.max)} ms after the kill); an attempt number twice ` +
    `${k.repeatedAttemptNumbers}; deposits ${f0(k.flood.okPerSecond)}/s, machine busy ${f0(k.flood.machineBusyPct)} % (steal ${k.flood.stealPct.toFixed(1)} %)`
  );
}
