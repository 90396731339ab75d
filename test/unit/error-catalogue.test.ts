import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { MERCHANT_REFUSALS, REJECTIONS } from "../../src/intake/http/rejection-responses.js";
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
  "balance.ts",
].map((f) => readFileSync(new URL(`../../src/intake/http/${f}`, import.meta.url), "utf8"));

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("error catalogue", () => {
  it.each(Object.entries(REJECTIONS))(
    "documents the business rejection %s with its status",
    (_k, { status, message }) => {
      expect(catalogue).toContain(`| ${status} | \`${message}\` |`);
    },
  );

  it("documents every message the merchant routes can send, with its status", () => {
    // The merchant routes choose their refusals from the table only.
    for (const src of sources) expect(src).not.toMatch(/sendError\(\s*reply,\s*\d/);
    const fixed = Object.entries(MERCHANT_REFUSALS).filter(([k]) => k !== "invalid_request");
    expect(fixed.length).toBeGreaterThan(8);
    for (const [k, { status, message }] of fixed) {
      expect(catalogue, k).toContain(`\`${message}\``);
      expect(catalogue, k).toMatch(new RegExp(`\\| ${status} \\| \`${escapeRegExp(message)}\``));
    }
  });

  it("names the JSON key next to each field name the messages use, and no other", () => {
    const specs = [...Object.values(DEPOSIT_FIELDS).flat(), ...Object.values(WITHDRAWAL_FIELDS).flat()];
    const pairs = new Set(specs.map((f) => `| \`${f.struct}\` | \`${f.key}\` |`));
    const listed = new Set(catalogue.match(/^\| `[A-Za-z]+` \| `[a-z_]+` \|$/gm) ?? []);
    expect([...listed].sort()).toEqual([...pairs].sort());
  });
});
