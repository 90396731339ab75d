import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

// The console's tables of words (web/console/words.ts) and the payment page's (page-text.js), loaded
// as the browser gets them; the server's typecheck does not follow the console's bundler-resolved
// imports, and the page's plain JavaScript is checked by nothing but this test.
type Table = Record<string, unknown>;
const load = (path: string) => import(path) as Promise<Record<string, unknown>>;
const [i18n, refusals, audit, detail, payouts, balances, page] = await Promise.all([
  load("../../web/console/i18n.ts"),
  load("../../web/console/decision-text.ts"),
  load("../../web/console/audit-words.ts"),
  load("../../web/console/detail-words.ts"),
  load("../../web/console/payouts-words.ts"),
  load("../../web/console/balances-words.ts"),
  load("../../src/payment-page/browser/page-text.js"),
]);

const CONSOLE_TABLES: Record<string, Table> = {
  CONSOLE_WORDS: i18n.CONSOLE_WORDS as Table,
  REFUSAL_WORDS: refusals.REFUSAL_WORDS as Table,
  ...(audit.AUDIT_TABLES as Record<string, Table>),
  ...(detail.DETAIL_TABLES as Record<string, Table>),
  ...(payouts.PAYOUT_TABLES as Record<string, Table>),
  ...(balances.BALANCE_TABLES as Record<string, Table>),
};
/** Every object page-text.js exports is a table of words; its functions and codes are not. */
const PAGE_TABLES = Object.fromEntries(
  Object.entries(page).filter((entry): entry is [string, Table] => typeof entry[1] === "object"),
);

/** Texts whose languages fill different places, on purpose. */
const OTHER_PLACES = new Set([
  // A recorded reason that starts with a network code: Turkish names the code in words before it,
  // English shows the recorded reason alone (it is English already).
  "PATTERNS.withCode",
]);

const LANGS = ["en", "tr"];
const places = (text: string) =>
  [...text.matchAll(/\{(\w+)\}/g)]
    .map((m) => m[1])
    .sort()
    .join(",");

/** What is wrong with a table: a key without both languages, or with a language more. */
function faults(name: string, table: Table): string[] {
  const found: string[] = [];
  for (const [key, words] of Object.entries(table)) {
    const w = (words ?? {}) as Record<string, unknown>;
    if (Object.keys(w).sort().join() !== LANGS.join()) found.push(`${name}.${key}: ${Object.keys(w)}`);
    for (const lang of LANGS) {
      const text = w[lang];
      if (typeof text !== "string" || text.trim() === "") found.push(`${name}.${key}.${lang} is empty`);
    }
    const [tr, en] = [String(w.tr), String(w.en)];
    if (places(tr) !== places(en) && !OTHER_PLACES.has(`${name}.${key}`))
      found.push(`${name}.${key}: {${places(tr)}} in Turkish, {${places(en)}} in English`);
  }
  return found;
}

describe("translations", () => {
  it("every key of the console's tables has its Turkish and English, and no language a key the other lacks", () => {
    for (const [name, table] of Object.entries(CONSOLE_TABLES)) {
      expect(Object.keys(table).length, name).toBeGreaterThan(0);
      expect(faults(name, table), name).toEqual([]);
    }
  });

  it("every key of the payment page's tables has its Turkish and English, and no language a key the other lacks", () => {
    expect(Object.keys(PAGE_TABLES).sort()).toEqual(["PAGE_WORDS", "REFUSAL_WORDS"]);
    for (const [name, table] of Object.entries(PAGE_TABLES)) expect(faults(name, table), name).toEqual([]);
  });

  it("the test reads every table of words the console declares", () => {
    const dir = new URL("../../web/console/", import.meta.url);
    const declared = readdirSync(dir)
      .filter((f) => /\.tsx?$/.test(f) && f !== "words.ts")
      .flatMap((f) => [...readFileSync(new URL(f, dir), "utf8").matchAll(/(?::|satisfies) WordTable\b/g)]);
    expect(declared.length).toBe(Object.keys(CONSOLE_TABLES).length);
  });

  it("a key a table lacks is told apart, and an object's own names are no keys", () => {
    const wordsIn = page.wordsIn as (t: Table, k: string, l: string) => string | undefined;
    const pageWords = page.PAGE_WORDS as Table;
    expect(wordsIn(pageWords, "retry", "en")).toBe("Try again");
    expect(wordsIn(pageWords, "toString", "tr")).toBeUndefined();
    const t = (i18n.translator as (l: string) => (k: string) => string)("tr");
    expect(t("deposits")).toBe("Yatırımlar");
    expect(t("toString")).toBe("toString");
  });
});
