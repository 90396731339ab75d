import type { Browser } from "playwright-core";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositWithCode } from "../support/merchant.js";
import { camtFile } from "../support/statement-files.js";

/**
 * A statement that does not balance approves nothing (issue 45): the line that proves a deposit is
 * suggested, and its detail tells the operator why, with the difference, in the console's words.
 */
const WAIT = { timeout: 10_000 };

describe.each(STORES)("console: a line held back by an unbalanced statement (%s)", BROWSER_TEST, (kind) => {
  let server: TestServer;
  let browser: Browser;
  let lineId = 0;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    const account = await addAccount(server);
    const firm = await createFirm(server, { answer_payment_code: true });
    await createConsoleOperators(server, ["operator"]);
    const d = await depositWithCode(server, firm, { amount: "250.00" });
    const file = camtFile({
      iban: account.iban,
      entries: [
        {
          amount: "250.00",
          at: d.at + 1_000,
          description: d.code,
          ref: "HELD-1",
        },
      ],
      closingOff: -123_456,
    });
    const res = await request(`${server.url}/admin/v1/accounts/${account.id}/statements`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.adminToken}`, "content-type": "application/xml" },
      body: file,
    });
    expect(((await res.body.json()) as { suggested: number }).suggested).toBe(1);
    const lines = await server.admin(
      "GET",
      `/admin/v1/statement-lines?account=${account.id}&state=suggested`,
    );
    lineId = lines.json[0].id;
    browser = await launchChromium();
  });
  afterAll(async () => {
    expect(problems).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  it("the line's detail says the statement does not balance, by how much, and that nothing approved by itself", async () => {
    const page = await signInConsole(browser, server, "operator", {
      path: `/ops#/statement-lines/${lineId}?state=all`,
      strays: problems,
    });
    const held = page.locator("#ld-held");
    await expect.poll(() => held.textContent(), WAIT).toContain("Ekstre tutmuyor");
    expect(await held.textContent()).toContain("-1.234,56 TL");
    // The deposit it proves is still offered to the operator, who decides.
    await expect.poll(() => page.locator("#candidates li").count(), WAIT).toBe(1);
    // The candidate says it was proven and what held it (issue 49).
    expect(await page.locator('#candidates [data-stop="held_unbalanced"]').textContent()).toBe(
      "kanıtlandı, ama ekstre tutmuyor ya da bakiyesi yok (yukarıda)",
    );
    await page.context().close();
  });
});
