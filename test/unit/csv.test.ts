import { describe, expect, it } from "vitest";
import { csvCell, toCsv, toExcelCsv } from "../../src/http/csv.js";

describe("CSV export", () => {
  it("quotes what needs quoting and keeps the rest as is", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell("line\nbreak")).toBe('"line\nbreak"');
    expect(csvCell(" padded ")).toBe('" padded "');
    expect(csvCell(null)).toBe("");
    expect(csvCell(150)).toBe("150");
  });

  it("quotes a cell holding a bidirectional control or a line separator (a row stored before the API refused them)", () => {
    for (const c of ["\u202E", "\u2066", "\u2028", "\u2029", "\u0085"])
      expect(csvCell(`ORD${c}1`)).toBe(`"ORD${c}1"`);
    expect(csvCell("Ayşe Yılmaz")).toBe("Ayşe Yılmaz");
  });

  it("never lets a cell run as a spreadsheet formula", () => {
    for (const v of ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx"])
      expect(csvCell(v).replace(/^"/, "")).toMatch(/^'/);
  });

  it("no piece of a cell runs as a formula when Excel splits the file on the other separator (a Turkish Excel split 'ali;=2+3' in the plain file into a formula cell)", () => {
    expect(csvCell("ali;=2+3;@SUM(1+9)")).toBe("ali;'=2+3;'@SUM(1+9)");
    expect(csvCell("a;b,c")).toBe('"a;b,c"');
    // The file's own separator is quoted, never changed: a reference "ORD,-5" stays itself in the
    // plain file (found by review: an apostrophe there broke reconciliation by reference).
    expect(csvCell("ORD,-5")).toBe('"ORD,-5"');
    expect(csvCell("u;+90 555", ";")).toBe('"u;+90 555"');
    expect(csvCell("ORD,-5", ";")).toBe("ORD,'-5");
    // With quotes between the separator and the formula character as well.
    expect(csvCell('a,"=cmd', ";")).toBe('"a,""\'=cmd"');
    expect(csvCell('a;""@x')).toBe('"a;""""\'@x"');
    // Each line split on the other separator, with quotes only where that separator would see a
    // field start (what Excel does): no piece starts a formula, however the cells fall.
    const rows = [{ user_id: "77;=1+1", username: "ali;=2+3;@SUM(1+9)", note: "x,+1" }];
    const lines = [
      [toCsv(["user_id", "username", "note"], rows).split("\r\n")[1] ?? "", ";"],
      [toExcelCsv(["user_id", "username", "note"], rows, []).split("\r\n")[1] ?? "", ","],
    ] as const;
    for (const [line, splitOn] of lines)
      for (const piece of line.split(splitOn)) expect(piece.replace(/^"/, ""), line).not.toMatch(/^[=+\-@]/);
  });

  it("writes a header and CRLF lines in column order", () => {
    expect(toCsv(["id", "name"], [{ name: "Ayşe", id: 1 }, { id: 2 }])).toBe("id,name\r\n1,Ayşe\r\n2,\r\n");
  });

  it("for Excel: a BOM, ';' between cells (quoted where a cell holds one), decimal commas in amount columns only", () => {
    const rows = [
      { id: 1, name: "Ayşe; Can", amount: "1500.50", ref: "12.10" },
      { id: 2, name: "=cmd", amount: null, ref: "a,b" },
    ];
    expect(toExcelCsv(["id", "name", "amount", "ref"], rows, ["amount"])).toBe(
      '\uFEFFid;name;amount;ref\r\n1;"Ayşe; Can";1500,50;"=""12.10"""\r\n2;\'=cmd;;a,b\r\n',
    );
  });

  it("for Excel: text it would turn into a number or a date is kept as typed (a formula of that text)", () => {
    const cells = (ref: string) =>
      toExcelCsv(["ref", "amount"], [{ ref, amount: "5.00" }], ["amount"]).split("\r\n")[1];
    // Leading zeros, more than 15 digits, a date, a time, an exponent, a sign: as typed.
    expect(cells("000123")).toBe('"=""000123""";5,00');
    expect(cells("12345678901234567")).toBe('"=""12345678901234567""";5,00');
    expect(cells("2024-01")).toBe('"=""2024-01""";5,00');
    expect(cells("10:30")).toBe('"=""10:30""";5,00');
    expect(cells("1E5")).toBe('"=""1E5""";5,00');
    expect(cells("-5")).toBe('"=""-5""";5,00');
    // Text Excel keeps as text anyway is written as before; a "," is never put in a formula.
    expect(cells("ORD-000123")).toBe("ORD-000123;5,00");
    expect(cells("1,5")).toBe("1,5;5,00");
    expect(cells("=1+1")).toBe("'=1+1;5,00");
    // The machines' file is untouched.
    expect(toCsv(["ref"], [{ ref: "000123" }])).toBe("ref\r\n000123\r\n");
  });

  it("a signed amount in an amount column is the number it is, in both files; anywhere else it is guarded", () => {
    const rows = [{ date: "2026-12-01", withdrawals: "-20.00", closing: "126.00", memo: "=1+1" }];
    const columns = ["date", "withdrawals", "closing", "memo"];
    expect(toCsv(columns, rows, ["withdrawals", "closing"])).toBe(
      "date,withdrawals,closing,memo\r\n2026-12-01,-20.00,126.00,'=1+1\r\n",
    );
    expect(toExcelCsv(columns, rows, ["withdrawals", "closing"]).split("\r\n")[1]).toBe(
      '"=""2026-12-01""";-20,00;126,00;\'=1+1',
    );
    // Not an amount column, or more than a signed decimal: the formula guard as before.
    expect(toCsv(["memo"], [{ memo: "-20.00" }])).toBe("memo\r\n'-20.00\r\n");
    expect(toCsv(["amount"], [{ amount: "-20.00+1" }], ["amount"])).toBe("amount\r\n'-20.00+1\r\n");
  });

  it("telling the text Excel would convert takes time in proportion to the text (it was quadratic)", () => {
    // A reference of digits that ends in a letter is text, written as is; the old pattern tried
    // every split of the digits before saying so: 100-character references, usernames and ids
    // over an export's 50,000 rows held the event loop for about a second.
    const nearMiss = `${"1".repeat(30_000)}x`;
    const started = performance.now();
    expect(toExcelCsv(["reference"], [{ reference: nearMiss }], [])).toContain(nearMiss);
    expect(performance.now() - started).toBeLessThan(100);
  });
});
