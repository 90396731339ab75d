import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REJECTIONS } from "../../src/intake/http/rejection-responses.js";
import { DEPOSIT_FIELDS, WITHDRAWAL_FIELDS } from "../../src/intake/requests.js";

/** The error catalogue in docs/errors.md and the code must never disagree. */
const catalogue = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
const sources = [
  "authenticate.ts",
  "common.ts",
  "deposits.ts",
  "withdrawals.ts",
  "transactions.ts",
  "sandbox.ts",
].map((f) => readFileSync(new URL(`../../src/intake/http/${f}`, import.meta.url), "utf8"));

describe("error catalogue", () => {
  it.each(Object.entries(REJECTIONS))(
    "documents the business rejection %s with its status",
    (_k, { status, message }) => {
      expect(catalogue).toContain(`| ${status} | \`${message}\` |`);
    },
  );

  it("documents every message the merchant routes can send", () => {
    const sent = new Set<string>();
    for (const src of sources) {
      for (const m of src.matchAll(/sendError\(\s*reply,\s*\d+,\s*(?:"([^"]+)"|'([^']+)')/g))
        sent.add((m[1] ?? m[2]) as string);
    }
    expect(sent.size).toBeGreaterThan(8);
    for (const message of sent) expect(catalogue, message).toContain(`\`${message}\``);
  });

  it("names the JSON key next to each field name the messages use, and no other", () => {
    const specs = [...Object.values(DEPOSIT_FIELDS).flat(), ...Object.values(WITHDRAWAL_FIELDS).flat()];
    const pairs = new Set(specs.map((f) => `| \`${f.struct}\` | \`${f.key}\` |`));
    const listed = new Set(catalogue.match(/^\| `[A-Za-z]+` \| `[a-z_]+` \|$/gm) ?? []);
    expect([...listed].sort()).toEqual([...pairs].sort());
  });
});
