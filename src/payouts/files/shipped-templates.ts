/**
 * The bank templates shipped with payintake (docs/payouts.md). They are shaped after the
 * layouts Turkish banks commonly publish for bulk-payment uploads; no bank has certified them, so an
 * operator checks one against their bank's current layout before the first real upload, and an
 * admin adds a corrected copy as JSON where a bank differs.
 */
import type { BankTemplate } from "./bank-template.js";

/** Every field, UTF-8, comma and decimal point: for a bank or a tool that reads plain CSV. */
export const GENERIC_CSV: BankTemplate = {
  code: "GENERIC-CSV",
  name: "Generic CSV (UTF-8, comma, decimal point)",
  headerRow: true,
  separator: ",",
  decimal: ".",
  dateFormat: "YYYY-MM-DD",
  encoding: "utf-8",
  lineEnding: "\n",
  columns: [
    { header: "payment_id", field: "paymentId" },
    { header: "execution_date", field: "executionDate" },
    { header: "method", field: "method" },
    { header: "amount", field: "amount" },
    { header: "currency", field: "currency" },
    { header: "payee_name", field: "payeeName" },
    { header: "payee_iban", field: "payeeIban" },
    { header: "description", field: "description" },
    { header: "debtor_iban", field: "debtorIban" },
  ],
};

/** Akbank-shaped: Turkish headers, semicolons, decimal comma, DD.MM.YYYY, Windows-1254, CRLF. */
export const AKBANK: BankTemplate = {
  code: "AKBANK",
  name: "Akbank toplu ödeme (shaped after the public layout, not certified)",
  headerRow: true,
  separator: ";",
  decimal: ",",
  dateFormat: "DD.MM.YYYY",
  encoding: "windows-1254",
  lineEnding: "\r\n",
  columns: [
    { header: "Sıra No", field: "rowNumber" },
    { header: "Alıcı IBAN", field: "payeeIban" },
    { header: "Alıcı Adı Soyadı", field: "payeeName" },
    { header: "Tutar", field: "amount" },
    { header: "Döviz Cinsi", field: "currency" },
    { header: "Açıklama", field: "description", maxLength: 100 },
    { header: "İşlem Tarihi", field: "executionDate" },
  ],
};

/**
 * Garanti-shaped: upper-case ASCII headers, basic Latin names and texts (its older upload screen
 * refuses Turkish letters), semicolons, decimal comma, Windows-1254, CRLF.
 */
export const GARANTI: BankTemplate = {
  code: "GARANTI",
  name: "Garanti BBVA toplu ödeme (shaped after the public layout, not certified)",
  headerRow: true,
  separator: ";",
  decimal: ",",
  dateFormat: "DD/MM/YYYY",
  encoding: "windows-1254",
  lineEnding: "\r\n",
  transliterate: true,
  columns: [
    { header: "ALICI IBAN", field: "payeeIban" },
    { header: "ALICI UNVAN", field: "payeeName", maxLength: 50 },
    { header: "TUTAR", field: "amount" },
    { header: "ACIKLAMA", field: "description", maxLength: 70 },
    { header: "REFERANS", field: "paymentId" },
    { header: "ODEME TURU", field: "method" },
    { header: "ODEME TARIHI", field: "executionDate" },
  ],
};

export const SHIPPED_TEMPLATES: readonly BankTemplate[] = [GENERIC_CSV, AKBANK, GARANTI];
