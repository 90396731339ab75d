import { describe, expect, it } from "vitest";
import { csvCell, toCsv, toExcelCsv } from "../../src/backoffice/csv.js";

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

  it("never lets a cell run as a spreadsheet formula", () => {
    for (const v of ["=1+1", "+SUM(A1)", "-2+3", "@cmd", "\tx"])
      expect(csvCell(v).replace(/^"/, "")).toMatch(/^'/);
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
      '\uFEFFid;name;amount;ref\r\n1;"Ayşe; Can";1500,50;12.10\r\n2;\'=cmd;;a,b\r\n',
    );
  });
});
