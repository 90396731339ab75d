/**
 * ISO 20022 pain.001 (customer credit transfer initiation) for a payout batch, in the two versions
 * Turkish banks ask for. One group header, one payment information block for the paying account,
 * one transfer per payout. Only the elements a bank needs are written, in the order and within the
 * lengths and patterns of each version's published schema (test/fixtures/payouts/xsd/, checked with
 * xmllint in the tests). Nothing in the file depends on the clock: the same batch is the same bytes.
 */
import { TURKEY_OFFSET_MS, TURKEY_ZONE } from "../../domain/turkey-time.js";
import { bankPayeeName, bankSafeText, NAME_MAX, REMITTANCE_MAX, remittanceLine } from "./bank-text.js";
import {
  assertBatchFileInput,
  type BatchFileInput,
  type BatchFilePayout,
  batchTotals,
  decimalAmount,
  type FileChunks,
} from "./batch-file.js";

export const PAIN001_VERSIONS = ["pain.001.001.09", "pain.001.001.03"] as const;
export type Pain001Version = (typeof PAIN001_VERSIONS)[number];

/** Text content escaped for XML; the schema's lengths count the text, so cutting happens before. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"]/g, (c) =>
    c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&quot;",
  );
}

/** The creation time in Türkiye's zone, to the second: the batch's own time, never "now". */
function creationTime(at: number): string {
  return `${new Date(at + TURKEY_OFFSET_MS).toISOString().slice(0, 19)}${TURKEY_ZONE}`;
}

/** .09 asks for a date-or-date-time choice where .03 has a plain date. */
function executionDate(day: string, version: Pain001Version): string {
  return version === "pain.001.001.09"
    ? `<ReqdExctnDt><Dt>${day}</Dt></ReqdExctnDt>`
    : `<ReqdExctnDt>${day}</ReqdExctnDt>`;
}

function head(input: BatchFileInput, version: Pain001Version): string {
  const { count, sumMinor } = batchTotals(input.payouts);
  const debtor = escapeXml(bankSafeText(input.debtor.name, NAME_MAX));
  const sum = decimalAmount(sumMinor);
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:${version}">`,
    `  <CstmrCdtTrfInitn>`,
    `    <GrpHdr>`,
    `      <MsgId>${input.messageId}</MsgId>`,
    `      <CreDtTm>${creationTime(input.createdAt)}</CreDtTm>`,
    `      <NbOfTxs>${count}</NbOfTxs>`,
    `      <CtrlSum>${sum}</CtrlSum>`,
    `      <InitgPty><Nm>${debtor}</Nm></InitgPty>`,
    `    </GrpHdr>`,
    `    <PmtInf>`,
    `      <PmtInfId>${input.messageId}</PmtInfId>`,
    `      <PmtMtd>TRF</PmtMtd>`,
    `      <NbOfTxs>${count}</NbOfTxs>`,
    `      <CtrlSum>${sum}</CtrlSum>`,
    `      ${executionDate(input.executionDate, version)}`,
    `      <Dbtr><Nm>${debtor}</Nm></Dbtr>`,
    `      <DbtrAcct><Id><IBAN>${input.debtor.iban}</IBAN></Id></DbtrAcct>`,
    // The paying bank is known from its own account; "NOTPROVIDED" is ISO's word for "no BIC given".
    `      <DbtrAgt><FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId></DbtrAgt>`,
    "",
  ].join("\n");
}

/**
 * One transfer. The method travels as a proprietary local instrument (FAST or EFT), which the
 * bank's upload reads where it routes by it; the charge bearer is left to the bank's default.
 */
function transfer(p: BatchFilePayout): string {
  const name = escapeXml(bankPayeeName(p.payeeName));
  const text = escapeXml(
    remittanceLine(p.paymentId, bankSafeText(p.remittance, REMITTANCE_MAX), REMITTANCE_MAX),
  );
  return [
    `      <CdtTrfTxInf>`,
    `        <PmtId><EndToEndId>${p.paymentId}</EndToEndId></PmtId>`,
    `        <PmtTpInf><LclInstrm><Prtry>${p.method}</Prtry></LclInstrm></PmtTpInf>`,
    `        <Amt><InstdAmt Ccy="TRY">${decimalAmount(p.amountMinor)}</InstdAmt></Amt>`,
    `        <Cdtr><Nm>${name}</Nm></Cdtr>`,
    `        <CdtrAcct><Id><IBAN>${p.payeeIban}</IBAN></Id></CdtrAcct>`,
    `        <RmtInf><Ustrd>${text}</Ustrd></RmtInf>`,
    `      </CdtTrfTxInf>`,
    "",
  ].join("\n");
}

const TAIL = ["    </PmtInf>", "  </CstmrCdtTrfInitn>", "</Document>", ""].join("\n");

/**
 * The batch as a pain.001 file, a chunk per transfer. The input is checked whole before the first
 * chunk (a bad batch throws, as a bug upstream), so a reader never gets half a file.
 */
export function pain001File(input: BatchFileInput, version: Pain001Version): FileChunks {
  assertBatchFileInput(input);
  return pain001Chunks(input, version);
}

function* pain001Chunks(input: BatchFileInput, version: Pain001Version): Generator<Buffer> {
  yield Buffer.from(head(input, version), "utf8");
  for (const p of input.payouts) yield Buffer.from(transfer(p), "utf8");
  yield Buffer.from(TAIL, "utf8");
}
