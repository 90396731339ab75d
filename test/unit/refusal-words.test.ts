import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { REFUSAL_CODES } from "../../src/domain/refusal.js";
import { REFUSAL_STATUS } from "../../src/http/operator-io.js";
import { PAGE_REFUSAL_CODES } from "../../src/payment-page/refusals.js";

// The page's plain JavaScript and the console's own TypeScript (bundler-resolved) are loaded as the
// browser gets them; the server's typecheck does not follow them.
const PAGE_TEXT = "../../src/payment-page/browser/page-text.js";
const DECISION_TEXT = "../../web/console/decision-text.ts";
const { REFUSAL_WORDS: PAGE_WORDS } = (await import(PAGE_TEXT)) as {
  REFUSAL_WORDS: Record<string, { tr: string; en: string }>;
};
const { REFUSAL_WORDS, refusalIn } = (await import(DECISION_TEXT)) as {
  REFUSAL_WORDS: Record<string, { tr: string; en: string }>;
  refusalIn(answer: unknown, status: number, lang: "tr" | "en"): string;
};

// Screens translate refusals by their code: a code the server can send without words in both
// languages would reach an operator or a payer as English text, or as "something went wrong".
describe("refusal words", () => {
  it("every code has a status, and the console has words for it in Turkish and English", () => {
    expect(new Set(REFUSAL_CODES).size).toBe(REFUSAL_CODES.length);
    expect(Object.keys(REFUSAL_STATUS).sort()).toEqual([...REFUSAL_CODES].sort());
    expect(Object.keys(REFUSAL_WORDS).sort()).toEqual([...REFUSAL_CODES].sort());
    for (const code of REFUSAL_CODES) {
      expect(REFUSAL_WORDS[code]?.tr.trim(), code).toBeTruthy();
      expect(REFUSAL_WORDS[code]?.en.trim(), code).toBeTruthy();
    }
  });

  it("docs/console.md lists every code with its status, and no other", () => {
    const doc = readFileSync(new URL("../../docs/console.md", import.meta.url), "utf8");
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => `${m[1]} ${m[2]}`);
    expect(rows.sort()).toEqual(REFUSAL_CODES.map((c) => `${c} ${REFUSAL_STATUS[c]}`).sort());
  });

  it("codes are snake_case", () => {
    for (const code of [...REFUSAL_CODES, ...PAGE_REFUSAL_CODES]) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it("the payment page has words for every code its API sends, in Turkish and English", () => {
    for (const code of PAGE_REFUSAL_CODES) {
      expect(PAGE_WORDS[code]?.tr.trim(), code).toBeTruthy();
      expect(PAGE_WORDS[code]?.en.trim(), code).toBeTruthy();
    }
  });

  it("the console says a refusal by its code, fills in the server's detail, and shows an unknown one as sent", () => {
    const decided = { success: false, code: "already_rejected", message: "transaction is not pending" };
    expect(refusalIn(decided, 409, "tr")).toBe("bu işleme zaten karar verilmiş (durum: reddedildi).");
    const field = {
      success: false,
      code: "invalid_input",
      message: "note: must not contain control characters",
    };
    expect(refusalIn(field, 400, "tr")).toBe("Geçersiz giriş: note: must not contain control characters");
    expect(refusalIn({ success: false, code: "from_a_newer_server", message: "as sent" }, 409, "en")).toBe(
      "as sent",
    );
    expect(refusalIn({}, 502, "en")).toBe("502");
  });
});
