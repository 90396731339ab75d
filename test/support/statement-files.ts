/**
 * Bank statement files as banks send them, built for tests: a camt.053 (ISO 20022) and an MT940
 * for one account, their balances adding up unless told otherwise.
 */
export interface Entry {
  amount: string;
  direction?: "credit" | "debit";
  name?: string;
  description?: string;
  ref?: string;
  /** TRY unless given. */
  currency?: string;
  /** Booking time, epoch ms. */
  at: number;
}

const xml = (s: string) => s.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");
const minor = (amount: string) => Math.round(Number(amount) * 100);
const decimal = (m: number) =>
  `${Math.floor(Math.abs(m) / 100)}.${String(Math.abs(m) % 100).padStart(2, "0")}`;

export function camtFile(opts: {
  iban: string;
  sequence?: string;
  entries: Entry[];
  closingOff?: number;
}): string {
  const opening = 100_000;
  const moved = opts.entries.reduce((s, e) => s + (e.direction === "debit" ? -1 : 1) * minor(e.amount), 0);
  const closing = opening + moved + (opts.closingOff ?? 0);
  const entry = (e: Entry) => `
   <Ntry>
    <Amt Ccy="${e.currency ?? "TRY"}">${e.amount}</Amt><CdtDbtInd>${e.direction === "debit" ? "DBIT" : "CRDT"}</CdtDbtInd>
    <BookgDt><DtTm>${new Date(e.at).toISOString()}</DtTm></BookgDt>
    ${e.ref ? `<AcctSvcrRef>${xml(e.ref)}</AcctSvcrRef>` : ""}
    <NtryDtls><TxDtls>
     ${e.name ? `<RltdPties><Dbtr><Nm>${xml(e.name)}</Nm></Dbtr></RltdPties>` : ""}
     <RmtInf><Ustrd>${xml(e.description ?? "")}</Ustrd></RmtInf>
    </TxDtls></NtryDtls>
   </Ntry>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02">
 <BkToCstmrStmt>
  <Stmt>
   <ElctrncSeqNb>${opts.sequence ?? "1"}</ElctrncSeqNb>
   <Acct><Id><IBAN>${opts.iban}</IBAN></Id></Acct>
   <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${decimal(opening)}</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>
   <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">${decimal(closing)}</Amt><CdtDbtInd>${closing < 0 ? "DBIT" : "CRDT"}</CdtDbtInd></Bal>${opts.entries.map(entry).join("")}
  </Stmt>
 </BkToCstmrStmt>
</Document>`;
}
