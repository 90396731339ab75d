import { describe, expect, it } from "vitest";
import { StatementError } from "../../src/reconciliation/amounts.js";
import { lineKey, type StatementLine } from "../../src/reconciliation/statement.js";
import { readStatementFile } from "../../src/reconciliation/statement-file.js";
import { readTypedLine } from "../../src/reconciliation/typed-lines.js";

/** A camt.053 of one statement holding `entries` (each a whole Ntry). */
function camt(...entries: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><Stmt>
<Acct><Id><IBAN>TR330006100519786457841326</IBAN></Id></Acct>
${entries.join("\n")}
</Stmt></BkToCstmrStmt></Document>`;
}

function ntry(direction: "DBIT" | "CRDT", amount: string, inner: string, code = ""): string {
  return `<Ntry><Amt Ccy="TRY">${amount}</Amt><CdtDbtInd>${direction}</CdtDbtInd>
<BookgDt><DtTm>2026-11-02T14:03:11+03:00</DtTm></BookgDt>${code}<NtryDtls>${inner}</NtryDtls></Ntry>`;
}

function tx(id: string, payee = "", more = ""): string {
  const parties = payee
    ? `<RltdPties><Dbtr><Nm>PAYINTAKE AS</Nm></Dbtr><Cdtr><Pty><Nm>${payee}</Nm></Pty></Cdtr>
<CdtrAcct><Id><IBAN>TR120001000000000000000001</IBAN></Id></CdtrAcct></RltdPties>`
    : "";
  return `<TxDtls><Refs><EndToEndId>${id}</EndToEndId></Refs>${parties}${more}</TxDtls>`;
}

async function linesOf(text: string): Promise<StatementLine[]> {
  const lines: StatementLine[] = [];
  async function* bytes() {
    yield new TextEncoder().encode(text);
  }
  await readStatementFile(bytes(), { line: (l) => void lines.push(l), statement: () => undefined });
  return lines;
}

describe("camt.053: what a debit and a return say", () => {
  it("a debit names its payee and EndToEndId; a credit its debtor, as before", async () => {
    const [paid, got] = await linesOf(
      camt(
        ntry(
          "DBIT",
          "1500.00",
          tx("PI7K3M9Q2X4B8N1P", "AYŞE\u202E KAYA", "<RmtInf><Ustrd>PI7K3M9Q2X4B8N1P</Ustrd></RmtInf>"),
        ),
        ntry("CRDT", "10.00", tx("NOTPROVIDED", "AYŞE KAYA")),
      ),
    );
    expect(paid).toMatchObject({
      direction: "debit",
      senderName: "AYŞE KAYA",
      senderIban: "TR120001000000000000000001",
      endToEndId: "PI7K3M9Q2X4B8N1P",
      description: "PI7K3M9Q2X4B8N1P",
    });
    expect(paid?.fee).toBeUndefined();
    expect(got).toMatchObject({ senderName: "PAYINTAKE AS", direction: "credit" });
    expect(got).not.toHaveProperty("endToEndId");
  });

  it("a return: RtrInf's reason code and words, or the return sub-family RRTN", async () => {
    const rtr = "<RtrInf><Rsn><Cd>AC04</Cd></Rsn><AddtlInf>HESAP KAPALI</AddtlInf></RtrInf>";
    const rrtn =
      "<BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>RCDT</Cd><SubFmlyCd>RRTN</SubFmlyCd></Fmly></Domn></BkTxCd>";
    const [returned, coded, debitWithRtr] = await linesOf(
      camt(
        ntry("CRDT", "1500.00", tx("PI7K3M9Q2X4B8N1P", "", rtr)),
        ntry("CRDT", "1500.00", tx("NOTPROVIDED"), rrtn),
        ntry("DBIT", "5.00", tx("X1", "", rtr)),
      ),
    );
    expect(returned).toMatchObject({
      endToEndId: "PI7K3M9Q2X4B8N1P",
      returnInfo: { reason: "AC04 HESAP KAPALI" },
    });
    expect(coded?.returnInfo).toEqual({ reason: null });
    // A debit gives nothing back to us: only a credit returns a payout.
    expect(debitWithRtr?.returnInfo).toBeUndefined();
  });

  it("a charge: the family CHRG or a charges sub-family, on a debit", async () => {
    const code = (fmly: string, sub: string) =>
      `<BkTxCd><Domn><Cd>ACMT</Cd><Fmly><Cd>${fmly}</Cd><SubFmlyCd>${sub}</SubFmlyCd></Fmly></Domn></BkTxCd>`;
    const lines = await linesOf(
      camt(
        ntry("DBIT", "5.00", tx("NOTPROVIDED"), code("MDOP", "CHRG")),
        ntry("DBIT", "5.00", tx("NOTPROVIDED"), code("CHRG", "OTHR")),
        ntry("DBIT", "5.00", tx("NOTPROVIDED"), code("ICDT", "DMCT")),
      ),
    );
    expect(lines.map((l) => l.fee === true)).toEqual([true, true, false]);
  });

  it("a batch booked as one debit: the entry's amount, its transfers' ids, no one payee", async () => {
    const [batch] = await linesOf(
      camt(
        ntry(
          "DBIT",
          "3000.00",
          [tx("PIA00000000001", "A B"), tx("NOTPROVIDED", "C D"), tx("PIA00000000003", "E F")].join(""),
        ),
      ),
    );
    expect(batch).toMatchObject({ amountMinor: 300_000, endToEndIds: ["PIA00000000001", "PIA00000000003"] });
    expect([batch?.senderName, batch?.senderIban, batch?.endToEndId]).toEqual([null, null, undefined]);
  });

  it("an EndToEndId past 35 characters, or with a control character, refuses the file", async () => {
    await expect(linesOf(camt(ntry("DBIT", "1.00", tx("P".repeat(36)))))).rejects.toThrow(
      /EndToEndId is longer/,
    );
    await expect(linesOf(camt(ntry("DBIT", "1.00", tx("PI&#1;X"))))).rejects.toThrow(StatementError);
  });

  it("a batch of more transfers than an entry may hold is refused as it streams", async () => {
    const many = Array.from({ length: 20_001 }, (_, i) => tx(`PI${i}`)).join("");
    await expect(linesOf(camt(ntry("DBIT", "1.00", many)))).rejects.toThrow(/more than 20000 transfers/);
  });
});

const MT940 = (entries: string[]) =>
  [
    ":20:S1",
    ":25:TR330006100519786457841326",
    ":28C:1/1",
    ":60F:C261102TRY0,00",
    ...entries,
    ":62F:C261102TRY0,00",
    "-",
  ].join("\r\n");

describe("MT940: payment ids, returns and fees in a narrative", () => {
  it("reads them by the :61: type code and the :86: words", async () => {
    const lines = await linesOf(
      MT940([
        ":61:261102D1500,00NTRFNONREF",
        ":86:EFT GIDEN ALICI AYSE KAYA TR12 0001 0000 0000 0000 0000 01 ACIKLAMA PI7K3M9Q2X",
        ":61:261102C1500,00NTRFNONREF",
        ":86:İADE AC04 PI7K3M9Q2X4B8N1P HESAP KAPALI",
        ":61:261102C1500,00NRTINONREF",
        ":86:166?20GERI ODEME?32AYSE KAYA",
        ":61:261102D2,50NCHGNONREF",
        ":86:BSMV",
        ":61:261102D7,50NTRFNONREF",
        ":86:EFT MASRAFI",
        ":61:261102C40,00NTRFNONREF",
        ":86:KOMISYON IADESI",
      ]),
    );
    expect(lines[0]).toMatchObject({
      description: expect.stringContaining("PI7K3M9Q2X"),
      senderIban: "TR120001000000000000000001",
    });
    expect(lines[0]?.fee).toBeUndefined();
    expect(lines[1]?.returnInfo).toEqual({ reason: "AC04" });
    expect(lines[2]?.returnInfo).toEqual({ reason: null });
    expect(lines.slice(3, 5).map((l) => l.fee)).toEqual([true, true]);
    // A fee's refund is no payout's return.
    expect(lines[5]?.returnInfo).toBeUndefined();
  });
});

describe("the feed's and typed lines' new fields", () => {
  const now = Date.parse("2026-11-02T18:00:00+03:00");
  const base = { booked_at: "2026-11-02", amount: "1500.00" };

  it("carry the EndToEndId, a return with its reason, a fee", () => {
    expect(
      readTypedLine({ ...base, direction: "debit", end_to_end_id: "PI7K3M9Q2X4B8N1P", fee: false }, now),
    ).toMatchObject({
      ok: true,
      line: { endToEndId: "PI7K3M9Q2X4B8N1P" },
    });
    expect(
      readTypedLine({ ...base, is_return: true, return_reason: "AC04 hesap kapalı" }, now),
    ).toMatchObject({
      line: { returnInfo: { reason: "AC04 hesap kapalı" } },
    });
    expect(readTypedLine({ ...base, direction: "debit", fee: true }, now)).toMatchObject({
      line: { fee: true },
    });
  });

  it("read the narrative where they are silent, and stand where they speak", () => {
    const said = (over: object) => readTypedLine({ ...base, ...over }, now);
    expect(said({ description: "IADE AC01" })).toMatchObject({ line: { returnInfo: { reason: "AC01" } } });
    expect(said({ description: "IADE AC01", is_return: false })).not.toHaveProperty("line.returnInfo");
    expect(said({ direction: "debit", description: "EFT MASRAFI", fee: false })).not.toHaveProperty(
      "line.fee",
    );
  });

  it("refuse what cannot be", () => {
    const refused = (over: object) => readTypedLine({ ...base, ...over }, now);
    expect(refused({ direction: "debit", is_return: true })).toEqual({
      ok: false,
      message: "is_return: only a credit gives a payout back",
    });
    expect(refused({ fee: true })).toEqual({ ok: false, message: "fee: only a debit is a bank's charge" });
    expect(refused({ return_reason: "AC04" })).toEqual({
      ok: false,
      message: "return_reason: only with is_return: true",
    });
    expect(refused({ end_to_end_id: "PI\u0000" })).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^end_to_end_id/),
    });
  });
});

describe("a line's key", () => {
  const base: StatementLine = {
    bookedAt: Date.parse("2026-11-02T14:03:11+03:00"),
    dateOnly: false,
    amountMinor: 150_050,
    direction: "credit",
    currency: "TRY",
    senderName: "ŞÜKRÜ ÖZTÜRK",
    senderIban: "TR12 0001 0000 0000 0000 0000 01",
    description: "ACE4 7KMX yatırım",
    bankRef: null,
  };
  const debit: StatementLine = {
    ...base,
    dateOnly: true,
    bookedAt: Date.parse("2026-11-02T00:00:00+03:00"),
    direction: "debit",
    senderName: "AHMET YILMAZ",
    senderIban: "TR120001000000000000000001",
    description: "PI7K3M9Q2X4B8N1P",
    amountMinor: 100_000,
  };

  it("is the one computed before the new fields, for a line without them", () => {
    // Computed by the code before EndToEndIds joined the key: stored lines keep theirs.
    expect(lineKey(base)).toBe("sum:31e57b549929d72f74bed745a7c115ca");
    expect(
      lineKey({
        ...base,
        direction: "debit",
        senderName: null,
        senderIban: null,
        description: "EFT MASRAFI",
        amountMinor: 2500,
      }),
    ).toBe("sum:664f7417c3e408d8949ed4dbf514ed9c");
    expect(lineKey(debit)).toBe("sum:907085ea3206eadd062d56e479e3740a");
    expect(lineKey({ ...debit, endToEndId: null, fee: false, returnInfo: null, endToEndIds: [] })).toBe(
      lineKey(debit),
    );
    expect(lineKey({ ...base, bankRef: " FAST-889911 ", endToEndId: "PI1" })).toBe("ref:FAST-889911");
  });

  it("tells two equal debits of one day apart by their payee or their EndToEndId", () => {
    const keys = new Set([
      lineKey(debit),
      lineKey({ ...debit, senderName: "AYŞE KAYA" }),
      lineKey({ ...debit, senderIban: "TR120001000000000000000002" }),
      lineKey({ ...debit, endToEndId: "PIA" }),
      lineKey({ ...debit, endToEndId: "PIB" }),
      lineKey({ ...debit, endToEndIds: ["PIA", "PIB"] }),
      // A return carries its debit's id, and stays a line of its own.
      lineKey({ ...debit, endToEndId: "PIA", direction: "credit" }),
    ]);
    expect(keys.size).toBe(7);
  });
});
