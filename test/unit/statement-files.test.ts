import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { minorUnits, StatementError } from "../../src/reconciliation/amounts.js";
import type { StatementLine } from "../../src/reconciliation/statement.js";
import { readStatementFile } from "../../src/reconciliation/statement-file.js";

const CAMT = `<?xml version="1.0" encoding="UTF-8"?>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">
 <BkToCstmrStmt>
  <GrpHdr><MsgId>M1</MsgId><CreDtTm>2026-11-02T18:00:00+03:00</CreDtTm></GrpHdr>
  <Stmt>
   <Id>S1</Id><ElctrncSeqNb>41</ElctrncSeqNb>
   <FrToDt><FrDtTm>2026-11-02T00:00:00+03:00</FrDtTm><ToDtTm>2026-11-02T23:59:59+03:00</ToDtTm></FrToDt>
   <Acct><Id><IBAN>TR330006100519786457841326</IBAN></Id><Ccy>TRY</Ccy></Acct>
   <Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">1000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>
   <Bal><Tp><CdOrPrtry><Cd>CLBD</Cd></CdOrPrtry></Tp><Amt Ccy="TRY">2475.50</Amt><CdtDbtInd>CRDT</CdtDbtInd></Bal>
   <Ntry>
    <Amt Ccy="TRY">1500.50</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts>
    <BookgDt><DtTm>2026-11-02T14:03:11+03:00</DtTm></BookgDt>
    <AcctSvcrRef>FAST-889911</AcctSvcrRef>
    <NtryDtls><TxDtls>
     <Refs><EndToEndId>NOTPROVIDED</EndToEndId></Refs>
     <RltdPties><Dbtr><Pty><Nm>ŞÜKRÜ ÖZTÜRK</Nm></Pty></Dbtr><DbtrAcct><Id><IBAN>TR120001000000000000000001</IBAN></Id></DbtrAcct></RltdPties>
     <RmtInf><Ustrd>ACE4 7KMX</Ustrd><Ustrd>yatırım &amp; ödeme</Ustrd></RmtInf>
    </TxDtls></NtryDtls>
   </Ntry>
   <Ntry>
    <Amt Ccy="TRY">25.00</Amt><CdtDbtInd>DBIT</CdtDbtInd>
    <BookgDt><Dt>2026-11-02</Dt></BookgDt>
    <AddtlNtryInf>EFT MASRAFI</AddtlNtryInf>
   </Ntry>
  </Stmt>
 </BkToCstmrStmt>
</Document>`;

const MT940 = [
  "{1:F01BANKTRISAXXX0000000000}{2:I940BANKTRISXXXXN}{4:",
  ":20:STMT2026110201",
  ":25:TR330006100519786457841326",
  ":28C:00041/001",
  ":60F:C261102TRY1000,00",
  ":61:2611021102C1500,50NTRFNONREF//FAST889911",
  ":86:FAST GELEN AHMET YILMAZ",
  "ACE47KMX YATIRIM",
  ":61:261102D25,NCHGNONREF",
  ":86:EFT MASRAFI",
  ":61:261102C200,NTRFREF1//B-2",
  ":86:166?20ODEME ?21PK3X?32MEHMET CAN?33 DEMIR?31TR120001000000000000000001",
  ":62F:C261102TRY2675,50",
  "-}",
].join("\r\n");

async function read(text: string | Uint8Array, chunk = 1 << 16) {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  async function* pieces() {
    for (let i = 0; i < bytes.length; i += chunk) yield bytes.subarray(i, i + chunk);
  }
  // The lines as the reader hands them over, gathered under the statement they end with.
  let lines: StatementLine[] = [];
  const gathered: StatementLine[][] = [];
  const { format, statements } = await readStatementFile(pieces(), {
    line: (l) => {
      lines.push(l);
    },
    statement: (t) => {
      gathered.push(lines);
      lines = [];
      expect(t.lines).toBe(gathered.at(-1)?.length);
    },
  });
  return {
    format,
    statements: statements.map((t, i) => ({ header: t.header, doubts: t.doubts, lines: gathered[i] ?? [] })),
  };
}

describe("statement files", () => {
  it("a camt.053: the account, sequence, balances and every entry, with names and descriptions", async () => {
    const { format, statements } = await read(CAMT);
    expect(format).toBe("camt.053");
    const [s] = statements;
    expect(s?.header).toEqual({
      accountIban: "TR330006100519786457841326",
      sequence: "41",
      openingMinor: 100_000,
      closingMinor: 247_550,
      currency: "TRY",
      periodFrom: Date.parse("2026-11-02T00:00:00+03:00"),
      periodTo: Date.parse("2026-11-02T23:59:59+03:00"),
    });
    expect(s?.doubts).toEqual([]);
    expect(s?.lines).toEqual([
      {
        bookedAt: Date.parse("2026-11-02T14:03:11+03:00"),
        dateOnly: false,
        amountMinor: 150_050,
        direction: "credit",
        currency: "TRY",
        senderName: "ŞÜKRÜ ÖZTÜRK",
        senderIban: "TR120001000000000000000001",
        description: "ACE4 7KMX yatırım & ödeme",
        bankRef: "FAST-889911",
        reversal: false,
      },
      {
        bookedAt: Date.parse("2026-11-02T00:00:00+03:00"),
        dateOnly: true,
        amountMinor: 2_500,
        direction: "debit",
        currency: "TRY",
        senderName: null,
        senderIban: null,
        description: "EFT MASRAFI",
        bankRef: null,
        reversal: false,
        // A charge's words on a debit, no IBAN: the bank's fee (narrative.ts).
        fee: true,
      },
    ]);
  });

  it("an MT940: entries with their narratives, free text or subfields", async () => {
    const { format, statements } = await read(MT940);
    expect(format).toBe("mt940");
    const [s] = statements;
    expect(s?.header).toMatchObject({
      accountIban: "TR330006100519786457841326",
      sequence: "00041/001",
      periodFrom: Date.parse("2026-11-02T00:00:00+03:00"),
      periodTo: Date.parse("2026-11-02T00:00:00+03:00"),
    });
    expect(s?.doubts).toEqual([]);
    expect(s?.lines.map((l) => [l.direction, l.amountMinor, l.senderName, l.description, l.bankRef])).toEqual(
      [
        ["credit", 150_050, "AHMET YILMAZ", "FAST GELEN AHMET YILMAZ ACE47KMX YATIRIM", "FAST889911"],
        ["debit", 2_500, null, "EFT MASRAFI", null],
        ["credit", 20_000, "MEHMET CAN DEMIR", "ODEME PK3X", "B-2"],
      ],
    );
    expect(s?.lines.every((l) => l.dateOnly && l.bookedAt === Date.parse("2026-11-02T00:00:00+03:00"))).toBe(
      true,
    );
  });

  it("read the same in any split of the bytes (a chunk may end inside a character or a tag)", async () => {
    const whole = await read(CAMT);
    const wholeMt = await read(MT940);
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 97 }), async (chunk) => {
        expect(await read(CAMT, chunk)).toEqual(whole);
        expect(await read(MT940, chunk)).toEqual(wholeMt);
      }),
      { numRuns: 40 },
    );
  });

  it("a byte order mark before either format is no fault", async () => {
    expect((await read(`\uFEFF${CAMT}`)).statements[0]?.lines).toHaveLength(2);
    expect((await read(`\uFEFF${MT940}`)).statements[0]?.lines).toHaveLength(3);
  });

  it("a statement that does not add up is read, with the doubt named", async () => {
    const { statements } = await read(MT940.replace(":62F:C261102TRY2675,50", ":62F:C261102TRY2675,40"));
    expect(statements[0]?.doubts[0]).toMatch(/do not add up/);
  });

  it.each([
    [
      "a DTD (entity expansion)",
      `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;">]><Document><x>&lol2;</x></Document>`,
      /DTD/,
    ],
    ["an undeclared entity", "<Document><x>&lol;</x></Document>", /not well-formed XML/],
    ["XML cut short", CAMT.slice(0, 900), /not well-formed XML/],
    ["an entry with a bad amount", CAMT.replace("1500.50", "1500.505"), /not a decimal amount/],
    ["an MT940 entry before its statement", ":61:261102C200,NTRFREF1\r\n:86:X\r\n-", /before the statement/],
    [
      "an MT940 entry that is no entry",
      MT940.replace("C1500,50NTRF", "X1500,50NTRF"),
      /not a statement entry/,
    ],
    ["neither format", "hello", /neither a camt.053/],
    ["an empty file", "", /empty/],
  ])("%s is refused", async (_what, text, why) => {
    await expect(read(text)).rejects.toThrow(StatementError);
    await expect(read(text)).rejects.toThrow(why);
  });

  it("an MT940 whose statements lack the '-' between them: each statement keeps its own lines", async () => {
    const two = [
      ":20:A",
      ":25:TR120001000000000000000001",
      ":60F:C261102TRY0,00",
      ":61:261102C1500,00NTRFHAVALE",
      ":86:ODEME",
      ":62F:C261102TRY1500,00",
      ":20:B",
      ":25:TR330006100519786457841326",
      ":60F:C261102TRY0,00",
      ":61:2611031102C10,00NTRFINV/2026",
      ":86:X",
      ":61:261104C10,00NTRFHAVALE",
      ":86:Y",
      ":62F:C261102TRY20,00",
      "-",
    ].join("\n");
    const { statements } = await read(two);
    expect(statements.map((s) => [s.header.accountIban, s.lines.length])).toEqual([
      ["TR120001000000000000000001", 1],
      ["TR330006100519786457841326", 2],
    ]);
    // No "//": no bank reference (the customer's "HAVALE" is on many entries); the entry date
    // (MMDD) is the booking day, not the value date.
    expect(statements[1]?.lines.map((l) => l.bankRef)).toEqual([null, null]);
    expect(statements[1]?.lines[0]?.bookedAt).toBe(Date.parse("2026-11-02T00:00:00+03:00"));
    expect(statements[0]?.lines[0]?.bankRef).toBeNull();
  });

  it("an entry's charges do not change its amount or direction; a reversal is marked", async () => {
    const charged = CAMT.replace(
      "<BookgDt><Dt>2026-11-02</Dt></BookgDt>",
      '<BookgDt><Dt>2026-11-02</Dt></BookgDt><RvslInd>true</RvslInd><Chrgs><Rcrd><Amt Ccy="TRY">999.00</Amt><CdtDbtInd>CRDT</CdtDbtInd></Rcrd></Chrgs>',
    );
    const [, fee] = (await read(charged)).statements[0]?.lines ?? [];
    expect([fee?.amountMinor, fee?.direction, fee?.reversal]).toEqual([2_500, "debit", true]);
  });

  it.each([
    ["a statement inside another", CAMT.replace("<Ntry>", "<Stmt><Ntry>"), /inside another/],
    [
      "an entry outside any statement",
      CAMT.replace("<Stmt>", "<Ntry><Amt>1</Amt></Ntry><Stmt>"),
      /outside any statement/,
    ],
    ["a NUL in a description", CAMT.replace("EFT MASRAFI", "EFT\u0000MASRAFI"), /control characters/],
    [
      "a date of another century",
      CAMT.replace("2026-11-02T14:03:11+03:00", "+275760-09-13T00:00:00Z"),
      /not a date/,
    ],
    [
      "two :25: in one MT940 statement",
      MT940.replace(":28C:", ":25:TR120001000000000000000001\r\n:28C:"),
      /second :25:/,
    ],
  ])("%s is refused", async (_what, text, why) => {
    await expect(read(text)).rejects.toThrow(why);
  });

  it("a file in another encoding than UTF-8 is refused", async () => {
    const latin1 = Uint8Array.from([...":20:X\r\n:86:\xD6DEME\r\n"].map((c) => c.charCodeAt(0)));
    await expect(read(latin1)).rejects.toThrow(/not UTF-8/);
  });

  it("amounts are read as text into minor units", () => {
    expect(minorUnits("1500.5")).toBe(150_050);
    expect(minorUnits("1500,50")).toBe(150_050);
    expect(minorUnits("7,")).toBe(700);
    expect(minorUnits("0.1")).toBe(10);
    for (const bad of ["1.234", "-5", "1e3", "", "12.3.4", "１２"]) expect(minorUnits(bad)).toBeUndefined();
  });
});
