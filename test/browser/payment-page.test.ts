import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

/**
 * The hosted payment page in a real browser: Debian's chromium, driven by playwright-core (no
 * browser download). PAYINTAKE_SCREENSHOTS=1 also writes the main screens to docs/screenshots/.
 */
const CHROMIUM = process.env.PAYINTAKE_CHROMIUM ?? "/usr/bin/chromium";
const SHOTS =
  process.env.PAYINTAKE_SCREENSHOTS === "1"
    ? new URL("../../docs/screenshots/", import.meta.url).pathname
    : null;
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };

describe("hosted payment page in Chromium", () => {
  let server: TestServer;
  let firm: TestFirm;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server);
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function session(f: TestFirm, overrides: Record<string, unknown> = {}) {
    const body = depositBody({ redirect: true, amount: undefined, ...overrides });
    const res = await send(server, f, { path: "/paymentapi/v1/deposits", body });
    expect(res.status).toBe(200);
    return { url: `${server.url}${res.json.payment_url}`, body };
  }

  async function openPage(url: string, viewport = PHONE): Promise<{ page: Page; foreign: string[] }> {
    const context = await browser.newContext({ viewport, locale: "tr-TR" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const page = await context.newPage();
    const foreign: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) foreign.push(r.url());
    });
    await page.goto(url);
    return { page, foreign };
  }
  const shot = async (page: Page, name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };

  it("open → amount → account with copy buttons → operator approves → expired screen (phone, Turkish)", async () => {
    const { url, body } = await session(firm, { return_url: "https://shop.example/back" });
    const { page, foreign } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    expect(await page.locator("h1").textContent()).toBe("Havale / EFT ile ödeme");
    expect(await page.locator("#return-link").getAttribute("href")).toBe("https://shop.example/back");
    await shot(page, "phone-1-amount");

    await page.fill("#amount", "12,345");
    await page.click("#submit");
    expect(await page.locator("#amount-error").textContent()).toBe(
      "Geçerli bir tutar girin, örneğin 1250 veya 1250,50 (binlik ayırıcı kullanmadan).",
    );
    // A thousands separator is refused, never read as a decimal point.
    await page.fill("#amount", "1.250,00");
    await page.click("#submit");
    expect(await page.locator("#amount-error").isVisible()).toBe(true);

    await page.fill("#amount", "250,50");
    await page.click("#submit");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#v-iban").textContent()).toBe("TR33 0006 1005 1978 6457 8413 26");
    expect(await page.locator("#v-amount").textContent()).toBe("250,50 TL");
    expect(await page.locator("#v-bank").textContent()).toBe("Ziraat Bankası");
    await page.locator('[data-copy="iban"]').click();
    await expect.poll(() => page.locator("#copied").isVisible()).toBe(true);
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("TR330006100519786457841326");
    // The amount is copied as shown, with a decimal comma (a Turkish banking app reads "." as thousands).
    await page.locator('[data-copy="amount"]').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("250,50");
    await shot(page, "phone-2-account");

    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    expect(q.json.data.amount).toBe(250.5);
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/approve`, { actor: "operator:t" });
    // The page notices by itself (it polls every 3 s) and stops showing the account.
    await expect.poll(() => page.locator("#expired").isVisible(), { timeout: 8_000 }).toBe(true);
    expect(await page.content()).not.toContain("TR33 0006");
    // The payer is told the payment was confirmed, and not to pay again.
    expect(await page.locator("#expired h2").textContent()).toBe("Ödemeniz onaylandı");
    expect(await page.locator("#expired p").textContent()).toContain("tekrar ödeme yapmayın");
    // The language switch keeps the ending.
    await page.click("#lang");
    expect(await page.locator("#expired h2").textContent()).toBe("Your payment is confirmed");
    await page.click("#lang");
    await shot(page, "phone-3-expired");
    expect(foreign).toEqual([]);
    await page.context().close();
  });

  it("a business rejection is shown on the page, and another amount then succeeds; no return button without return_url", async () => {
    const limited = await createFirm(server, { deposit_max: "100.00" });
    const { url } = await session(limited);
    const { page } = await openPage(url, DESKTOP);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    expect(await page.locator("#return").isVisible()).toBe(false);
    await shot(page, "desktop-1-amount");
    await page.fill("#amount", "500");
    await page.click("#submit");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe("Yatırım tutarı limit dışında. Başka bir tutar deneyin veya limitleri işyerine sorun.");
    await page.fill("#amount", "99.90");
    await page.click("#submit");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#v-amount").textContent()).toBe("99,90 TL");
    await shot(page, "desktop-2-account");
    await page.context().close();
  });

  it("switches to English and back; rejections read in English too", async () => {
    const limited = await createFirm(server, { deposit_max: "100.00" });
    const { url } = await session(limited);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.click("#lang");
    expect(await page.locator("h1").textContent()).toBe("Pay by bank transfer");
    expect(await page.locator("html").getAttribute("lang")).toBe("en");
    await page.fill("#amount", "500");
    await page.click("#submit");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe(
        "This amount is outside the allowed limits. Try another amount or ask the merchant for the limits.",
      );
    await shot(page, "phone-4-english");
    await page.click("#lang");
    expect(await page.locator("h1").textContent()).toBe("Havale / EFT ile ödeme");
    await page.context().close();
  });

  it("without a clipboard, Kopyala selects the value and says so; a server error reads in Turkish", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "75");
    await page.click("#submit");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    await page.evaluate(() => {
      Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
    });
    await page.locator('[data-copy="iban"]').click();
    await expect
      .poll(() => page.locator("#copied").textContent())
      .toBe("Kopyalanamadı. Metni seçip elle kopyalayın.");
    expect(await page.evaluate(() => String(window.getSelection()))).toBe("TR33 0006 1005 1978 6457 8413 26");
    await page.context().close();

    const second = await openPage((await session(firm)).url);
    await expect.poll(() => second.page.locator("#open").isVisible()).toBe(true);
    await second.page.route("**/deposit", (route) =>
      route.fulfill({
        status: 500,
        contentType: "application/json",
        body: '{"success":false,"message":"An internal error occurred. Please try again later."}',
      }),
    );
    await second.page.fill("#amount", "75");
    await second.page.click("#submit");
    await expect
      .poll(() => second.page.locator("#amount-error").textContent())
      .toBe("Bir sorun oluştu. Lütfen tekrar deneyin.");
    await second.page.context().close();
  });

  it("an unknown link shows the not-found screen and reveals nothing", async () => {
    const { page } = await openPage(`${server.url}/t/${"A".repeat(32)}`);
    await expect.poll(() => page.locator("#missing").isVisible()).toBe(true);
    expect(await page.locator("#missing h2").textContent()).toBe("Ödeme bağlantısı bulunamadı");
    await page.context().close();
  });
});
