/**
 * A sample statement: a camt.053 or MT940 file that pays an account's pending deposits, for trying
 * reconciliation on a development store without a bank (docs/reconciliation.md, "Sample
 * statements"). Pure: built from what the store read. It is no bank's: every entry's bank reference
 * begins with PAYINTAKE-SAMPLE- and its description says ÖRNEK/SAMPLE, so its lines are told apart
 * wherever they are listed, and the store that holds a bank's line refuses to make one.
 */
import { formatMinor } from "../domain/money.js";
import { turkeyDayOf } from "../domain/turkey-time.js";
import { SAMPLE_BANK_REF_PREFIX } from "../store/statements/sample-statements.js";

export const SAMPLE_FORMATS = ["camt053", "mt940"] as const;
export type SampleFormat = (typeof SAMPLE_FORMATS)[number];

/** A deposit as its payment arrives in the sample: the amount asked, the payer's name, its code. */
export interface SampleDeposit {
  id: number;
  amountMinor: number;
  payerName: string;
  paymentCode: string;
  /** When it was made: an MT940 entry is booked on that day (its lines have no time). */
  createdAt: number;
}

export interface SampleInput {
  format: SampleFormat;
  iban: string;
  deposits: readonly SampleDeposit[];
  now: number;
}

/**
 * The entry's description: the code last, after words with letters no code has (Ö, D, O, U, S, L),
 * so that a payment code read out of it is this one and no run of its words passes for another.
 */
export const sampleDescription = (code: string) => `ÖRNEK/SAMPLE ÖDEME KODU ${code}`;

const bankRef = (d: SampleDeposit) => `${SAMPLE_BANK_REF_PREFIX}${d.id}`;

/** The whole file: one statement of the account, opening at 0.00 and closing at the sum paid. */
export function sampleStatement(input: SampleInput): string {
  return input.format === "camt053" ? camt053(input) : mt940(input);
}

const xml = (s: string) =>
  s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");

const total = (deposits: readonly SampleDeposit[]) => deposits.reduce((sum, d) => sum + d.amountMinor, 0);

function camt053({ iban, deposits, now }: SampleInput): string {
  const booked = new Date(now).toISOString().replace(/\.\d{3}Z$/, "Z");
  const entries = deposits.map(
    (d) => `
   <Ntry>
    <Amt Ccy="TRY">${formatMinor(d.amountMinor)}</Amt>
    <CdtDbtInd>CRDT</CdtDbtInd>
    <Sts>BOOK</Sts>
    <BookgDt><DtTm>${booked}</DtTm></BookgDt>
    <AcctSvcrRef>${bankRef(d)}</AcctSvcrRef>
    <NtryDtls><TxDtls>
     <RltdPties><Dbtr><Nm>${xml(d.payerName)}</Nm></Dbtr></RltdPties>
     <RmtInf><Ustrd>${xml(sampleDescription(d.paymentCode))}</Ustrd></RmtInf>
    </TxDtls></NtryDtls>
   </Ntry>`,
  );
  const balance = (code: string, minor: number) =>
    `
   <Bal><Tp><CdOrPrtry><Cd>${code}</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${formatMinor(minor)}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><DtTm>${booked}</DtTm></Dt></Bal>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<!-- payintake sample statement: not a bank's. It pays this account's pending deposits so that reconciliation can be tried on a development store (docs/reconciliation.md, "Sample statements"). -->
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
 <BkToCstmrStmt>
  <GrpHdr><MsgId>PAYINTAKE-SAMPLE</MsgId><CreDtTm>${booked}</CreDtTm></GrpHdr>
  <Stmt>
   <Id>PAYINTAKE-SAMPLE</Id>
   <CreDtTm>${booked}</CreDtTm>
   <Acct><Id><IBAN>${iban}</IBAN></Id><Ccy>TRY</Ccy></Acct>${balance("OPBD", 0)}${balance("CLBD", total(deposits))}${entries.join("")}
   <AddtlStmtInf>PAYINTAKE SAMPLE: NOT A BANK STATEMENT</AddtlStmtInf>
  </Stmt>
 </BkToCstmrStmt>
</Document>
`;
}

/** YYMMDD of Türkiye's day at `at`, as MT940 writes dates. */
const mtDate = (at: number) => turkeyDayOf(at).slice(2).replaceAll("-", "");
const mtAmount = (minor: number) => formatMinor(minor).replace(".", ",");
/** A name as a `?32` subfield holds it: no `?` (it starts a subfield) and no line break. */
const mtName = (name: string) => name.replace(/[?\r\n]+/g, " ").trim();

function mt940({ iban, deposits, now }: SampleInput): string {
  const today = mtDate(now);
  const lines = [":20:PAYINTAKESAMPLE", `:25:${iban}`, `:60F:C${today}TRY${mtAmount(0)}`];
  for (const d of deposits) {
    const day = mtDate(d.createdAt);
    lines.push(`:61:${day}${day.slice(2)}C${mtAmount(d.amountMinor)}NTRFNONREF//${bankRef(d)}`);
    lines.push(`:86:166?20${sampleDescription(d.paymentCode)}?32${mtName(d.payerName)}`);
  }
  lines.push(`:62F:C${today}TRY${mtAmount(total(deposits))}`, "-");
  return `${lines.join("\r\n")}\r\n`;
}
