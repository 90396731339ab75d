import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bankSafeText, NAME_MAX, REMITTANCE_MAX } from "../../src/payouts/files/bank-text.js";
import {
  type BatchFilePayout,
  batchFileProblems,
  collectFile,
  decimalAmount,
} from "../../src/payouts/files/batch-file.js";
import { escapeXml, PAIN001_VERSIONS, pain001File } from "../../src/payouts/files/pain001.js";
import {
  batch,
  FIXTURES,
  HOSTILE_TEXTS,
  hasXmllint,
  ibanFor,
  payout,
  validateAgainstSchema,
} from "../fixtures/payouts/batches.js";

const BANK_SET = /^[A-Za-z0-9/\-?:().,'+ ]*$/;
const sample = batch([payout(1), payout(2, { remittance: "Sipariş #42 — teşekkürler" }), payout(3)]);

async function xmlOf(input = sample, version: (typeof PAIN001_VERSIONS)[number] = "pain.001.001.09") {
  return (await collectFile(pain001File(input, version))).toString("utf8");
}

function all(xml: string, tag: string): string[] {
  return [...xml.matchAll(new RegExp(`<${tag}(?: [^>]*)?>([^<]*)</${tag}>`, "g"))].map((m) => m[1] ?? "");
}

function unescapeXml(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot);/g,
    (_, e) => ({ amp: "&", lt: "<", gt: ">", quot: '"' })[e as string] ?? "",
  );
}

describe("pain.001 files", () => {
  it.each(PAIN001_VERSIONS)(
    "%s is byte for byte the committed sample: the same batch, the same bytes",
    async (v) => {
      const bytes = await collectFile(pain001File(sample, v));
      expect(bytes.equals(await collectFile(pain001File(structuredClone(sample), v)))).toBe(true);
      expect(bytes.toString("utf8")).toBe(readFileSync(join(FIXTURES, `sample.${v}.xml`), "utf8"));
    },
  );

  it("counts the transfers and sums them to the kuruş", async () => {
    const amounts = [1, 99, 123_450, 99_999_999_999, 99_999_999_999, 5];
    const xml = await xmlOf(batch(amounts.map((amountMinor, i) => payout(i, { amountMinor }))));
    expect(all(xml, "NbOfTxs")).toEqual(["6", "6"]);
    expect(all(xml, "CtrlSum")).toEqual(["2000001235.53", "2000001235.53"]);
    expect(all(xml, "InstdAmt")).toEqual(["0.01", "0.99", "1234.50", "999999999.99", "999999999.99", "0.05"]);
  });

  it("writes amounts from kuruş by integer arithmetic", () => {
    expect(decimalAmount(0)).toBe("0.00");
    expect(decimalAmount(7)).toBe("0.07");
    expect(decimalAmount(123_450, ",")).toBe("1234,50");
    expect(decimalAmount(2n ** 60n)).toBe("11529215046068469.76");
  });

  it("puts the date as each version asks and the batch's own time, in Türkiye, as the creation time", async () => {
    expect(await xmlOf(sample, "pain.001.001.09")).toContain(
      "<ReqdExctnDt><Dt>2026-03-16</Dt></ReqdExctnDt>",
    );
    expect(await xmlOf(sample, "pain.001.001.03")).toContain("<ReqdExctnDt>2026-03-16</ReqdExctnDt>");
    expect(all(await xmlOf(), "CreDtTm")).toEqual(["2026-03-14T09:26:53+03:00"]);
  });

  it("transliterates Turkish letters and leads the remittance text with the payment id", async () => {
    const xml = await xmlOf();
    expect(all(xml, "Nm")).toContain("Sukru Caglar Isik");
    expect(all(xml, "Nm")[0]).toBe("Ornek Odeme Hizmetleri A.S.");
    expect(all(xml, "Ustrd")[1]).toBe("PO00000002A1 Siparis 42 tesekkurler");
    expect(bankSafeText("İSTANBUL ığdır ŞİŞLİ çöğüş Ğ", 70)).toBe("ISTANBUL igdir SISLI cogus G");
  });

  it("escapes what XML needs and cuts before escaping, so no entity is split", () => {
    expect(escapeXml(`a&b<c>"d"'e'`)).toBe("a&amp;b&lt;c&gt;&quot;d&quot;'e'");
    expect(bankSafeText("'".repeat(200), NAME_MAX)).toBe("'".repeat(70));
  });

  it("keeps every hostile name and text inside its element, in the bank set and the schema's lengths", async () => {
    const payouts = HOSTILE_TEXTS.map((t, i) =>
      payout(i, { payeeName: `${t} Ali`, remittance: t.repeat(20) }),
    );
    const xml = await xmlOf(batch(payouts));
    expect(xml).not.toMatch(/<x>|\u202E|\u2028|\u0000|\u200B/);
    const names = all(xml, "Nm").map(unescapeXml);
    const texts = all(xml, "Ustrd").map(unescapeXml);
    expect(names).toHaveLength(HOSTILE_TEXTS.length + 2);
    for (const n of names) expect(n.length <= NAME_MAX && BANK_SET.test(n) && n === n.trim()).toBe(true);
    texts.forEach((t, i) => {
      expect(t.length).toBeLessThanOrEqual(REMITTANCE_MAX);
      expect(t.startsWith(`${payouts[i]?.paymentId} `)).toBe(true);
      expect(BANK_SET.test(t) && !t.includes("  ")).toBe(true);
    });
  });

  it("makes any text bank-safe: the set, no edge or double space, within the length", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 300 }),
        fc.integer({ min: 1, max: 140 }),
        (s, max) => {
          const out = bankSafeText(s, max);
          expect(out.length).toBeLessThanOrEqual(max);
          expect(BANK_SET.test(out) && out === out.trim() && !out.includes("  ")).toBe(true);
        },
      ),
    );
  });

  it("refuses a batch it cannot write whole, before any byte, naming each problem", () => {
    const bad: BatchFilePayout[] = [
      payout(1, { paymentId: "po-1" }),
      payout(2),
      payout(2),
      payout(3, { amountMinor: 0 }),
      payout(4, { payeeIban: "TR000000000000000000000000" }),
      payout(5, { payeeName: "李小龍 😀" }),
    ];
    const input = batch(bad, { messageId: "PI B1", executionDate: "2026-02-30" });
    expect(batchFileProblems(input)).toEqual([
      "the message id is not 1-35 of [A-Za-z0-9-]",
      "the execution date is not a YYYY-MM-DD day",
      'payment id "po-1" is not 1-35 of [A-Z0-9]',
      "payment id PO00000002A1 is in the batch twice",
      "payout PO00000003A1: amount 0 is not a whole number of kuruş in range",
      "payout PO00000004A1: the payee IBAN is not a valid TR IBAN",
      "payout PO00000005A1: nothing of the payee's name is left",
    ]);
    expect(() => pain001File(input, "pain.001.001.09")).toThrow(
      /batch 123 cannot be written: the message id/,
    );
    expect(batchFileProblems(batch([]))).toEqual(["the batch has no payouts"]);
  });

  it("streams 10,000 payouts a transfer at a time, never as one string", () => {
    const many = batch(
      Array.from({ length: 10_000 }, (_, i) => payout(i, { payeeName: "Ayşe Yılmaz".repeat(9) })),
    );
    const chunks = pain001File(many, "pain.001.001.09")[Symbol.iterator]();
    const first = chunks.next();
    expect(first.done).toBe(false);
    expect(first.value?.length).toBeLessThan(2048);
    let count = 1;
    let largest = 0;
    for (let c = chunks.next(); !c.done; c = chunks.next()) {
      count += 1;
      largest = Math.max(largest, c.value.length);
    }
    expect(count).toBe(10_002);
    expect(largest).toBeLessThan(1024);
  });
});

if (!hasXmllint) {
  console.warn(
    "\n!!! xmllint is not installed: the pain.001 SCHEMA CHECKS ARE SKIPPED. " +
      "Install it with `apt-get install -y libxml2-utils` (CI does, through .ci/run).\n",
  );
}

describe.skipIf(!hasXmllint)("pain.001 against the published ISO 20022 schemas (xmllint)", () => {
  const texts = fc.oneof(fc.string({ unit: "grapheme", maxLength: 200 }), fc.constantFrom(...HOSTILE_TEXTS));
  const payouts = fc.uniqueArray(
    fc.record({
      n: fc.integer({ min: 0, max: 1_000_000 }),
      amountMinor: fc.integer({ min: 1, max: 99_999_999_999 }),
      name: texts,
      text: texts,
    }),
    { minLength: 1, maxLength: 12, selector: (p) => p.n },
  );

  it.each(PAIN001_VERSIONS)("%s: any batch with any names and texts is valid", (version) => {
    fc.assert(
      fc.property(payouts, (ps) => {
        const list = ps.map((p) =>
          payout(p.n, { amountMinor: p.amountMinor, payeeName: `${p.name} Ali`, remittance: p.text }),
        );
        const xml = Buffer.concat([...pain001File(batch(list), version)]);
        const verdict = validateAgainstSchema(xml, version);
        expect(verdict.output).toContain("validates");
        expect(verdict.ok).toBe(true);
      }),
      { numRuns: 25 },
    );
  });

  // One version is enough here: the versions share every element but the execution date.
  it("pain.001.001.09: 10,000 payouts are valid", () => {
    const version = "pain.001.001.09";
    const many = batch(
      Array.from({ length: 10_000 }, (_, i) => payout(i, { payeeName: HOSTILE_TEXTS[i % 15] ?? "" })),
    );
    expect(validateAgainstSchema(Buffer.concat([...pain001File(many, version)]), version).ok).toBe(true);
  });

  // ISO's own limit for a party's name is 140 (Max140Text); the files cut names to 70, the limit the
  // banks' guidelines (EPC, CGI-MP) and upload screens hold to.
  it("is a real check: the schema refuses a name past 140, an IBAN of the wrong shape and a wrong order", async () => {
    const xml = await xmlOf();
    const tampered = [
      xml.replace("<Nm>Sukru Caglar Isik</Nm>", `<Nm>${"x".repeat(141)}</Nm>`),
      xml.replace(ibanFor(1), "tr00 123"),
      xml.replace(
        /<PmtMtd>TRF<\/PmtMtd>\n(\s*)<NbOfTxs>3<\/NbOfTxs>/,
        "<NbOfTxs>3</NbOfTxs>\n$1<PmtMtd>TRF</PmtMtd>",
      ),
    ];
    for (const t of tampered) {
      expect(t).not.toBe(xml);
      expect(validateAgainstSchema(Buffer.from(t), "pain.001.001.09").ok).toBe(false);
    }
  });
});

describe("the machine running the schema checks", () => {
  it("has xmllint when CI runs (it installs libxml2-utils)", () => {
    if (process.env.CI) expect(hasXmllint).toBe(true);
  });
});
