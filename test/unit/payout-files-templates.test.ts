import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type BankTemplate, parseBankTemplate } from "../../src/payouts/files/bank-template.js";
import { collectFile } from "../../src/payouts/files/batch-file.js";
import { batchFileType, findBatchFileFormat } from "../../src/payouts/files/formats.js";
import {
  AKBANK,
  GARANTI,
  GENERIC_CSV,
  SHIPPED_TEMPLATES,
} from "../../src/payouts/files/shipped-templates.js";
import { csvCell, templateFile } from "../../src/payouts/files/template-file.js";
import { encodeWindows1254 } from "../../src/payouts/files/windows-1254.js";
import { batch, FIXTURES, HOSTILE_TEXTS, payout } from "../fixtures/payouts/batches.js";

const sample = batch([
  payout(1),
  payout(2, { payeeName: 'Gül; "Deli" Öz', remittance: "Sipariş #42 — teşekkürler" }),
  payout(3, { payeeName: "=Ali Veli" }),
]);

async function fileOf(template: BankTemplate, input = sample): Promise<Buffer> {
  return collectFile(templateFile(input, template));
}

/** RFC 4180 rows: quoted cells may hold the separator and doubled quotes. */
function parseCsv(text: string, separator: string, lineEnding: string): string[][] {
  return text
    .split(lineEnding)
    .filter((l) => l !== "")
    .map((l) => [
      ...l.matchAll(new RegExp(`(?:"((?:[^"]|"")*)"|([^"${separator}]*))(?:${separator}|$)`, "g")),
    ])
    .map((ms) =>
      ms.slice(0, -1).map((m) => (m[1] !== undefined ? m[1].replaceAll('""', '"') : (m[2] ?? ""))),
    );
}

describe("the shipped bank templates", () => {
  it.each(SHIPPED_TEMPLATES)(
    "$code is a valid template and writes the committed sample, byte for byte",
    async (t) => {
      expect(parseBankTemplate(JSON.parse(JSON.stringify(t)))).toEqual({ ok: true, template: t });
      const bytes = await fileOf(t);
      expect(bytes.equals(await fileOf(t, structuredClone(sample)))).toBe(true);
      expect(bytes.equals(readFileSync(join(FIXTURES, `sample.${t.code}.csv`)))).toBe(true);
    },
  );

  it("writes Akbank's layout in Windows-1254: Turkish letters, decimal comma, DD.MM.YYYY, CRLF", async () => {
    const text = new TextDecoder("windows-1254").decode(await fileOf(AKBANK));
    const rows = parseCsv(text, ";", "\r\n");
    expect(rows[0]).toEqual([
      "Sıra No",
      "Alıcı IBAN",
      "Alıcı Adı Soyadı",
      "Tutar",
      "Döviz Cinsi",
      "Açıklama",
      "İşlem Tarihi",
    ]);
    expect(rows[2]).toEqual([
      "2",
      sample.payouts[1]?.payeeIban,
      'Gül; "Deli" Öz',
      "10,02",
      "TRY",
      "PO00000002A1 Sipariş #42 — teşekkürler",
      "16.03.2026",
    ]);
    expect(text.split("\r\n")).toHaveLength(5);
    const bytes = await fileOf(AKBANK);
    expect(bytes.includes(Buffer.from([0x53, 0xfd, 0x72, 0x61]))).toBe(true); // "Sıra"
  });

  it("writes Garanti's layout in basic Latin, the payment id in its own column", async () => {
    const rows = parseCsv((await fileOf(GARANTI)).toString("latin1"), ";", "\r\n");
    expect(rows[2]).toEqual([
      sample.payouts[1]?.payeeIban,
      "Gul Deli Oz",
      "10,02",
      "PO00000002A1 Siparis 42 tesekkurler",
      "PO00000002A1",
      "FAST",
      "16/03/2026",
    ]);
  });
});

describe("cells a spreadsheet or a bank could misread", () => {
  it("neutralises a formula with a leading apostrophe and quotes separators, quotes and edge spaces", () => {
    expect(["=1+1", "+90", "-2", "@SUM(A1)", "\t=x", "\r=x"].map((c) => csvCell(c, ";"))).toEqual([
      "'=1+1",
      "'+90",
      "'-2",
      "'@SUM(A1)",
      "'\t=x",
      '"\'\r=x"',
    ]);
    expect(csvCell('a;b "c"', ";")).toBe('"a;b ""c"""');
    expect(csvCell("a,b", ";")).toBe("a,b");
    expect(csvCell("a,b", ",")).toBe('"a,b"');
    expect(csvCell(" x", ";")).toBe('" x"');
  });

  it("keeps every hostile text in its own cell, with no control or layout character and no live formula", async () => {
    for (const template of SHIPPED_TEMPLATES) {
      const input = batch(HOSTILE_TEXTS.map((t, i) => payout(i, { payeeName: `${t} x`, remittance: t })));
      const bytes = await fileOf(template, input);
      const text =
        template.encoding === "utf-8"
          ? bytes.toString("utf8")
          : new TextDecoder("windows-1254").decode(bytes);
      expect(text).not.toMatch(
        /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u202a-\u202e\u2066-\u2069\u2028\u2029\u200b\ufeff]/,
      );
      const rows = parseCsv(text, template.separator, template.lineEnding);
      expect(rows).toHaveLength(HOSTILE_TEXTS.length + 1);
      for (const row of rows) {
        expect(row).toHaveLength(template.columns.length);
        for (const cell of row) expect(cell).not.toMatch(/^[=+\-@\t\r]/);
      }
    }
  });

  it("keeps any name and text in one row of the right width, the payment id leading the description", () => {
    const texts = fc.string({ unit: "grapheme", maxLength: 300 });
    fc.assert(
      fc.property(texts, texts, (name, text) => {
        const input = batch([payout(7, { payeeName: `${name} Ali`, remittance: text })]);
        const rows = parseCsv(
          Buffer.concat([...templateFile(input, GENERIC_CSV)]).toString("utf8"),
          ",",
          "\n",
        );
        expect(rows).toHaveLength(2);
        expect(rows[1]).toHaveLength(GENERIC_CSV.columns.length);
        const description = rows[1]?.[7] ?? "";
        expect(description.startsWith("PO00000007A1")).toBe(true);
        expect(Array.from(description).length).toBeLessThanOrEqual(140);
      }),
      { numRuns: 300 },
    );
  });
});

describe("Windows-1254", () => {
  it("writes a letter it lacks in basic Latin, drops layout controls, and keeps the column's length", async () => {
    const name = `ǅ\u202Eő 😀 ${"ǆ".repeat(80)}`;
    const rows = parseCsv(
      new TextDecoder("windows-1254").decode(await fileOf(AKBANK, batch([payout(1, { payeeName: name })]))),
      ";",
      "\r\n",
    );
    expect(rows[1]?.[2]).toBe(`Dzo ? ${"dz".repeat(32)}`); // 70, the name's default length
  });

  it("writes Turkish letters at their places, Latin-1 elsewhere, and '?' for what it lacks", () => {
    expect([...encodeWindows1254("ĞğİıŞşÇçÖöÜü")]).toEqual([
      0xd0, 0xf0, 0xdd, 0xfd, 0xde, 0xfe, 0xc7, 0xe7, 0xd6, 0xf6, 0xdc, 0xfc,
    ]);
    expect(encodeWindows1254("€ é ß Ð þ 😀 ő").toString("latin1")).toBe("\x80 \xe9 \xdf ? ? ? ?");
    expect([...encodeWindows1254("s\u0327")]).toEqual([0xfe]);
  });

  it("reads back as written, for any text it can hold", () => {
    const decoder = new TextDecoder("windows-1254");
    // The decoder reads 1254's unassigned bytes as C1 controls, which no file's text holds.
    const holdable = Array.from({ length: 256 }, (_, b) => decoder.decode(Buffer.from([b]))).filter(
      (c) => !/[\u0080-\u009f\ufffd]/.test(c),
    );
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...holdable), { maxLength: 100 }), (chars) => {
        const text = chars.join("").normalize("NFC");
        expect(decoder.decode(encodeWindows1254(text))).toBe(text);
      }),
    );
  });
});

describe("a template an admin adds as JSON", () => {
  const good = JSON.parse(JSON.stringify(AKBANK)) as Record<string, unknown>;

  function errorsOf(change: Record<string, unknown>): { key: string; message: string }[] {
    const parsed = parseBankTemplate({ ...good, ...change });
    return parsed.ok ? [] : parsed.errors;
  }

  it("names each wrong key with what it must be", () => {
    const { separator, ...withoutSeparator } = good;
    expect(separator).toBe(";");
    const parsed = parseBankTemplate({ ...withoutSeparator, seperator: ";" });
    expect(parsed.ok ? [] : parsed.errors.map((e) => e.key)).toEqual(["seperator", "separator"]);
    expect(errorsOf({ encoding: "latin1" })).toEqual([
      { key: "encoding", message: 'must be one of "utf-8", "windows-1254"' },
    ]);
    expect(errorsOf({ decimal: ",", separator: "," })[0]?.key).toBe("decimal");
    expect(errorsOf({ code: "pain.001.001.09" })[0]?.key).toBe("code");
    expect(errorsOf({ headerRow: "yes" })[0]?.key).toBe("headerRow");
    expect(parseBankTemplate([])).toEqual({
      ok: false,
      errors: [{ key: "", message: "a template is a JSON object" }],
    });
  });

  it("checks each column: its keys, its field, a length only for text, and the columns a bank needs", () => {
    const columns = [
      { header: "IBAN", field: "payeeIban", colour: "red" },
      { header: "Tutar", field: "amount", maxLength: 10 },
      { header: "", field: "payeeName" },
      { header: "Açıklama", field: "description", maxLength: 20 },
      { header: "X", field: "balance" },
    ];
    expect(errorsOf({ columns }).map((e) => e.key)).toEqual([
      "columns[0].colour",
      "columns[1].maxLength",
      "columns[2].header",
      "columns[3].maxLength",
      "columns[4].field",
    ]);
    expect(errorsOf({ columns: [{ header: "Tutar", field: "amount" }] }).map((e) => e.message)).toEqual([
      "must have a column for payeeIban",
      "must have a column for payeeName",
      "must carry the payment id: a paymentId or description column",
    ]);
    expect(errorsOf({ columns: [] })[0]?.key).toBe("columns");
  });

  it("is found by its code beside the pain.001 versions, and names its download", () => {
    const templates = [...SHIPPED_TEMPLATES];
    expect(findBatchFileFormat("pain.001.001.03", templates)).toEqual({
      kind: "pain.001",
      version: "pain.001.001.03",
    });
    expect(findBatchFileFormat("AKBANK", templates)).toEqual({ kind: "template", template: AKBANK });
    expect(findBatchFileFormat("akbank", templates)).toBeUndefined();
    expect(batchFileType(sample, { kind: "template", template: AKBANK })).toEqual({
      fileName: "PI-B000123.AKBANK.csv",
      contentType: "text/csv; charset=windows-1254",
    });
  });
});
