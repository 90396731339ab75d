import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../support/merchant.js";

/**
 * In Chromium, what the console tells an admin about a firm and a transaction that the API accepts
 * without a word: a live firm's plain-http webhook (its callbacks carry payers' names in clear), and
 * the fields a merchant sent that the API ignores (a misspelt `returnUrl`).
 */
describe("the console's warnings on firms and transactions, in Chromium", BROWSER_TEST, () => {
  let server: TestServer;
  let browser: Browser;
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await createConsoleOperators(server, ["admin"]);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const signIn = () => signInConsole(browser, server, "admin", { strays: errors });

  async function createInForm(page: Page, name: string, webhook: string, sandbox: boolean) {
    await page.fill('#firm-create input[name="name"]', name);
    await page.fill('#firm-create input[name="webhook_url"]', webhook);
    if (sandbox) await page.check('#firm-create input[name="sandbox"]');
    await page.click('#firm-create button[type="submit"]');
    // Waits for this firm and its own message: the one before still says "Kaydedildi".
    let id: number | undefined;
    await expect
      .poll(async () => {
        const firms = (await server.admin("GET", "/admin/v1/firms")).json as { id: number; name: string }[];
        id = firms.find((f) => f.name === name)?.id;
        return id;
      })
      .toBeDefined();
    await expect
      .poll(() => page.locator("#message").textContent())
      .toMatch(new RegExp(`^#${id}: Kaydedildi`));
    return id as number;
  }

  it("a live firm's plain-http webhook is warned of at creation, in the list and in its form; a test firm's is not", async () => {
    const page = await signIn();
    await page.click('a.tab[data-tab="firms"]');
    const live = await createInForm(page, "Canlı Firma", "http://127.0.0.1:9/hook", false);
    expect(await page.locator("#message").textContent()).toBe(
      `#${live}: Kaydedildi Webhook adresi şifresiz http: bildirimler ödeyenlerin adlarını açık metin olarak taşır. https kullanın.`,
    );
    const test = await createInForm(page, "Test Firma", "http://127.0.0.1:9/hook", true);
    expect(await page.locator("#message").textContent()).toBe(`#${test}: Kaydedildi`);
    const secure = await createInForm(page, "Güvenli Firma", "https://127.0.0.1:9/hook", false);

    await expect
      .poll(() => page.locator(`#firms tr[data-firm="${live}"] .plain-http`).textContent())
      .toBe("şifresiz http");
    expect(await page.locator(`#firms tr[data-firm="${test}"] .plain-http`).count()).toBe(0);
    expect(await page.locator(`#firms tr[data-firm="${secure}"] .plain-http`).count()).toBe(0);

    await page.locator(`#firms tr[data-firm="${live}"] a.button`).click();
    await expect
      .poll(() => page.locator("#firm-edit .plain-http-webhook").textContent())
      .toBe(
        "Webhook adresi şifresiz http: bildirimler ödeyenlerin adlarını açık metin olarak taşır. https kullanın.",
      );
    // Saved as https, the warning goes.
    await page.fill('#firm-edit input[name="webhook_url"]', "https://127.0.0.1:9/hook");
    await page.click('#firm-edit button[type="submit"]');
    await expect.poll(() => page.locator(`#firms tr[data-firm="${live}"] .plain-http`).count()).toBe(0);
    await expect.poll(() => page.locator("#firm-edit .plain-http-webhook").count()).toBe(0);

    // In English too.
    await page.locator(`#firms tr[data-firm="${secure}"] a.button`).click();
    await page.fill('#firm-edit input[name="webhook_url"]', "http://127.0.0.1:9/hook");
    await page.click('#firm-edit button[type="submit"]');
    await page.click("#lang");
    await expect
      .poll(() => page.locator(`#firms tr[data-firm="${secure}"] .plain-http`).textContent())
      .toBe("plain http");
    await expect
      .poll(() => page.locator("#firm-edit .plain-http-webhook").textContent())
      .toBe("The webhook is plain http: callbacks carry payers' names in clear text. Use https.");
    expect(errors).toEqual([]);
  });

  it("a transaction's detail names the fields its request sent that the API ignored", async () => {
    await addAccount(server);
    const firm = await createFirm(server);
    const body = depositBody({ returnUrl: "https://shop.example/back", nationalid: "1" });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body })).status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    const page = await signIn();
    await page.goto(`${server.url}/ops#/transactions/${q.json.data.id}`);
    const field = page.locator('#d-fields [data-field="ignored_fields"]');
    await expect.poll(() => field.locator("dt").textContent()).toBe("Tanınmayan alanlar (yok sayıldı)");
    expect(await field.locator("dd").textContent()).toBe("returnUrl, nationalid");
    expect(errors).toEqual([]);
  });
});
