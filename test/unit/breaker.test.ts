import { describe, expect, it } from "vitest";
import {
  admit,
  type BreakerConfig,
  closedBreaker,
  dueForProbe,
  heardOpen,
  probed,
  probeStarted,
  record,
} from "../../src/routing/breaker.js";

const cfg: BreakerConfig = {
  consecutiveFailures: 3,
  failureRatio: 0.5,
  minSamples: 10,
  windowMs: 30_000,
  coolDownMs: 10_000,
};

describe("channel circuit breaker", () => {
  it("opens after three failures in a row, skips while open, probes once after the cool-down", () => {
    let s = closedBreaker();
    for (let i = 0; i < 2; i++) s = record(s, true, 1_000 + i, cfg);
    expect(s.mode).toBe("closed");
    expect(admit(s, 1_002, cfg).decision).toBe("ask");
    s = record(s, true, 1_003, cfg);
    expect(s.mode).toBe("open");
    expect(admit(s, 1_004, cfg).decision).toBe("skip");
    expect(admit(s, 11_002, cfg).decision).toBe("skip");
    const probe = admit(s, 11_003, cfg);
    expect(probe.decision).toBe("probe");
    expect(probe.state.mode).toBe("half_open");
    // While the probe is out, everyone else still skips.
    expect(admit(probe.state, 11_004, cfg).decision).toBe("skip");
  });

  it("a successful probe closes it; a failed probe opens it for another cool-down", () => {
    let s = closedBreaker();
    for (let i = 0; i < 3; i++) s = record(s, true, i, cfg);
    const probe = admit(s, 20_000, cfg).state;
    expect(record(probe, false, 20_100, cfg).mode).toBe("closed");
    const reopened = record(probe, true, 20_100, cfg);
    expect(reopened.mode).toBe("open");
    expect(admit(reopened, 30_099, cfg).decision).toBe("skip");
    expect(admit(reopened, 30_100, cfg).decision).toBe("probe");
  });

  it("opens on a failure ratio over the window, even without three in a row", () => {
    let s = closedBreaker();
    for (let i = 0; i < 10; i++) s = record(s, i % 2 === 0, i * 100, cfg);
    expect(s.mode).toBe("open");
  });

  it("forgets failures older than the window, and a success resets the run", () => {
    let s = closedBreaker();
    for (let i = 0; i < 9; i++) s = record(s, i % 3 !== 2, i, cfg);
    expect(s.mode).toBe("closed");
    let t = closedBreaker();
    for (let i = 0; i < 6; i++) t = record(t, true, i * 40_000, cfg);
    // A run of failures counts however far apart they are.
    expect(t.mode).toBe("open");
    let u = closedBreaker();
    u = record(u, true, 0, cfg);
    u = record(u, true, 1, cfg);
    u = record(u, false, 2, cfg);
    u = record(u, true, 3, cfg);
    expect(u.mode).toBe("closed");
    expect(u.recent).toEqual([{ second: 0, asks: 4, failures: 3 }]);
    expect(record(u, true, 40_000, cfg).recent).toEqual([{ second: 40, asks: 1, failures: 1 }]);
  });

  it("costs the same per ask however busy the channel: at most one entry per second of the window", () => {
    let s = closedBreaker();
    // 1,000 asks a second for 40 s, one in ten failed: never trips, never grows past the window.
    for (let i = 0; i < 40_000; i++) s = record(s, i % 10 === 0, i, cfg);
    expect(s.mode).toBe("closed");
    expect(s.recent.length).toBeLessThanOrEqual(cfg.windowMs / 1000 + 1);
    expect(s.recent.reduce((n, b) => n + b.asks, 0)).toBeGreaterThanOrEqual(29_000);
  });

  describe("with background probes", () => {
    const opened = () => {
      let s = closedBreaker();
      for (let i = 0; i < 3; i++) s = record(s, true, 1_000 + i, cfg);
      return s;
    };

    it("skips every ask while open, after the cool-down too; one probe is due per cool-down", () => {
      const s = opened();
      expect(admit(s, 50_000, cfg, true).decision).toBe("skip");
      expect(dueForProbe(s, 11_001, cfg)).toBe(false);
      expect(dueForProbe(s, 11_002, cfg)).toBe(true);
      const probing = probeStarted(s);
      expect(dueForProbe(probing, 30_000, cfg)).toBe(false);
      expect(admit(probing, 30_000, cfg, true).decision).toBe("skip");
      expect(dueForProbe(closedBreaker(), 30_000, cfg)).toBe(false);
    });

    it("up closes it; down opens it for another cool-down; unsure lets the next ask be the probe", () => {
      const probing = probeStarted(opened());
      expect(probed(probing, "up", 12_000)).toEqual(closedBreaker());
      const down = probed(probing, "down", 12_000);
      expect(down).toMatchObject({ mode: "open", openedAt: 12_000, probing: false });
      expect(dueForProbe(down, 21_999, cfg)).toBe(false);
      expect(dueForProbe(down, 22_000, cfg)).toBe(true);
      const unsure = probed(probing, "unsure", 12_000);
      expect(unsure).toMatchObject({ mode: "half_open", probing: false });
      const gate = admit(unsure, 12_001, cfg, true);
      expect(gate.decision).toBe("probe");
      expect(admit(gate.state, 12_002, cfg, true).decision).toBe("skip");
      expect(record(gate.state, false, 12_100, cfg).mode).toBe("closed");
    });

    it("an ask that failed late leaves the probe in flight; one that succeeded late closes it for good", () => {
      const probing = probeStarted(opened());
      const late = record(probing, true, 11_500, cfg);
      expect(late).toMatchObject({ mode: "open", probing: true });
      expect(dueForProbe(late, 40_000, cfg)).toBe(false);
      const closed = record(probing, false, 11_500, cfg);
      expect(closed.mode).toBe("closed");
      expect(probed(closed, "down", 12_000).mode).toBe("closed");
    });
  });

  it("another instance's opening opens a closed breaker here; an open or probing one is left as it is", () => {
    const s = heardOpen(closedBreaker(), 5_000);
    expect(s).toMatchObject({ mode: "open", openedAt: 5_000, probing: false });
    expect(admit(s, 5_001, cfg, true).decision).toBe("skip");
    expect(dueForProbe(s, 15_000, cfg)).toBe(true);
    const probing = probeStarted(s);
    expect(heardOpen(probing, 9_000)).toBe(probing);
    const half = probed(probing, "unsure", 16_000);
    expect(heardOpen(half, 16_001)).toBe(half);
  });
});
