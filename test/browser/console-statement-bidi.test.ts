import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, pendingDeposit } from "../support/merchant.js";

/**
 * A sender's name written right to left (issue 45) is laid out on its own wherever the console shows
 * it: the lines' list, a line's detail and the detail of the deposit the line settled. Real Arabic
 * letters, which every door lets in (only the layout controls are refused): isolated, the number
 * written after the name stays after it; mixed into the text, it would be drawn before the name.
 */
const WAIT = { timeout: 10_000 };
const SENDER = "محمد علي";
/** The description shown after the sender on a deposit's detail: digits take the direction before them. */
const DESCRIPTION = "12345";

describe.each(STORES)("console: a sender's name written right to left (%s)", BROWSER_TEST, (kind) => {
  let server: TestServer;
  let browser: Browser;
  let lineId = 0;
  let depositId = 0;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    const account = await addAccount(server);
    const firm = await createFirm(server);
    await createConsoleOperators(server, ["operator"]);
    depositId = await pendingDeposit(server, firm, { first_name: "Ali", last_name: "Kaya", amount: "75.00" });
    const typed = await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      amount: "75.00",
      sender_name: SENDER,
      description: DESCRIPTION,
    });
    expect(typed.status).toBe(200);
    lineId = typed.json.results[0].id;
    const approved = await server.admin("POST", `/admin/v1/statement-lines/${lineId}/approve`, {
      transaction_id: depositId,
    });
    expect(approved.status).toBe(200);
    browser = await launchChromium();
  });
  afterAll(async () => {
    expect(problems).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  async function open(path: string): Promise<Page> {
    return signInConsole(browser, server, "operator", { path, strays: problems });
  }

  it("the lines' list and a line's detail hold the name in a <bdi>", async () => {
    const page = await open(`/ops#/statement-lines/${lineId}?state=all`);
    const listed = page.locator(`#lines li[data-id="${lineId}"] .l-sender bdi`);
    await expect.poll(() => listed.textContent(), WAIT).toBe(SENDER);
    const detail = page.locator('#line-detail [data-field="sender_name"] dd');
    await expect.poll(() => detail.locator("bdi").textContent(), WAIT).toBe(SENDER);
    expect(await detail.textContent()).toBe(SENDER);
    await page.context().close();
  });

  it("the deposit's detail holds the settling line's name in a <bdi>; what follows stays after it", async () => {
    const page = await open(`/ops#/transactions/${depositId}`);
    const field = page.locator('[data-field="statement_line"] dd');
    await expect.poll(() => field.locator("bdi").textContent(), WAIT).toBe(SENDER);
    expect(await field.textContent()).toContain(` · ${SENDER} · ${DESCRIPTION} · `);
    const placed = await field.evaluate((dd, description) => {
      const bdi = dd.querySelector("bdi") as HTMLElement;
      const text = bdi.nextSibling as Text;
      const at = (text.textContent ?? "").indexOf(description);
      const range = document.createRange();
      range.setStart(text, at);
      range.setEnd(text, at + description.length);
      return range.getBoundingClientRect().left >= bdi.getBoundingClientRect().right;
    }, DESCRIPTION);
    expect(placed).toBe(true);
    await page.context().close();
  });
});
