import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/config.js";

/**
 * docs/configuration.md's table: the default and the range it gives each variable are the ones
 * the schema applies (config-docs.test.ts checks the names). A default changed in the code (the
 * keep-alive timeout's 5 s becoming 65 s) must not leave the table naming the old one.
 */
interface Row {
  name: string;
  defaultText: string;
  meaning: string;
}

function rows(): Row[] {
  const page = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
  const section = page.split(/^# Configuration\n/m)[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \| (.*?) \| (.*) \|$/gm)].map((m) => ({
    name: m[1] as string,
    defaultText: m[2] as string,
    meaning: m[3] as string,
  }));
}

/** The settings parsed from `env`, without the list of unknown names. */
const settled = (env: Record<string, string>) => {
  const { unknownVariables: _, ...rest } = parseConfig(env);
  return rest;
};

describe("docs/configuration.md's table, defaults and ranges", () => {
  const table = rows();

  it("is read", () => {
    expect(table.length).toBeGreaterThan(20);
  });

  // A default written as one literal (`65000`, `false`, `info`): setting it changes nothing.
  const literal = table.filter((r) => /^`[^`]+`$/.test(r.defaultText) && r.name !== "PAYINTAKE_URL");
  it.each(literal.map((r) => [r.name, r.defaultText.slice(1, -1)]))("%s defaults to %s", (name, value) => {
    expect(settled({ [name]: value })).toEqual(settled({}));
  });

  // A range written "(A to B" in the meaning: both ends are taken, one step beyond either is refused.
  const ranged = table.flatMap((r) => {
    const m = /\((\d+) to (\d+)[;),]/.exec(r.meaning);
    return m ? [[r.name, Number(m[1]), Number(m[2])] as const] : [];
  });
  it("names a range for the numeric settings that have one", () => {
    expect(ranged.length).toBeGreaterThan(5);
  });
  it.each(ranged)("%s takes %d to %d", (name, min, max) => {
    // The callback lease must stay at least twice the timeout, and the console's heartbeat below a
    // silent connection's allowance: keep the timeout and the heartbeat low while testing them.
    const env = (v: number) => ({
      PAYINTAKE_CALLBACK_TIMEOUT_MS: "100",
      PAYINTAKE_CONSOLE_HEARTBEAT_MS: "100",
      [name]: String(v),
    });
    expect(() => parseConfig(env(min))).not.toThrow();
    expect(() => parseConfig(env(max))).not.toThrow();
    if (min > 0) expect(() => parseConfig(env(min - 1))).toThrow();
    expect(() => parseConfig(env(max + 1))).toThrow();
  });
});
