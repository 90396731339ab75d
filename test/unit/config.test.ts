import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config/config.js";

describe("config: PAYINTAKE_TRUST_PROXY", () => {
  it("is empty by default and takes addresses and CIDR ranges", () => {
    expect(parseConfig({}).trustProxy).toEqual([]);
    expect(parseConfig({ PAYINTAKE_TRUST_PROXY: "10.0.0.1, 10.1.0.0/16,::1,fd00::/8" }).trustProxy).toEqual([
      "10.0.0.1",
      "10.1.0.0/16",
      "::1",
      "fd00::/8",
    ]);
  });
  it.each(["true", "10.0.0.1/33", "proxy.internal", "10.0.0.0/8/1", "::1/129"])(
    "refuses %s naming the variable",
    (v) => {
      expect(() => parseConfig({ PAYINTAKE_TRUST_PROXY: v })).toThrow(ConfigError);
      expect(() => parseConfig({ PAYINTAKE_TRUST_PROXY: v })).toThrow(
        /PAYINTAKE_TRUST_PROXY must be IP addresses/,
      );
    },
  );
});

describe("config: roles and the metrics token", () => {
  it("api and worker roles need PostgreSQL; the embedded store runs one process", () => {
    expect(() => parseConfig({ PAYINTAKE_ROLE: "worker" })).toThrow(
      /PAYINTAKE_ROLE: api and worker need DATABASE_URL/,
    );
    expect(parseConfig({ PAYINTAKE_ROLE: "api", DATABASE_URL: "postgres://x/y" }).role).toBe("api");
    expect(parseConfig({}).role).toBe("all");
  });
  it("a metrics token must be long enough to guess hard", () => {
    expect(() => parseConfig({ PAYINTAKE_METRICS_TOKEN: "short" })).toThrow(/PAYINTAKE_METRICS_TOKEN/);
  });
});

describe("config: the console's heartbeat", () => {
  it("is 25 s by default and stays under the server's 60 s idle timeout, which would cut the stream", () => {
    expect(parseConfig({}).consoleHeartbeatMs).toBe(25_000);
    expect(parseConfig({ PAYINTAKE_CONSOLE_HEARTBEAT_MS: "50000" }).consoleHeartbeatMs).toBe(50_000);
    expect(() => parseConfig({ PAYINTAKE_CONSOLE_HEARTBEAT_MS: "90000" })).toThrow(
      /PAYINTAKE_CONSOLE_HEARTBEAT_MS/,
    );
  });
});

describe("config: how long the console holds a decision", () => {
  it("is 5 s by default, 0 sends at once, and more than 30 s is refused naming the variable", () => {
    expect(parseConfig({}).consoleUndoSeconds).toBe(5);
    expect(parseConfig({ PAYINTAKE_CONSOLE_UNDO_SECONDS: "0" }).consoleUndoSeconds).toBe(0);
    for (const bad of ["31", "-1", "2.5", "soon"])
      expect(() => parseConfig({ PAYINTAKE_CONSOLE_UNDO_SECONDS: bad })).toThrow(
        /PAYINTAKE_CONSOLE_UNDO_SECONDS/,
      );
  });
});

describe("config: the console's idle sign-out", () => {
  it("is 15 minutes by default (PCI DSS 8.2.8), 5 to 720, and anything else is refused naming the variable", () => {
    expect(parseConfig({}).consoleIdleMinutes).toBe(15);
    expect(parseConfig({ PAYINTAKE_CONSOLE_IDLE_MINUTES: "5" }).consoleIdleMinutes).toBe(5);
    expect(parseConfig({ PAYINTAKE_CONSOLE_IDLE_MINUTES: "720" }).consoleIdleMinutes).toBe(720);
    for (const bad of ["4", "0", "721", "-5", "7.5", "soon"])
      expect(() => parseConfig({ PAYINTAKE_CONSOLE_IDLE_MINUTES: bad })).toThrow(
        /PAYINTAKE_CONSOLE_IDLE_MINUTES must be a whole number from 5 to 720/,
      );
  });
});

describe("config: idle keep-alive connections", () => {
  it("stay 65 s by default, above a load balancer's 60 s, and a value out of 1 s to 15 min is refused naming the variable", () => {
    expect(parseConfig({}).keepAliveTimeoutMs).toBe(65_000);
    expect(parseConfig({ PAYINTAKE_KEEP_ALIVE_TIMEOUT_MS: "620000" }).keepAliveTimeoutMs).toBe(620_000);
    for (const bad of ["999", "900001", "5s"])
      expect(() => parseConfig({ PAYINTAKE_KEEP_ALIVE_TIMEOUT_MS: bad })).toThrow(
        /PAYINTAKE_KEEP_ALIVE_TIMEOUT_MS/,
      );
  });
});

describe("config: every bad setting said at once, in words", () => {
  it("names each bad number with its range, all in one message", () => {
    let message = "";
    try {
      parseConfig({ PORT: "abc", PAYINTAKE_PG_POOL_SIZE: "1.5", LOG_LEVEL: "loud" });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(
      message
        .split("\n")
        .slice(1)
        .map((l) => l.trim()),
    ).toEqual([
      "PORT must be a number from 0 to 65535",
      "PAYINTAKE_PG_POOL_SIZE must be a whole number from 1 to 200",
      "LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent",
    ]);
    expect(() => parseConfig({ PORT: "70000" })).toThrow(/PORT must be a number from 0 to 65535/);
  });
});

describe("config: a silent connection's allowance", () => {
  it("is 60 s by default, and the console's heartbeat must stay below it", () => {
    expect(parseConfig({}).connectionSilenceMs).toBe(60_000);
    expect(
      parseConfig({ PAYINTAKE_CONNECTION_SILENCE_MS: "6000", PAYINTAKE_CONSOLE_HEARTBEAT_MS: "1000" }),
    ).toMatchObject({
      connectionSilenceMs: 6_000,
      consoleHeartbeatMs: 1_000,
    });
    expect(() => parseConfig({ PAYINTAKE_CONNECTION_SILENCE_MS: "20000" })).toThrow(
      /PAYINTAKE_CONSOLE_HEARTBEAT_MS must be below PAYINTAKE_CONNECTION_SILENCE_MS/,
    );
  });
});
