import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
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
/** The page's status check, GET /api/pay/:token (not the submit, /api/pay/:token/deposit). */
const STATUS = /\/api\/pay\/[^/]+$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A promise and the function that resolves it: holds a routed answer until the test lets it go. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

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

  async function openPage(
    url: string,
    viewport = PHONE,
    prepare?: (context: BrowserContext) => Promise<void>,
  ): Promise<{ page: Page; foreign: string[] }> {
    const context = await browser.newContext({ viewport, locale: "tr-TR" });
    await prepare?.(context);
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    const page = await context.newPage();
    const foreign: string[] = [];
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) foreign.push(r.url());
    });
    await page.goto(url);
    return { page, foreign };
  }
  async function decide(f: TestFirm, reference: unknown, decision: "approve" | "reject") {
    const q = await send(server, f, { path: `/paymentapi/v1/transactions/by-reference/${reference}` });
    await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/${decision}`, {
      actor: "operator:t",
    });
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

  it("a slow status answer never brings the account back once the page closed; one check at a time", async () => {
    const { url, body } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "120");
    await page.click("#submit");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    // The next check is held once its answer ("assigned") was read; meanwhile the deposit is
    // approved, so any check after it answers "expired".
    const slow = gate();
    let held = false;
    let whileHeld = 0;
    let released = false;
    await page.route(STATUS, async (route) => {
      if (held) {
        if (!released) whileHeld++;
        return route.continue();
      }
      held = true;
      const answer = await route.fetch();
      await decide(firm, body.reference, "approve");
      await slow.wait;
      await route.fulfill({ response: answer });
    });
    await expect.poll(() => held, { timeout: 5_000 }).toBe(true);
    await sleep(4_500); // longer than the 3 s between checks
    released = true;
    slow.open();
    await expect.poll(() => page.locator("#expired").isVisible(), { timeout: 8_000 }).toBe(true);
    await sleep(1_000);
    expect(await page.locator("#expired").isVisible()).toBe(true);
    expect(await page.locator("#assigned").isVisible()).toBe(false);
    expect(await page.content()).not.toContain("TR33 0006");
    // No second check was started while the first was out.
    expect(whileHeld).toBe(0);
    await page.context().close();
  });

  it("a check started before the amount was sent cannot turn the account back into the form", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    const slow = gate();
    let held = false;
    await page.route(STATUS, async (route) => {
      if (held) return route.continue();
      held = true;
      const answer = await route.fetch(); // "open": read before the amount is sent
      await slow.wait;
      await route.fulfill({ response: answer });
    });
    await expect.poll(() => held, { timeout: 5_000 }).toBe(true);
    await page.fill("#amount", "130");
    await page.click("#submit");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    slow.open();
    await sleep(700);
    expect(await page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#open").isVisible()).toBe(false);
    await page.context().close();
  });

  for (const blocked of ["throws", "is null"] as const) {
    it(`with site data blocked (localStorage ${blocked}) the page loads in Turkish and switches language`, async () => {
      const { url } = await session(firm);
      const errors: string[] = [];
      const { page } = await openPage(url, PHONE, (context) =>
        context.addInitScript((mode) => {
          Object.defineProperty(window, "localStorage", {
            configurable: true,
            get() {
              if (mode === "throws") throw new DOMException("The operation is insecure.", "SecurityError");
              return null;
            },
          });
        }, blocked),
      );
      page.on("pageerror", (e) => errors.push(e.message));
      await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
      expect(await page.locator("h1").textContent()).toBe("Havale / EFT ile ödeme");
      await page.click("#lang");
      expect(await page.locator("h1").textContent()).toBe("Pay by bank transfer");
      expect(errors).toEqual([]);
      await page.context().close();
    });
  }

  it("a hidden page does not poll; it checks at once when shown again", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    const setHidden = (hidden: boolean) =>
      page.evaluate((h) => {
        Object.defineProperty(document, "hidden", { configurable: true, get: () => h });
        Object.defineProperty(document, "visibilityState", {
          configurable: true,
          get: () => (h ? "hidden" : "visible"),
        });
        document.dispatchEvent(new Event("visibilitychange"));
      }, hidden);
    await setHidden(true);
    await sleep(300); // a check already out when the page was hidden
    let checks = 0;
    page.on("request", (r) => {
      if (STATUS.test(r.url())) checks++;
    });
    await sleep(6_500);
    expect(checks).toBe(0);
    await setHidden(false);
    await expect.poll(() => checks, { timeout: 1_000 }).toBe(1);
    await page.context().close();
  });

  it("an unknown link stops polling; a first load that failed offers a retry", async () => {
    const missing = await openPage(`${server.url}/t/${"B".repeat(32)}`);
    await expect.poll(() => missing.page.locator("#missing").isVisible()).toBe(true);
    let checks = 0;
    missing.page.on("request", (r) => {
      if (STATUS.test(r.url())) checks++;
    });
    await sleep(3_500);
    expect(checks).toBe(0);
    await missing.page.context().close();

    const { url } = await session(firm);
    const { page } = await openPage(url, PHONE, (context) => context.route(STATUS, (route) => route.abort()));
    await expect.poll(() => page.locator("#failed").isVisible()).toBe(true);
    expect(await page.locator("#failed h2").textContent()).toBe("Sayfa yüklenemedi");
    await page.context().unroute(STATUS);
    await page.click("#retry");
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.context().close();
  });
});
