import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OutageRun, outageUnderLoad, startOnPostgres } from "../support/db-outage.js";
import { PG_BASE_URL, STORES } from "../support/harness.js";
import { startTcpProxy, type TcpProxy } from "../support/tcp-proxy.js";

/**
 * The database goes away for one service without touching the PostgreSQL the other suites share:
 * a proxy in front of it cuts every connection and refuses new ones for a second. (The real server
 * restart is pg-restart.test.ts, which CI runs on its own after the suite.)
 */
describe.runIf(STORES.includes("postgres"))("PostgreSQL cut mid-load (through a proxy)", () => {
  let proxy: TcpProxy;
  let run: OutageRun;
  beforeAll(async () => {
    const base = new URL(PG_BASE_URL);
    proxy = await startTcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
    run = await startOnPostgres((url) => {
      url.port = String(proxy.port);
      return url;
    });
  });
  afterAll(async () => {
    await run?.close();
    await proxy?.close();
  });

  it("fails cleanly while it is down, recovers by itself, and retries by reference end with one transaction each", async () => {
    const result = await outageUnderLoad(run, async (probeReady) => {
      proxy.down();
      await expect.poll(probeReady).toBe(503);
      // The outage lasts a while under load: deposits meanwhile fail.
      await new Promise((r) => setTimeout(r, 700));
      proxy.up();
    });
    expect(result.answered).toBeGreaterThan(10);
  });
});
