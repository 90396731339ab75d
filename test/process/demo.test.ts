import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

/**
 * `npm run demo` is `npm run build` then this script; the test suite has built already, so it runs
 * the script the same way and expects every step and exit code 0.
 */
describe("npm run demo", () => {
  it("runs the example merchant through direct and hosted deposits and exits 0", () => {
    const root = new URL("../../", import.meta.url).pathname;
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/demo.ts"], {
      cwd: root,
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    for (const text of [
      "a sandbox firm was created",
      "the payer is told to send 150.00 TL to Sandbox Bank",
      "player-1's balance is 150.00 TL",
      "already credited; balance still 150.00 TL",
      "(channel_declined); nothing was created",
      "credited player-3 with 250.00 TL",
      "done:",
    ]) {
      expect(run.stdout).toContain(text);
    }
  });
});
