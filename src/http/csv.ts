import { LAYOUT_CONTROL } from "../domain/text-rules.js";

/**
 * CSV for the operators' exports (transactions, the ledger's reports): RFC 4180 quoting, CRLF lines,
 * and cells that a spreadsheet would run as a formula (=, +, -, @, tab, CR) prefixed with an
 * apostrophe: a payer's name is no formula. The same inside a cell after the separator this file
 * does not use (below). An amount column's signed decimal ("-20.00") is written as the number it
 * is: digits with one sign and one point run nothing.
 */
export function csvCell(value: unknown, separator = ","): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  // Also after the other separator inside the cell: Excel splits a file on its locale's list
  // separator, a Turkish one this "," file on ";" (an English one the ";" file on ","), without
  // regard to quotes that are not at the start of what it takes for a cell, so "ali;=2+3" would give
  // it a cell "=2+3". This file's own separator is quoted, which both read right: no change there.
  text = text.replace(separator === ";" ? FORMULA_AFTER_COMMA : FORMULA_AFTER_SEMICOLON, "$1'");
  // Bidirectional controls and line separators, which the API refuses but rows stored before it
  // did may hold: quoted, so that a reader sees where the cell starts and ends whatever they do.
  const needsQuotes =
    text.includes(separator) || /["\r\n]/.test(text) || text !== text.trim() || LAYOUT_CONTROL.test(text);
  return needsQuotes ? `"${text.replace(/"/g, '""')}"` : text;
}

const FORMULA_START = /^[=+\-@\t\r]/;
// Quotes between the separator and the formula character too: `a,"=cmd` is written `a,""=cmd`, whose
// piece after a "," an Excel may read as a quoted field holding `=cmd`.
const FORMULA_AFTER_COMMA = /(,"*)(?=[=+\-@\t\r])/g;
const FORMULA_AFTER_SEMICOLON = /(;"*)(?=[=+\-@\t\r])/g;

/** An amount as the API writes it, its sign too: the ledger's figures are signed as they moved a balance. */
const SIGNED_DECIMAL = /^-?\d+(\.\d+)?$/;

/** An export's text made piece by piece: its start (with the header line), then a line per row. */
export interface CsvWriter {
  start: string;
  line(row: Readonly<Record<string, unknown>>): string;
}

/**
 * The plain export, for machines: comma-separated UTF-8 without a byte order mark. A signed amount
 * in `amountColumns` is written without the formula guard's apostrophe ("-20.00", not "'-20.00").
 */
export function plainCsv(columns: readonly string[], amountColumns: readonly string[] = []): CsvWriter {
  const amounts = new Set(amountColumns);
  const cell = (column: string, value: unknown) =>
    typeof value === "string" && amounts.has(column) && SIGNED_DECIMAL.test(value) ? value : csvCell(value);
  return {
    start: `${columns.join(",")}\r\n`,
    line: (row) => `${columns.map((c) => cell(c, row[c])).join(",")}\r\n`,
  };
}

export function toCsv(
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  amountColumns: readonly string[] = [],
): string {
  return whole(plainCsv(columns, amountColumns), rows);
}

function whole(writer: CsvWriter, rows: readonly Record<string, unknown>[]): string {
  return writer.start + rows.map((row) => writer.line(row)).join("");
}

/**
 * Text that Excel would turn into something else on opening: a digits-only reference or user id
 * ("000123" loses its zeros, "12345678901234567" is rounded past 15 digits), a date ("12.10" is
 * 12 October, "2024-01" January), a time, a percentage, an exponent ("1E5"). Written for Excel as a
 * formula of that very text (="000123"), which every Excel shows exactly as it was: a constant, so
 * nothing runs. Digits, spaces and . : / + - % E only, never a quote, so the text cannot end the
 * formula's string; a "," is left out: an Excel that splits on "," would cut the formula in two.
 * (Such an Excel, reading a line of this file as one cell, sees its first cell first: the export's
 * first column is the numeric id, never one of these.)
 */
const excelWouldConvert = (text: string) => NUMBER_CHARACTERS_ONLY.test(text) && /\d/.test(text);
// Two linear tests: the one pattern they replace (`[…]*\d[…]*`) tried every split of a long run of
// digits that ends in a letter, quadratic in the text.
const NUMBER_CHARACTERS_ONLY = /^[\d .:/+\-%eE]+$/;

/**
 * The same rows for Excel in a Turkish locale, which splits a double-clicked CSV on ";" (the list
 * separator where "," is the decimal one) and reads it as UTF-8 only after a byte order mark ("Ayşe"
 * is mojibake without one). Amount columns get a decimal comma so that they are numbers there:
 * "150.00" would be text, and "12.10" the date 12 October.
 */
export function excelCsv(columns: readonly string[], amountColumns: readonly string[]): CsvWriter {
  const amounts = new Set(amountColumns);
  const cell = (column: string, value: unknown) => {
    if (typeof value === "string" && amounts.has(column) && SIGNED_DECIMAL.test(value))
      return value.replace(".", ",");
    if (typeof value === "string" && !amounts.has(column) && excelWouldConvert(value))
      return `"=""${value}"""`;
    return csvCell(value, ";");
  };
  return {
    start: `\uFEFF${columns.map((c) => csvCell(c, ";")).join(";")}\r\n`,
    line: (row) => `${columns.map((c) => cell(c, row[c])).join(";")}\r\n`,
  };
}

export function toExcelCsv(
  columns: readonly string[],
  rows: readonly Record<string, unknown>[],
  amountColumns: readonly string[],
): string {
  return whole(excelCsv(columns, amountColumns), rows);
}
