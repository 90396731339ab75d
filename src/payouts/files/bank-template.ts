/**
 * A bank's bulk-payment upload ("toplu ödeme") layout as data: columns, header row, separator,
 * decimal mark, date format, encoding and line ending. An admin adds one as JSON without code;
 * `parseBankTemplate` reads it and names every key that is wrong.
 */
import { hasInvalidCharacters } from "../../domain/text-rules.js";

export const TEMPLATE_FIELDS = [
  "paymentId",
  "amount",
  "currency",
  "payeeName",
  "payeeIban",
  "description",
  "executionDate",
  "method",
  "debtorName",
  "debtorIban",
  "debtorBankName",
  "rowNumber",
] as const;
export type TemplateField = (typeof TEMPLATE_FIELDS)[number];

/** The fields that are free text, which a column may cut shorter; the others are never cut. */
export const TEXT_FIELDS = ["payeeName", "description", "debtorName", "debtorBankName"] as const;
/** How long a text field's cell is unless its column says otherwise: ISO 20022's limits. */
export const DEFAULT_MAX_LENGTH: Readonly<Record<(typeof TEXT_FIELDS)[number], number>> = {
  payeeName: 70,
  description: 140,
  debtorName: 70,
  debtorBankName: 70,
};

export const SEPARATORS = [";", ",", "\t"] as const;
export const DECIMAL_MARKS = [",", "."] as const;
export const DATE_FORMATS = ["DD.MM.YYYY", "DD/MM/YYYY", "DD-MM-YYYY", "YYYY-MM-DD", "YYYYMMDD"] as const;
export const ENCODINGS = ["utf-8", "windows-1254"] as const;
export const LINE_ENDINGS = ["\r\n", "\n"] as const;

export interface TemplateColumn {
  header: string;
  field: TemplateField;
  /** For a text field only: the longest cell, in characters (the description's is at least 35). */
  maxLength?: number;
}

export interface BankTemplate {
  /** What the CLI's --format and the console name it by: "AKBANK", "GENERIC-CSV". */
  code: string;
  name: string;
  columns: readonly TemplateColumn[];
  headerRow: boolean;
  separator: (typeof SEPARATORS)[number];
  decimal: (typeof DECIMAL_MARKS)[number];
  dateFormat: (typeof DATE_FORMATS)[number];
  encoding: (typeof ENCODINGS)[number];
  lineEnding: (typeof LINE_ENDINGS)[number];
  /** Names and texts in the banks' basic Latin set (ş→s), for uploads that refuse Turkish letters. */
  transliterate?: boolean;
}

export interface TemplateError {
  /** The key that is wrong, as a path: "separator", "columns[2].field". */
  key: string;
  message: string;
}

export type TemplateParse = { ok: true; template: BankTemplate } | { ok: false; errors: TemplateError[] };

const TEMPLATE_KEYS = [
  "code",
  "name",
  "columns",
  "headerRow",
  "separator",
  "decimal",
  "dateFormat",
  "encoding",
  "lineEnding",
  "transliterate",
];
const COLUMN_KEYS = ["header", "field", "maxLength"];
const CODE = /^[A-Z0-9][A-Z0-9_-]{1,31}$/;
const MAX_COLUMNS = 40;

type Errors = TemplateError[];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function shown(values: readonly string[]): string {
  return values.map((v) => JSON.stringify(v)).join(", ");
}

function unknownKeys(value: Record<string, unknown>, known: string[], at: string, errors: Errors): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key))
      errors.push({ key: `${at}${key}`, message: `is not a template key (known: ${known.join(", ")})` });
  }
}

function oneOf(value: unknown, allowed: readonly unknown[], key: string, errors: Errors): void {
  if (!allowed.includes(value)) errors.push({ key, message: `must be one of ${shown(allowed.map(String))}` });
}

function text(value: unknown, key: string, max: number, errors: Errors): void {
  if (typeof value !== "string" || value.trim() === "" || Array.from(value).length > max) {
    errors.push({ key, message: `must be a text of 1 to ${max} characters` });
  } else if (hasInvalidCharacters(value)) {
    errors.push({ key, message: "must hold no control or layout characters" });
  }
}

function checkMaxLength(column: Record<string, unknown>, key: string, errors: Errors): void {
  if (column.maxLength === undefined) return;
  const field = column.field;
  if (!(TEXT_FIELDS as readonly unknown[]).includes(field)) {
    errors.push({ key, message: `is for the text fields only (${TEXT_FIELDS.join(", ")})` });
    return;
  }
  const least = field === "description" ? 35 : 1;
  const n = column.maxLength;
  if (typeof n !== "number" || !Number.isInteger(n) || n < least || n > 1000) {
    errors.push({ key, message: `must be a whole number from ${least} to 1000` });
  }
}

function checkColumn(column: unknown, at: string, errors: Errors): void {
  if (!isRecord(column)) {
    errors.push({ key: at, message: "must be an object with header and field" });
    return;
  }
  unknownKeys(column, COLUMN_KEYS, `${at}.`, errors);
  text(column.header, `${at}.header`, 100, errors);
  oneOf(column.field, TEMPLATE_FIELDS, `${at}.field`, errors);
  checkMaxLength(column, `${at}.maxLength`, errors);
}

/** A file the bank can act on names the payee, the account, the amount and the payment id. */
function checkColumnsCover(columns: unknown[], errors: Errors): void {
  const fields = new Set(columns.map((c) => (isRecord(c) ? c.field : undefined)));
  for (const needed of ["amount", "payeeIban", "payeeName"]) {
    if (!fields.has(needed)) errors.push({ key: "columns", message: `must have a column for ${needed}` });
  }
  if (!fields.has("paymentId") && !fields.has("description")) {
    errors.push({ key: "columns", message: "must carry the payment id: a paymentId or description column" });
  }
}

function checkColumns(value: unknown, errors: Errors): void {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_COLUMNS) {
    errors.push({ key: "columns", message: `must be a list of 1 to ${MAX_COLUMNS} columns` });
    return;
  }
  for (const [i, column] of value.entries()) checkColumn(column, `columns[${i}]`, errors);
  checkColumnsCover(value, errors);
}

function checkLayout(t: Record<string, unknown>, errors: Errors): void {
  if (typeof t.headerRow !== "boolean") errors.push({ key: "headerRow", message: "must be true or false" });
  oneOf(t.separator, SEPARATORS, "separator", errors);
  oneOf(t.decimal, DECIMAL_MARKS, "decimal", errors);
  if (t.decimal === "," && t.separator === ",") {
    errors.push({
      key: "decimal",
      message: "cannot be the separator too: choose ';' or tab as the separator",
    });
  }
  oneOf(t.dateFormat, DATE_FORMATS, "dateFormat", errors);
  oneOf(t.encoding, ENCODINGS, "encoding", errors);
  oneOf(t.lineEnding, LINE_ENDINGS, "lineEnding", errors);
  if (t.transliterate !== undefined && typeof t.transliterate !== "boolean") {
    errors.push({ key: "transliterate", message: "must be true or false when given" });
  }
}

/** A template from an admin's JSON (already parsed), or every wrong key with what it must be. */
export function parseBankTemplate(value: unknown): TemplateParse {
  if (!isRecord(value)) return { ok: false, errors: [{ key: "", message: "a template is a JSON object" }] };
  const errors: Errors = [];
  unknownKeys(value, TEMPLATE_KEYS, "", errors);
  if (typeof value.code !== "string" || !CODE.test(value.code)) {
    errors.push({
      key: "code",
      message: "must be 2 to 32 of A-Z, 0-9, '-' and '_', starting with a letter or digit",
    });
  }
  text(value.name, "name", 100, errors);
  checkColumns(value.columns, errors);
  checkLayout(value, errors);
  if (errors.length > 0) return { ok: false, errors };
  // Every key is checked above. A copy, so a later change to the admin's object changes no file.
  return { ok: true, template: structuredClone(value) as unknown as BankTemplate };
}
