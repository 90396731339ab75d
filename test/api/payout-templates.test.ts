import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

/**
 * Bank templates an admin adds without code (issue 47, point 4): checked key by key, kept, listed
 * beside the shipped ones, and one of a shipped one's code used in its place.
 */
describe.each(STORES)("payout bank templates (%s)", (kind) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
  });
  afterAll(() => server?.close());

  const template = {
    code: "ORNEK-BANKA",
    name: "Örnek Banka toplu ödeme",
    headerRow: true,
    separator: ";",
    decimal: ",",
    dateFormat: "DD.MM.YYYY",
    encoding: "windows-1254",
    lineEnding: "\r\n",
    columns: [
      { header: "Alıcı IBAN", field: "payeeIban" },
      { header: "Alıcı Adı", field: "payeeName" },
      { header: "Tutar", field: "amount" },
      { header: "Açıklama", field: "description" },
    ],
  };

  it("an admin adds a template; it is listed beside the shipped ones", async () => {
    const added = await server.admin("POST", "/admin/v1/payouts/templates?actor=ayse", template);
    expect(added.status, JSON.stringify(added.json)).toBe(201);
    expect(added.json).toMatchObject({ code: "ORNEK-BANKA", shipped: false });
    const list = await server.admin("GET", "/admin/v1/payouts/templates");
    const codes = list.json.templates.map((t: { code: string }) => t.code);
    expect(codes).toEqual(expect.arrayContaining(["ORNEK-BANKA", "GENERIC-CSV", "AKBANK", "GARANTI"]));
    const audit = await server.admin("GET", "/admin/v1/audit?action=payout.settings");
    expect(JSON.stringify(audit.json)).toContain("template:ORNEK-BANKA");
  });

  it("a template with a wrong key is refused, naming it", async () => {
    const bad = await server.admin("POST", "/admin/v1/payouts/templates", {
      ...template,
      seperator: ";",
      columns: [{ header: "x", field: "password" }],
    });
    expect(bad.status).toBe(422);
    expect(bad.json).toMatchObject({ success: false, code: "payout_template_invalid" });
    expect(bad.json.message).toMatch(/seperator/);
    expect(bad.json.message).toMatch(/columns\[0\]\.field/);
    const notJson = await server.admin("POST", "/admin/v1/payouts/templates", [1, 2]);
    expect(notJson.status).toBe(400);
  });
});
