import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "../../src/config/config.js";
import { requireSharedSecrets } from "../../src/main/start-up.js";

/** Issue 49, point 6: a PostgreSQL start missing its shared secrets names all of them at once. */
describe("the secrets every PostgreSQL instance shares", () => {
  const url = { DATABASE_URL: "postgres://postgres@127.0.0.1:5432/test" };
  const key = { PAYINTAKE_MASTER_KEY: "a".repeat(64) };
  const token = { PAYINTAKE_ADMIN_TOKEN: "t".repeat(32) };
  /** The settings a report names, in its order; none when `read` throws nothing. */
  const named = (read: () => unknown) => {
    try {
      read();
      return [];
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message
        .split("\n")
        .slice(1)
        .map((l) => l.trim().split(/[: ]/)[0]);
    }
  };
  const missing = (env: Record<string, string>) => named(() => requireSharedSecrets(parseConfig(env)));

  it("names both when both are missing, each alone when one is", () => {
    expect(missing(url)).toEqual(["PAYINTAKE_MASTER_KEY", "PAYINTAKE_ADMIN_TOKEN"]);
    expect(missing({ ...url, ...key })).toEqual(["PAYINTAKE_ADMIN_TOKEN"]);
    expect(missing({ ...url, ...token })).toEqual(["PAYINTAKE_MASTER_KEY"]);
    expect(missing({ ...url, ...key, ...token })).toEqual([]);
  });

  it("asks nothing of the embedded store, which keeps its own in the data directory", () => {
    expect(missing({})).toEqual([]);
  });

  it("a server's start names every bad and missing setting in one report, whatever kind", () => {
    const report = (env: Record<string, string>) => named(() => parseConfig(env, { serving: true }));
    // A bad port, a bad pool size and both secrets missing: one report, not four starts.
    expect(report({ ...url, PORT: "99999", PAYINTAKE_PG_POOL_SIZE: "0" })).toEqual([
      "PORT",
      "PAYINTAKE_PG_POOL_SIZE",
      "PAYINTAKE_MASTER_KEY",
      "PAYINTAKE_ADMIN_TOKEN",
    ]);
    // An api-only instance on the embedded store, with a bad port beside it.
    expect(report({ PAYINTAKE_ROLE: "api", PORT: "x" })).toEqual(["PORT", "PAYINTAKE_ROLE"]);
    // An operator command needs no store secret: only its own settings are read.
    expect(() => parseConfig(url)).not.toThrow();
  });
});
