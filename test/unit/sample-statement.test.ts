import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { codesIn } from "../../src/domain/payment-code.js";
import {
  type SampleDeposit,
  type SampleFormat,
  sampleDescription,
  sampleStatement,
} from "../../src/reconciliation/sample-statement.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";
import { readStatementFile } from "../../src/reconciliation/statement-file.js";

/**
 * The README's two deposits (150.00 each, Ayşe Yılmaz, users 42 and 43) on its account, as a fresh
 * store numbers them; their codes are examples (each store's key makes its own).
 */
const README_SAMPLE = {
  iban: "TR330006100519786457841326",
  now: Date.parse("2026-12-06T09:30:00Z"),
  deposits: [
    {
      id: 1,
      amountMinor: 15_000,
      payerName: "Ayşe Yılmaz",
      paymentCode: "6Y9WY6HK",
      createdAt: Date.parse("2026-12-06T09:12:04Z"),
    },
    {
      id: 2,
      amountMinor: 15_000,
      payerName: "Ayşe Yılmaz",
      paymentCode: "HT4AF3RK",
      createdAt: Date.parse("2026-12-06T09:14:31Z"),
    },
  ] satisfies SampleDeposit[],
};

const EXAMPLES: Record<SampleFormat, string> = {
  camt053: "../../examples/statements/readme-deposits.camt053.xml",
  mt940: "../../examples/statements/readme-deposits.mt940.txt",
};

async function read(text: string, now: number) {
  const lines: StatementLine[] = [];
  async function* chunks() {
    yield new TextEncoder().encode(text);
  }
  const { format, statements } = await readStatementFile(
    chunks(),
    { line: (l) => void lines.push(l) },
    { now },
  );
  return { format, statements, lines };
}

describe.each(["camt053", "mt940"] as const)("a sample statement (%s)", (format) => {
  const file = sampleStatement({ format, ...README_SAMPLE });

  it("is read by the statement reader as a bank's file is: balanced, one credit per deposit", async () => {
    const { statements, lines } = await read(file, README_SAMPLE.now);
    expect(statements).toHaveLength(1);
    expect(statements[0]?.doubts).toEqual([]);
    expect(statements[0]?.header.accountIban).toBe(README_SAMPLE.iban);
    expect(statements[0]?.header.openingMinor).toBe(0);
    expect(statements[0]?.header.closingMinor).toBe(30_000);
    expect(lines.map((l) => [l.amountMinor, l.direction, l.senderName, l.description, l.bankRef])).toEqual(
      README_SAMPLE.deposits.map((d) => [
        d.amountMinor,
        "credit",
        d.payerName,
        sampleDescription(d.paymentCode),
        `PAYINTAKE-SAMPLE-${d.id}`,
      ]),
    );
  });

  it("is what examples/statements/ shows", () => {
    expect(readFileSync(new URL(EXAMPLES[format], import.meta.url), "utf8")).toBe(file);
  });

  it("names no deposit with an empty list", async () => {
    const empty = sampleStatement({ format, ...README_SAMPLE, deposits: [] });
    const { statements, lines } = await read(empty, README_SAMPLE.now);
    expect(lines).toEqual([]);
    expect(statements[0]?.doubts).toEqual([]);
  });
});

describe("a sample line's description", () => {
  it("holds its deposit's code and nothing a code reader could take for another", () => {
    for (const d of README_SAMPLE.deposits) {
      expect(codesIn(sampleDescription(d.paymentCode))).toEqual({ codes: [d.paymentCode], near: [] });
    }
  });
});
