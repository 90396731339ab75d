import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutageRun, outageUnderLoad, startOnPostgres } from "../support/db-outage.js";

/**
 * The real thing: the PostgreSQL server itself is restarted (fast mode: every session cut) while
 * deposits flow. It restarts the server every other suite uses, so it runs only when
 * PAYINTAKE_REAL_PG_RESTART=1, which .ci/run sets for a run of its own after the whole suite.
 */
const run = promisify(execFile);
const cluster = () => readdirSync("/etc/postgresql")[0] ?? "15";

describe.runIf(process.env.PAYINTAKE_REAL_PG_RESTART === "1")("PostgreSQL server restarted mid-load", () => {
  let outage: OutageRun;
  beforeAll(async () => {
    outage = await startOnPostgres();
  });
  afterAll(async () => {
    await outage?.close();
  });

  it("fails cleanly during the restart, recovers by itself, one transaction per reference", async () => {
    const result = await outageUnderLoad(outage, async (probeReady) => {
      const restart = run("pg_ctlcluster", [
        "--skip-systemctl-redirect",
        cluster(),
        "main",
        "restart",
        "-m",
        "fast",
      ]);
      // While it restarts the store cannot answer; the probe says so (or the restart was quicker).
      const status = await probeReady();
      expect([200, 503]).toContain(status);
      await restart;
      for (let i = 0; i < 50; i++) {
        if (
          await run("pg_isready", ["-q", "-h", "127.0.0.1"]).then(
            () => true,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 200));
      }
    });
    console.log(
      `real PostgreSQL restart: ${result.answered} deposits answered 200, ${result.failed} failed cleanly and were retried`,
    );
  }, 120_000);
});
