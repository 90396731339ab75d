import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

/**
 * A firm at its bound of pending deposits in Chromium (issue 36): the summary names it with its
 * figures, since the merchant is told only "no account"; the firms screen shows each firm's bounds
 * and an admin changes them, an empty field taking a bound off.
 */
const WAIT = { timeout: 10_000 };
const NO_ACCOUNT = '{"success":false,"message":"Bu tutar icin uygun hesap yok"}';

describe.each(STORES)("console: bounds of a firm's pending deposits (%s)", BROWSER_TEST, (kind) => {
  let server: TestServer;
  let browser: Browser;
  let bounded: TestFirm;
  let calm: TestFirm;
  const problems: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    await addAccount(server);
    await createConsoleOperators(server, ["admin"]);
    bounded = await createFirm(server, { name: "Sınırda Firma", max_pending_count: 2 });
    calm = await createFirm(server, { name: "Sakin Firma" });
    for (let i = 0; i < 2; i++) {
      const res = await send(server, bounded, {
        path: "/paymentapi/v1/deposits",
        body: depositBody({ amount: "100.00" }),
      });
      expect(res.status).toBe(200);
    }
    const refused = await send(server, bounded, { path: "/paymentapi/v1/deposits", body: depositBody() });
    expect(refused.text).toBe(NO_ACCOUNT);
    browser = await launchChromium();
  });
  afterAll(async () => {
    expect(problems).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  const signIn = () => signInConsole(browser, server, "admin", { strays: problems, timeout: WAIT.timeout });
  const text = async (page: Page, selector: string) =>
    ((await page.locator(selector).textContent()) ?? "").replace(/\u00a0/g, " ");

  it("names the firm at its bound on the summary, with its figures, and not the others", async () => {
    const page = await signIn();
    await page.click('a.tab[data-tab="summary"]');
    await expect.poll(() => page.locator("#pending-bounds").isVisible(), WAIT).toBe(true);
    expect(await text(page, "#pending-bounds h2")).toBe("Bekleyen yatırım sınırındaki firmalar");
    expect(await text(page, `#pending-bounds li[data-firm="${bounded.id}"]`)).toBe(
      `Sınırda Firma (#${bounded.id}): 2/2 bekleyen yatırım, 200,00 TL/2.000.000,00 TL. ` +
        "Yeni yatırımlarına “uygun hesap yok” yanıtı veriliyor.",
    );
    expect(await page.locator(`#pending-bounds li[data-firm="${calm.id}"]`).count()).toBe(0);
    // The line leads to the firm's settings.
    await page.click(`#pending-bounds li[data-firm="${bounded.id}"] a`);
    await expect.poll(() => page.locator("#firm-edit").isVisible(), WAIT).toBe(true);
  });

  it("shows and edits the bounds on the firms screen; an empty field takes a bound off, an empty share is the default", async () => {
    const page = await signIn();
    await page.click('a.tab[data-tab="firms"]');
    await expect.poll(() => page.locator(`#firms tr[data-firm="${calm.id}"]`).isVisible(), WAIT).toBe(true);
    expect(await text(page, "#firms thead")).toContain("Bekleyen yatırım sınırı");
    expect(await text(page, `#firms tr[data-firm="${calm.id}"] td.pending-bounds`)).toBe(
      "1000 · 2.000.000,00 TL",
    );
    await page.locator(`#firms tr[data-firm="${bounded.id}"] a.button`).click();
    const count = page.locator('#firm-edit input[name="max_pending_count"]');
    const amount = page.locator('#firm-edit input[name="max_pending_amount"]');
    expect(await count.inputValue()).toBe("2");
    expect(await amount.inputValue()).toBe("2.000.000,00");
    // The share of the caps left empty is the server's default (PAYINTAKE_DEFAULT_CAP_SHARE), said so.
    const share = page.locator('#firm-edit input[name="max_cap_share"]');
    expect(await share.inputValue()).toBe("");
    expect(await share.getAttribute("placeholder")).toBe("varsayılan %50");
    expect(await share.getAttribute("title")).toContain(
      "başka canlı firmalar da varken varsayılan pay (%50)",
    );
    await count.fill("3");
    await amount.fill("");
    await page.click('#firm-edit button[type="submit"]');
    await expect.poll(() => text(page, "#message"), WAIT).toBe(`#${bounded.id}: Kaydedildi`);
    const saved = (await server.admin("GET", `/admin/v1/firms/${bounded.id}`)).json;
    expect([saved.max_pending_count, saved.max_pending_amount]).toEqual([3, null]);
    await expect
      .poll(() => text(page, `#firms tr[data-firm="${bounded.id}"] td.pending-bounds`), WAIT)
      .toBe("3 · —");
    // The raised bound takes effect at once: the firm's next deposit goes through.
    const res = await send(server, bounded, { path: "/paymentapi/v1/deposits", body: depositBody() });
    expect(res.status).toBe(200);
  });
});
