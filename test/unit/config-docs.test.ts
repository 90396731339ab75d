import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CONFIG_VARIABLES } from "../../src/config/config.js";

/** The variables docs/configuration.md's table documents, in its first column. */
function documentedVariables(): string[] {
  const page = readFileSync(new URL("../../docs/configuration.md", import.meta.url), "utf8");
  const section = page.split(/^# Configuration\n/m)[1]?.split("\n## ")[0] ?? "";
  return [...section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` \|/gm)].map((m) => m[1] as string);
}

describe("docs/configuration.md's table", () => {
  it("lists every variable payintake reads, and none it does not", () => {
    const documented = documentedVariables();
    expect(documented.length).toBeGreaterThan(20);
    expect(new Set(documented).size).toBe(documented.length);
    expect([...documented].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });
});
