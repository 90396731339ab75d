import { readFile } from "node:fs/promises";
import type { Browser } from "playwright-core";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOfTurkeyDay, turkeyDayOf } from "../../src/domain/turkey-time.js";
import { axeViolations } from "../support/axe.js";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode, type TestFirm } from "../support/merchant.js";
import { camtFile } from "../support/statement-files.js";

/**
 * "Bakiyeler" in Chromium (issue 48, point 7), one store (the API test runs both): an admin opens
 * it from the navigation, sees a firm's balance after approvals with a commission and a bank
 * account's difference marked as an error, opens the account's explanation, then the firm's days,
 * and downloads them as CSV. axe finds nothing on the screen.
 */
const WAIT = { timeout: 10_000 };

describe("console: balances, in Chromium", BROWSER_TEST, () => {
  let server: TestServer;
  let browser: Browser;
  let firm: TestFirm;
  let account: { id: number; iban: string };
  const strays: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    // To the next Türkiye noon: the test's minutes, on the server's clock, never cross a midnight.
    const noon = startOfTurkeyDay(server.clock.now()) + 12 * 3_600_000;
    server.clock.advance((noon > server.clock.now() ? noon : noon + 86_400_000) - server.clock.now());
    account = await addAccount(server, { bank_name: "Garanti BBVA", iban: "TR320010009999901234567890" });
    firm = await createFirm(server, { name: "Kuzey Oyun A.Ş.", answer_payment_code: true });
    const set = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, { commission_deposit: "1.00" });
    expect(set.status).toBe(200);
    // 100.00 proven by the bank's line, 50.00 approved by hand after it: 148.50 after 1 %.
    const paid = await depositWithCode(server, firm, { amount: "100.00" });
    const byHand = await depositWithCode(server, firm, { amount: "50.00" });
    const approved = await server.admin("POST", `/admin/v1/transactions/${byHand.id}/approve`, {
      actor: "cli:test",
    });
    expect(approved.status).toBe(200);
    // camtFile opens at 1,000.00, which the ledger was never told: a difference of 1,000.00.
    const statement = camtFile({
      iban: account.iban,
      entries: [
        { amount: "100.00", name: "ALI VELI", description: `odeme ${paid.code}`, ref: "B-1", at: paid.at },
      ],
    });
    const upload = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body: statement,
    });
    expect(upload.statusCode, await upload.body.text()).toBe(200);
    await createConsoleOperators(server, ["admin"]);
    browser = await launchChromium();
  });
  afterAll(async () => {
    // Every request went to the console's own origin, and no page threw.
    expect(strays).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  it("a firm's balance, an account's difference and its explanation, the firm's days downloaded as CSV", async () => {
    const page = await signInConsole(browser, server, "admin", { strays });
    await page.click('a.tab[data-tab="balances"]');
    const cell = (row: string, col: string) => page.locator(`${row} [data-col="${col}"]`).textContent();
    const firmRow = `#balance-firms tr[data-firm="${firm.id}"]`;
    await expect.poll(() => cell(firmRow, "balance"), WAIT).toBe("148,50 TL");
    expect(await cell(firmRow, "available")).toBe("148,50 TL");

    const accountRow = `#balance-accounts tr[data-iban="${account.iban}"]`;
    await expect.poll(() => cell(accountRow, "difference"), WAIT).toBe("1.000,00 TL");
    expect(await cell(accountRow, "state")).toContain("⚠ Fark var");
    expect(await page.locator(accountRow).getAttribute("class")).toBe("mismatch");
    await page.click(`${accountRow} a.explain`);
    await expect.poll(() => page.locator("#check-unexplained").textContent(), WAIT).toBe("1.000,00 TL");
    expect(await axeViolations(page)).toEqual([]);

    // The firm's days: the last seven, today's closing its balance.
    await page.click(`${firmRow} a`);
    const today = turkeyDayOf(server.clock.now());
    const todayRow = `#days tr[data-date="${today}"]`;
    await expect.poll(() => cell(todayRow, "closing"), WAIT).toBe("148,50");
    expect(await page.locator("#days tbody tr").count()).toBe(7);
    expect(await cell(todayRow, "commissions")).toBe("-1,50");
    expect(await axeViolations(page)).toEqual([]);

    const downloading = page.waitForEvent("download");
    await page.click("#days-csv");
    const download = await downloading;
    expect(download.suggestedFilename()).toMatch(
      new RegExp(`^firm-${firm.id}-days-\\d{4}-\\d{2}-\\d{2}-${today}\\.csv$`),
    );
    const lines = (await readFile(await download.path(), "utf8")).trim().split("\r\n");
    expect(lines).toHaveLength(8);
    expect(lines[7]).toBe(`${firm.id},${today},0.00,150.00,0.00,-1.50,0.00,0.00,0.00,0.00,0.00,148.50`);
  });
});
