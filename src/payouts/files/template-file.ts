/**
 * A payout batch written by a bank template: a delimited text file, a line per payout. Cells are
 * made safe for the spreadsheet an operator may open the file in before uploading it: no control or
 * layout character survives, a cell that a spreadsheet would run as a formula is neutralised, and a
 * cell holding the separator, a quote or an edge space is quoted.
 */

import { type BankTemplate, DEFAULT_MAX_LENGTH, type TemplateColumn } from "./bank-template.js";
import { bankSafeText, plainText, remittanceLine } from "./bank-text.js";
import {
  assertBatchFileInput,
  type BatchFileInput,
  type BatchFilePayout,
  decimalAmount,
  type FileChunks,
} from "./batch-file.js";
import { encodeWindows1254, inWindows1254 } from "./windows-1254.js";

/** The first characters that make Excel, LibreOffice or Sheets read a cell as a formula (OWASP). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A cell that would start a formula gets a leading apostrophe: the spreadsheet shows the text as
 * typed, and the bank's upload keeps the text (apostrophe included) rather than refusing the file.
 */
export function neutraliseFormula(cell: string): string {
  return FORMULA_START.test(cell) ? `'${cell}` : cell;
}

function quoted(cell: string, separator: string): string {
  const needs = cell.includes(separator) || /["\r\n]/.test(cell) || /^ | $/.test(cell);
  return needs ? `"${cell.replaceAll('"', '""')}"` : cell;
}

export function csvCell(value: string, separator: string): string {
  return quoted(neutraliseFormula(value), separator);
}

/** "DD.MM.YYYY" and its kin from a YYYY-MM-DD day. */
function formatDay(day: string, format: BankTemplate["dateFormat"]): string {
  const [y, m, d] = day.split("-");
  return format
    .replace("YYYY", y ?? "")
    .replace("MM", m ?? "")
    .replace("DD", d ?? "");
}

/** Free text in the template's rules: basic Latin when it says so, else Turkish letters kept. */
function templateText(template: BankTemplate, value: string, max: number): string {
  if (template.transliterate) return bankSafeText(value, max);
  if (template.encoding !== "windows-1254") return plainText(value, max);
  // A letter 1254 lacks ("ő"; "ñ" is there) is written as its basic Latin form, "?" only when it
  // has none; plainText cuts after, so a letter that becomes two ("ǅ" → "Dz") keeps the length.
  const clean = plainText(value, Number.MAX_SAFE_INTEGER);
  const fitted = Array.from(clean, (c) => (inWindows1254(c) ? c : bankSafeText(c, 4) || "?"));
  return plainText(fitted.join(""), max);
}

interface Row {
  payout: BatchFilePayout;
  number: number;
}

function cellValue(template: BankTemplate, input: BatchFileInput, column: TemplateColumn, row: Row): string {
  const p = row.payout;
  const max = (f: keyof typeof DEFAULT_MAX_LENGTH) => column.maxLength ?? DEFAULT_MAX_LENGTH[f];
  switch (column.field) {
    case "paymentId":
      return p.paymentId;
    case "amount":
      return decimalAmount(p.amountMinor, template.decimal);
    case "currency":
      return "TRY";
    case "payeeName":
      return templateText(template, p.payeeName, max("payeeName"));
    case "payeeIban":
      return p.payeeIban;
    case "description":
      return remittanceLine(
        p.paymentId,
        templateText(template, p.remittance, max("description")),
        max("description"),
      );
    case "executionDate":
      return formatDay(input.executionDate, template.dateFormat);
    case "method":
      return p.method;
    case "debtorName":
      return templateText(template, input.debtor.name, max("debtorName"));
    case "debtorIban":
      return input.debtor.iban;
    case "debtorBankName":
      return templateText(template, input.debtor.bankName, max("debtorBankName"));
    case "rowNumber":
      return String(row.number);
  }
}

function line(template: BankTemplate, cells: string[]): Buffer {
  const text =
    cells.map((c) => csvCell(c, template.separator)).join(template.separator) + template.lineEnding;
  return template.encoding === "windows-1254" ? encodeWindows1254(text) : Buffer.from(text, "utf8");
}

/**
 * The batch in a bank's template, a chunk per line. The input is checked whole before the first
 * chunk, as for pain.001, so a reader never gets half a file.
 */
export function templateFile(input: BatchFileInput, template: BankTemplate): FileChunks {
  assertBatchFileInput(input);
  return templateLines(input, template);
}

function* templateLines(input: BatchFileInput, template: BankTemplate): Generator<Buffer> {
  if (template.headerRow) {
    yield line(
      template,
      template.columns.map((c) => templateText(template, c.header, 100)),
    );
  }
  let number = 0;
  for (const payout of input.payouts) {
    number += 1;
    const row = { payout, number };
    yield line(
      template,
      template.columns.map((c) => cellValue(template, input, c, row)),
    );
  }
}
