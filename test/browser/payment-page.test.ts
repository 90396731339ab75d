import { join } from "node:path";
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { encode } from "uqr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPaymentCode } from "../../src/domain/payment-code.js";
import { BROWSER_TEST, launchChromium, SCREENSHOTS, withoutEmbeddedStatus } from "../support/browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  decide as decideAs,
  depositBody,
  hostedSession,
  send,
  type TestFirm,
} from "../support/merchant.js";

/**
 * The hosted payment page in a real browser: Debian's chromium, driven by playwright-core (no
 * browser download). PAYINTAKE_SCREENSHOTS=1 also writes the main screens to docs/screenshots/.
 */
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

describe("hosted payment page in Chromium", BROWSER_TEST, () => {
  let server: TestServer;
  let firm: TestFirm;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const session = (f: TestFirm, overrides: Record<string, unknown> = {}) =>
    hostedSession(server, f, overrides);

  async function openPage(
    url: string,
    viewport = PHONE,
    prepare?: (context: BrowserContext) => Promise<unknown>,
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
  const decide = (f: TestFirm, reference: unknown, decision: "approve" | "reject") =>
    decideAs(server, f, String(reference), decision);
  const shot = async (page: Page, name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };

  it("open → amount → account with copy buttons → operator approves → expired screen (phone, Turkish)", async () => {
    const { url, body } = await session(firm, { return_url: "https://shop.example/back" });
    const { page, foreign } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    expect(await page.locator("h1").textContent()).toBe("Havale / EFT ile ödeme");
    expect(await page.locator("#return-link").getAttribute("href")).toBe("https://shop.example/back");
    await shot(page, "phone-1-amount");

    // Examples are not listed with commas: "250, 250,50" read as three amounts where the decimal
    // separator is a comma.
    expect(await page.locator("#amount-help").textContent()).toBe("Örnek: 250 ya da 1.250,50");
    await page.fill("#amount", "12,345");
    await page.click("#submit");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe("Geçerli bir tutar girin; örneğin 1250 ya da 1.250,50.");
    // An ambiguous thousands separator is refused, never read as a decimal point, and the payer is
    // told what to type instead (a "TL" before the amount is dropped as one after it is).
    await page.fill("#amount", "TL 1.250");
    await page.click("#submit");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe("1.250 TL mi? Öyleyse 1250 ya da 1.250,00 yazın.");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("amount");

    // "TL" or "₺" around the amount is no reason to refuse it.
    await page.fill("#amount", "₺250,50 TL");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    // Focus moves to the new screen's lead, so that a screen reader announces it.
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("assigned-lead");
    expect(await page.locator("#earlier-amount").isVisible()).toBe(false);
    expect(await page.locator('[data-copy="iban"]').getAttribute("aria-label")).toBe("IBAN'ı kopyala");
    expect(await page.locator('[data-copy="amount"]').getAttribute("aria-label")).toBe("Tutarı kopyala");
    expect(await page.locator("#v-iban").textContent()).toBe("TR33 0006 1005 1978 6457 8413 26");
    expect(await page.locator("#v-amount").textContent()).toBe("250,50 TL");
    expect(await page.locator("#v-bank").textContent()).toBe("Ziraat Bankası");
    // The payment code to write in the transfer's description, with its own copy button.
    const code = (await page.locator("#v-code").textContent()) ?? "";
    expect(isPaymentCode(code)).toBe(true);
    expect(await page.locator('[data-copy="code"]').getAttribute("aria-label")).toBe("Açıklamayı kopyala");
    expect(await page.locator("#code-help").textContent()).toContain("açıklamasına yazın");
    // What happens next: the merchant is told, and the payer need not watch the page (an operator
    // may take hours); before, "the page updates itself" read as "wait here".
    expect(await page.locator("#waiting").textContent()).toBe(
      "Ödemeyi gönderdiyseniz tekrar göndermeyin. Onaylandığında işyerine bildirilir ve bu sayfa kendiliğinden güncellenir; sayfayı açık tutmanız gerekmez.",
    );
    // The status line is a live region that is there before anything is said in it (one that
    // appears with its text may go unannounced), and each copy writes into it anew.
    expect(
      await page
        .locator("#copied")
        .evaluate((el) => [(el as HTMLElement).hidden, el.getAttribute("role"), el.textContent]),
    ).toEqual([false, "status", ""]);
    await page.evaluate(() => {
      const el = document.getElementById("copied") as HTMLElement & { said?: string[] };
      el.said = [];
      new MutationObserver(() => el.said?.push(el.textContent ?? "")).observe(el, { childList: true });
    });
    const said = () =>
      page.locator("#copied").evaluate((el) => (el as HTMLElement & { said?: string[] }).said);
    await page.locator('[data-copy="iban"]').click();
    await expect.poll(() => page.locator("#copied").isVisible()).toBe(true);
    await page.locator('[data-copy="iban"]').click();
    await expect.poll(said).toEqual(["Kopyalandı", "", "Kopyalandı"]);
    // The button pressed says so too (the status line is far below it on a phone).
    expect(await page.locator('[data-copy="iban"]').textContent()).toBe("Kopyalandı ✓");
    // Its name says what it shows, for one who presses buttons by speaking their words (axe:
    // label-content-name-mismatch).
    expect(await page.locator('[data-copy="iban"]').getAttribute("aria-label")).toBe("IBAN kopyalandı");
    expect(await page.locator('[data-copy="bank"]').textContent()).toBe("Kopyala");
    await expect
      .poll(() => page.locator('[data-copy="iban"]').textContent(), { timeout: 4_000 })
      .toBe("Kopyala");
    expect(await page.locator('[data-copy="iban"]').getAttribute("aria-label")).toBe("IBAN'ı kopyala");
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
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("expired-title");
    expect(await page.locator("#expired p").textContent()).toContain("tekrar ödeme yapmayın");
    // The language switch keeps the ending.
    await page.click("#lang");
    expect(await page.locator("#expired h2").textContent()).toBe("Your payment is confirmed");
    await page.click("#lang");
    await shot(page, "phone-3-expired");
    expect(foreign).toEqual([]);
    await page.context().close();
  });

  it("shows the amount large and in words before sending it; 'Tutarı değiştir' goes back with it; '1.500' is one tap away", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url);
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/deposit")) sent.push(r.postData() ?? "");
    });
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    // The language switch is named by what it shows (axe: label-content-name-mismatch).
    expect(await page.locator("#lang").textContent()).toBe("English");
    expect(await page.locator("#lang").getAttribute("aria-label")).toBeNull();
    expect(await page.locator("label[for=amount]").textContent()).toBe("Ödemek istediğiniz tutar (TL)");

    // A digit too many: seen in words before anything is sent.
    await page.fill("#amount", "15000");
    await page.click("#submit");
    await expect.poll(() => page.locator("#check").isVisible()).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("confirm-title");
    expect(await page.locator("#confirm-amount").textContent()).toBe("15.000,00 TL");
    expect(await page.locator("#confirm-words").textContent()).toBe("on beş bin Türk lirası");
    expect(await page.locator("#confirm").textContent()).toBe("Onayla ve hesabı göster");
    await page.click("#lang");
    expect(await page.locator("#confirm-words").textContent()).toBe("fifteen thousand Turkish lira");
    expect(await page.locator("#change").textContent()).toBe("Change the amount");
    await page.click("#lang");
    await shot(page, "phone-1b-confirm");
    await page.click("#change");
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    expect(await page.locator("#amount").inputValue()).toBe("15000");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("amount");
    expect(sent).toEqual([]);

    // "1.500": refused as ambiguous, its likely reading offered as one tap; the field marked red.
    await page.fill("#amount", "1.500");
    await page.click("#submit");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe("1.500 TL mi? Öyleyse 1500 ya da 1.500,00 yazın.");
    expect(await page.locator("#take-reading").textContent()).toBe("1.500,00 TL ile devam et");
    expect(await page.locator("#amount").evaluate((e) => getComputedStyle(e).borderTopColor)).toBe(
      "rgb(179, 38, 30)",
    );
    await page.click("#take-reading");
    await expect.poll(() => page.locator("#check").isVisible()).toBe(true);
    expect(await page.locator("#confirm-amount").textContent()).toBe("1.500,00 TL");
    expect(await page.locator("#confirm-words").textContent()).toBe("bin beş yüz Türk lirası");
    expect(sent).toEqual([]);
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#v-amount").textContent()).toBe("1.500,00 TL");
    expect(sent.map((b) => JSON.parse(b))).toEqual([{ amount: "1500" }]);
    // Operators and the bank statement match a payment by the payer's name.
    expect(await page.locator("#own-name").textContent()).toBe(
      "Kendi adınıza açılmış bir hesaptan gönderin: ödemeniz adınızla eşleştirilir.",
    );
    // The reading is gone with the error once an amount is taken.
    expect(await page.locator("#reading").isVisible()).toBe(false);
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
      .toBe("Yatırım tutarı limit dışında. En çok 100,00 TL.");
    await page.fill("#amount", "99.90");
    await page.click("#submit");
    await page.click("#confirm");
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
      .toBe("This amount is outside the allowed limits. At most 100,00 TL.");
    await shot(page, "phone-4-english");
    await page.click("#lang");
    expect(await page.locator("h1").textContent()).toBe("Havale / EFT ile ödeme");
    await page.context().close();
  });

  it("in English a rejection says what to do next, as in Turkish (a banned payer, deposits closed)", async () => {
    const closing = await createFirm(server);
    const banned = await session(closing, { user_id: "u-banned-en" });
    expect(
      (await server.admin("PUT", `/admin/v1/firms/${closing.id}/bans`, { user_id: "u-banned-en" })).status,
    ).toBe(200);
    const { page } = await openPage(banned.url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "300");
    await page.click("#submit");
    await page.click("#confirm");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe("Bu kullanıcı ödeme yapamaz. İşyerine başvurun.");
    await page.click("#lang");
    expect(await page.locator("#amount-error").textContent()).toBe(
      "This user cannot make payments. Contact the merchant.",
    );
    await page.context().close();

    const open = await session(closing);
    expect(
      (await server.admin("PATCH", `/admin/v1/firms/${closing.id}`, { deposits: "closed" })).status,
    ).toBe(200);
    const other = await openPage(open.url);
    await expect.poll(() => other.page.locator("#open").isVisible()).toBe(true);
    await other.page.click("#lang");
    await other.page.fill("#amount", "300");
    await other.page.click("#submit");
    await other.page.click("#confirm");
    await expect
      .poll(() => other.page.locator("#amount-error").textContent())
      .toBe("Deposits are closed at the moment. Try again later.");
    await other.page.context().close();
  });

  it("a link whose reference the merchant reused says it cannot be used, not that the payment was sent", async () => {
    const direct = depositBody({ amount: "100.00" });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: direct })).status).toBe(200);
    const { url } = await session(firm, { reference: direct.reference });
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "300");
    await page.click("#submit");
    await page.click("#confirm");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe(
        "Bu ödeme bağlantısı kullanılamıyor. İşyerine başvurun veya işyerinin sitesine dönüp yeni bir ödeme başlatın.",
      );
    await page.click("#lang");
    expect(await page.locator("#amount-error").textContent()).toBe(
      "This payment link cannot be used. Contact the merchant, or go back to the merchant's site and start a new payment.",
    );
    await page.context().close();
  });

  it("a payer with an earlier deposit still pending is shown where to pay it; once decided, the form comes back", async () => {
    const direct = depositBody({ amount: "350.00" });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: direct })).status).toBe(200);
    const { url } = await session(firm, { user_id: direct.user_id });
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#open").isVisible()).toBe(false);
    expect(await page.locator("#earlier-deposit").textContent()).toBe(
      "Daha önce başlattığınız 350,00 TL tutarındaki ödeme henüz sonuçlanmadı; o sonuçlanmadan yeni ödeme başlatılamaz. Göndermediyseniz aşağıdaki hesaba gönderin; gönderdiyseniz tekrar göndermeyin.",
    );
    expect(await page.locator("#v-amount").textContent()).toBe("350,00 TL");
    expect(await page.locator("#v-iban").textContent()).toBe("TR33 0006 1005 1978 6457 8413 26");
    // The notice says where to send it or not to send it again; the lead "send exactly this" would
    // contradict it (found by review). The one deadline shown is the deposit's (none here: no
    // auto-cancel), not this link's 30 minutes.
    expect(await page.locator("#assigned-lead").isVisible()).toBe(false);
    expect(await page.locator("#pay-by").isVisible()).toBe(false);
    expect(await page.locator("#waiting").textContent()).toBe(
      "O ödeme sonuçlandığında bu sayfa kendiliğinden güncellenir.",
    );
    await page.locator('[data-copy="amount"]').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("350,00");
    await shot(page, "phone-5-earlier-deposit");
    await page.click("#lang");
    expect(await page.locator("#earlier-deposit").textContent()).toContain(
      "Your earlier payment of 350,00 TL is not settled yet",
    );
    await page.click("#lang");

    // Decided: the next check brings the form back, says why, and moves focus to that notice.
    await decide(firm, direct.reference, "approve");
    await expect.poll(() => page.locator("#open").isVisible(), { timeout: 8_000 }).toBe(true);
    expect(await page.locator("#earlier-settled").textContent()).toBe(
      "Önceki ödeme talebiniz sonuçlandı. Yeni bir ödeme için tutarı girin.",
    );
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("earlier-settled");
    await page.fill("#amount", "120");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#v-amount").textContent()).toBe("120,00 TL");
    expect(await page.locator("#earlier-deposit").isVisible()).toBe(false);
    expect(await page.locator("#assigned-lead").isVisible()).toBe(true);
    expect(await page.locator("#waiting").textContent()).toBe(
      "Ödemeyi gönderdiyseniz tekrar göndermeyin. Onaylandığında işyerine bildirilir ve bu sayfa kendiliğinden güncellenir; sayfayı açık tutmanız gerekmez.",
    );
    await page.context().close();

    // Made elsewhere while the form was on screen: the refusal sends the page to ask at once.
    const later = await session(firm);
    const second = await openPage(later.url);
    await expect.poll(() => second.page.locator("#open").isVisible()).toBe(true);
    const meanwhile = depositBody({ amount: "75.00", user_id: later.body.user_id });
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: meanwhile })).status).toBe(200);
    await second.page.fill("#amount", "100");
    await second.page.click("#submit");
    await second.page.click("#confirm");
    await expect
      .poll(() => second.page.locator("#earlier-deposit").isVisible(), { timeout: 2_500 })
      .toBe(true);
    expect(await second.page.locator("#v-amount").textContent()).toBe("75,00 TL");
    expect(await second.page.evaluate(() => document.activeElement?.id)).toBe("earlier-deposit");
    await second.page.context().close();
  });

  it("without a clipboard, Kopyala selects exactly the value it would copy and says so; a server error reads in Turkish", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "1234.5");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#v-amount").textContent()).toBe("1.234,50 TL");
    await page.evaluate(() => {
      Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
    });
    /** The selected text, in the focused field or in the document. */
    const selected = () =>
      page.evaluate(() => {
        const el = document.activeElement;
        return el instanceof HTMLInputElement
          ? el.value.slice(el.selectionStart ?? 0, el.selectionEnd ?? 0)
          : String(window.getSelection());
      });
    await page.locator('[data-copy="iban"]').click();
    await expect
      .poll(() => page.locator("#copied").textContent())
      .toBe("Otomatik kopyalanamadı. Değer aşağıda seçildi; elle kopyalayın.");
    expect(await selected()).toBe("TR330006100519786457841326");
    await page.locator('[data-copy="amount"]').click();
    await expect.poll(selected).toBe("1234,50");
    // The status follows a language switch.
    await page.click("#lang");
    expect(await page.locator("#copied").textContent()).toBe(
      "Could not copy automatically. The value is selected below; copy it by hand.",
    );
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
    await second.page.click("#confirm");
    await expect
      .poll(() => second.page.locator("#amount-error").textContent())
      .toBe("Bir sorun oluştu. Lütfen tekrar deneyin.");
    await second.page.context().close();
  });

  it("on a 320 px phone the account fits without sideways scrolling, and the copy buttons are thumb-sized", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url, { width: 320, height: 640 });
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "1.250,50");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    const heights = await page
      .locator(".copy")
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
    expect(heights).toHaveLength(5);
    for (const h of heights) expect(h).toBeGreaterThanOrEqual(44);
    await page.context().close();
  });

  it("at 200 % zoom or a large font (a 360 px phone is then 180 px wide) the IBAN and the amount stay readable", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url, { width: 180, height: 640 });
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "1.250,50");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    await page.locator('[data-copy="iban"]').click();
    await expect.poll(() => page.locator('[data-copy="iban"]').textContent()).toBe("Kopyalandı ✓");
    // How many lines each word of a value takes: 1 each, never a digit or two per line.
    const linesPerWord = (id: string) =>
      page.evaluate((id) => {
        const node = document.getElementById(id)?.firstChild as Text;
        const lines: number[] = [];
        for (const match of node.data.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          lines.push(new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size);
        }
        return lines;
      }, id);
    expect(await linesPerWord("v-iban")).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(await linesPerWord("v-amount")).toEqual([1, 1]);
    expect(await linesPerWord("v-bank")).toEqual([1, 1]);
    // Every copy button, "Kopyalandı ✓" too, inside the card: none cut off at its edge.
    const card = await page.locator("#assigned").evaluate((e) => e.getBoundingClientRect().right);
    const rights = await page
      .locator(".copy")
      .evaluateAll((els) => els.map((e) => e.getBoundingClientRect().right));
    for (const right of rights) expect(right).toBeLessThanOrEqual(card);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(180);
    await shot(page, "phone-6-zoom-200");
    await page.context().close();
  });

  it("a link that closed unused says it is no longer valid, not that an account is no longer shown", async () => {
    const closing = await createFirm(server);
    const { url } = await session(closing);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    // A deactivated firm's open links expire.
    await server.admin("PATCH", `/admin/v1/firms/${closing.id}`, { active: false });
    await expect.poll(() => page.locator("#expired").isVisible(), { timeout: 8_000 }).toBe(true);
    expect(await page.locator("#expired-text").textContent()).toBe(
      "Bu ödeme bağlantısı artık geçerli değil; bu sayfadan ödeme yapılamaz. Yeni bir ödeme için işyerinin sitesine dönün.",
    );
    await page.context().close();
  });

  it("an unknown link shows the not-found screen and reveals nothing", async () => {
    const { page } = await openPage(`${server.url}/t/${"A".repeat(32)}`);
    await expect.poll(() => page.locator("#missing").isVisible()).toBe(true);
    expect(await page.locator("#missing h2").textContent()).toBe("Ödeme bağlantısı bulunamadı");
    await page.context().close();
  });

  it("a slow status answer never brings the account back once the page closed; one check at a time", async () => {
    const { url, body } = await session(firm);
    const { page } = await openPage(url, PHONE, (context) => context.clock.install());
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "120");
    await page.click("#submit");
    await page.click("#confirm");
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
    // The page's clock runs past the 3 s between checks; a check its timers sent meanwhile reaches
    // the route within a moment.
    await page.clock.runFor(4_500);
    await sleep(300);
    released = true;
    slow.open();
    await expect.poll(() => page.locator("#expired").isVisible(), { timeout: 8_000 }).toBe(true);
    // Nothing turns it back: it stays over a check's interval (the page's clock) and a moment.
    await page.clock.runFor(3_500);
    await sleep(300);
    expect(await page.locator("#expired").isVisible()).toBe(true);
    expect(await page.locator("#assigned").isVisible()).toBe(false);
    expect(await page.content()).not.toContain("TR33 0006");
    // No second check was started while the first was out.
    expect(whileHeld).toBe(0);
    await page.context().close();
  });

  it("says until when the page is open, and by when to pay where auto-cancel applies, in the payer's time", async () => {
    const provider = (
      await server.admin("POST", "/admin/v1/providers", { name: "Auto", auto_cancel_minutes: 45 })
    ).json;
    const cancelling = await createFirm(server, { provider_id: provider.id });
    const { url } = await session(cancelling);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    // The page's rule: the time alone today, with the date on another day (past midnight).
    const shown = (iso: string) =>
      page.evaluate((at) => {
        const d = new Date(at);
        const time = d.toLocaleTimeString("tr-TR", { hour: "2-digit", minute: "2-digit" });
        if (d.toDateString() === new Date().toDateString()) return time;
        return `${d.toLocaleDateString("tr-TR", { day: "numeric", month: "long" })} ${time}`;
      }, iso);
    const open = await (await page.request.get(url.replace("/t/", "/api/pay/"))).json();
    await expect
      .poll(() => page.locator("#open-until").textContent())
      .toBe(`Bu sayfa şu zamana kadar açık kalır: ${await shown(open.expires_at)}.`);
    await page.fill("#amount", "140");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    const assigned = await (await page.request.get(url.replace("/t/", "/api/pay/"))).json();
    expect(await page.locator("#pay-by-time").textContent()).toBe(
      `Son ödeme saati: ${await shown(assigned.pay_by)}`,
    );
    await page.click("#lang");
    await expect.poll(() => page.locator("#pay-by-time").textContent()).toContain("Pay by");
    await page.context().close();

    // Without auto-cancel there is no deadline to tell.
    const plain = await openPage((await session(firm)).url);
    await expect.poll(() => plain.page.locator("#open").isVisible()).toBe(true);
    await plain.page.fill("#amount", "141");
    await plain.page.click("#submit");
    await plain.page.click("#confirm");
    await expect.poll(() => plain.page.locator("#assigned").isVisible()).toBe(true);
    expect(await plain.page.locator("#pay-by").isVisible()).toBe(false);
    await plain.page.context().close();
  });

  it("an amount whose answer never comes is given up after 25 s; the page then finds the account it got", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url, PHONE, (context) => context.clock.install());
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    // The server takes the amount, but its answer never reaches the page (a phone's link hangs).
    let hung = false;
    await page.route(/\/api\/pay\/[^/]+\/deposit$/, async (route) => {
      hung = true;
      await route.fetch();
      await new Promise(() => {});
    });
    await page.fill("#amount", "150");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => hung).toBe(true);
    expect(await page.locator("#confirm").textContent()).toBe("Gönderiliyor…");
    // Still waiting just short of the 25 s (the page's clock), given up at them.
    await page.clock.runFor(24_000);
    expect(await page.locator("#confirm").textContent()).toBe("Gönderiliyor…");
    await page.clock.runFor(1_500);
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#v-amount").textContent()).toBe("150,00 TL");
    await page.context().close();
  });

  it("a check started before the amount was sent cannot turn the account back into the form", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    const slow = gate();
    let held = false;
    let answered = false;
    await page.route(STATUS, async (route) => {
      if (held) return route.continue();
      held = true;
      const answer = await route.fetch(); // "open": read before the amount is sent
      await slow.wait;
      await route.fulfill({ response: answer });
      answered = true;
    });
    await expect.poll(() => held, { timeout: 5_000 }).toBe(true);
    await page.fill("#amount", "130");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    slow.open();
    await expect.poll(() => answered).toBe(true);
    // The page has the stale answer: a moment to read it, and the account stays.
    await sleep(300);
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
    /** Status checks sent and not yet answered. */
    let out = 0;
    const ended = (r: Request) => {
      if (STATUS.test(r.url())) out--;
    };
    const { page } = await openPage(url, PHONE, async (context) => {
      context.on("request", (r) => {
        if (STATUS.test(r.url())) out++;
      });
      context.on("requestfinished", ended);
      context.on("requestfailed", ended);
      await context.clock.install();
    });
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
    // A check already out when the page was hidden has ended.
    await expect.poll(() => out).toBe(0);
    let checks = 0;
    page.on("request", (r) => {
      if (STATUS.test(r.url())) checks++;
    });
    // Two checks' intervals and more on the page's clock; a check sent meanwhile would be seen
    // within a moment.
    await page.clock.runFor(6_500);
    await sleep(300);
    expect(checks).toBe(0);
    await setHidden(false);
    await expect.poll(() => checks, { timeout: 1_000 }).toBe(1);
    await page.context().close();
  });

  it("an unknown link stops polling; a first load that failed offers a retry", async () => {
    const missing = await openPage(`${server.url}/t/${"B".repeat(32)}`, PHONE, (context) =>
      context.clock.install(),
    );
    await expect.poll(() => missing.page.locator("#missing").isVisible()).toBe(true);
    let checks = 0;
    missing.page.on("request", (r) => {
      if (STATUS.test(r.url())) checks++;
    });
    // A check's interval and more on the page's clock; a check sent meanwhile would be seen within
    // a moment.
    await missing.page.clock.runFor(3_500);
    await sleep(300);
    expect(checks).toBe(0);
    await missing.page.context().close();

    // A page sent without its status (past the rate limit, or the store failed), whose own status
    // check then fails too.
    const { url } = await session(firm);
    const { page } = await openPage(url, PHONE, async (context) => {
      await withoutEmbeddedStatus(context);
      await context.route(STATUS, (route) => route.abort());
    });
    await expect.poll(() => page.locator("#failed").isVisible()).toBe(true);
    expect(await page.locator("#failed h2").textContent()).toBe("Sayfa yüklenemedi");
    // The retry button disappears when pressed: focus goes to what comes instead (a screen reader
    // hears the failure again, or the form), never back to the top of the page.
    const focused = () => page.evaluate(() => document.activeElement?.id);
    await page.click("#retry");
    await expect.poll(focused).toBe("failed-title");
    await page.context().unroute(STATUS);
    await page.click("#retry");
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    expect(await focused()).toBe("amount-label");
    await page.context().close();
  });

  it("in English the amount is still copied with a decimal comma; '1.500,50' is read as 1500.50 and shown grouped", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    expect(await page.locator("#lang").getAttribute("lang")).toBe("en");
    await page.click("#lang");
    expect(await page.locator("#lang").getAttribute("lang")).toBe("tr");
    // One currency name and one number format on the English page as on the Turkish one.
    expect(await page.locator("label[for=amount]").textContent()).toBe("Amount you want to pay (TL)");
    expect(await page.locator("#amount").getAttribute("placeholder")).toBe("0,00");
    await page.fill("#amount", "1.500,50");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#v-amount").textContent()).toBe("1.500,50 TL");
    expect(await page.locator('[data-copy="amount"]').getAttribute("aria-label")).toBe("Copy the amount");
    await page.locator('[data-copy="amount"]').click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe("1500,50");
    await page.context().close();
  });

  it("an account amount other than the one typed is pointed out, in both languages", async () => {
    const { url } = await session(firm);
    const token = url.split("/").pop();
    // An earlier submission in another tab.
    const other = await fetch(`${server.url}/api/pay/${token}/deposit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount: "350.00" }),
    });
    expect(other.status).toBe(200);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    // Opened on the account: no note, nothing typed.
    expect(await page.locator("#earlier-amount").isVisible()).toBe(false);
    await page.context().close();

    const second = await session(firm);
    const { page: p2 } = await openPage(second.url);
    await expect.poll(() => p2.locator("#open").isVisible()).toBe(true);
    // The page does not learn of it by a check before the payer sends an amount.
    await p2.route(STATUS, (route) => route.abort());
    await fetch(`${server.url}/api/pay/${second.url.split("/").pop()}/deposit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount: "350.00" }),
    });
    await p2.fill("#amount", "500");
    await p2.click("#submit");
    await p2.click("#confirm");
    await expect.poll(() => p2.locator("#assigned").isVisible()).toBe(true);
    expect(await p2.locator("#earlier-amount").textContent()).toBe(
      "Bu ödeme için daha önce 350,00 TL girilmişti; bu tutarı gönderin.",
    );
    expect(await p2.evaluate(() => document.activeElement?.id)).toBe("earlier-amount");
    expect(await p2.locator("#v-amount").textContent()).toBe("350,00 TL");
    await p2.click("#lang");
    expect(await p2.locator("#earlier-amount").textContent()).toBe(
      "An amount of 350,00 TL was entered for this payment earlier; send this amount.",
    );
    await p2.context().close();
  });

  it("shows the firm's limits in the help and in the limit error", async () => {
    const limited = await createFirm(server, { deposit_min: "100.00", deposit_max: "50000.00" });
    const { url } = await session(limited);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    expect(await page.locator("#amount-help").textContent()).toBe(
      "Örnek: 250 ya da 1.250,50. En az 100,00 TL, en çok 50.000,00 TL.",
    );
    // Refused at once, by the limits the page has: on a slow link the server's refusal took a
    // round trip or two of "Gönderiliyor…".
    const sent: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/deposit")) sent.push(r.postData() ?? "");
    });
    await page.fill("#amount", "50");
    await page.click("#submit");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe("Yatırım tutarı limit dışında. En az 100,00 TL, en çok 50.000,00 TL.");
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("amount");
    await page.fill("#amount", "50.000,01");
    await page.click("#submit");
    await expect
      .poll(() => page.locator("#amount-error").textContent())
      .toBe("Yatırım tutarı limit dışında. En az 100,00 TL, en çok 50.000,00 TL.");
    expect(sent).toEqual([]);
    await page.click("#lang");
    expect(await page.locator("#amount-error").textContent()).toBe(
      "This amount is outside the allowed limits. At least 100,00 TL, at most 50.000,00 TL.",
    );
    expect(await page.locator("#amount-help").textContent()).toContain(
      "At least 100,00 TL, at most 50.000,00 TL.",
    );
    await page.click("#lang");
    // An operator lowers the limit after the page last checked (checks answer as before until the
    // amount is out): the server refuses by the new limit, and the page asks at once for the limits
    // it names, not at the next check 3 s later.
    const before = await (await fetch(url.replace("/t/", "/api/pay/"))).json();
    let stale = true;
    await page.route(STATUS, (route) => (stale ? route.fulfill({ json: before }) : route.continue()));
    // Checks answer as before until the amount is out, and truly from then on.
    await page.route("**/deposit", (route) => {
      stale = false;
      return route.continue();
    });
    await server.admin("PATCH", `/admin/v1/firms/${limited.id}`, { deposit_max: "1000.00" });
    await page.fill("#amount", "2000");
    await page.click("#submit");
    await page.click("#confirm");
    await expect
      .poll(() => page.locator("#amount-error").textContent(), { timeout: 2_500 })
      .toBe("Yatırım tutarı limit dışında. En az 100,00 TL, en çok 1.000,00 TL.");
    expect(sent).toHaveLength(1);
    await page.context().close();
  });

  it("a language switch keeps 'sending' and translates the error; the same error twice is announced again", async () => {
    const { url } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "12,345");
    await page.click("#submit");
    await expect.poll(() => page.locator("#amount-error").textContent()).toContain("Geçerli bir tutar girin");
    await page.click("#lang");
    expect(await page.locator("#amount-error").textContent()).toBe(
      "Enter a valid amount, for example 1250 or 1.250,50.",
    );
    // The alert is emptied and written again, so a screen reader reads the same error a second time.
    await page.evaluate(() => {
      const seen: string[] = [];
      (window as unknown as { seen: string[] }).seen = seen;
      const el = document.getElementById("amount-error") as HTMLElement;
      new MutationObserver(() => seen.push(el.textContent ?? "")).observe(el, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    });
    await page.click("#submit");
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { seen: string[] }).seen))
      .toEqual(["", "Enter a valid amount, for example 1250 or 1.250,50."]);

    const sent = gate();
    await page.route("**/deposit", async (route) => {
      await sent.wait;
      await route.continue();
    });
    await page.fill("#amount", "80");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#confirm").textContent()).toBe("Sending…");
    await page.click("#lang");
    expect(await page.locator("#confirm").textContent()).toBe("Gönderiliyor…");
    expect(await page.locator("#confirm").isDisabled()).toBe(true);
    sent.open();
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#confirm").textContent()).toBe("Onayla ve hesabı göster");
    await page.context().close();
  });

  it("on a slow network the page's modules are fetched beside page.js, not one round trip after it", async () => {
    const { url } = await session(firm);
    // page.js is held back: the modules it imports are asked for meanwhile (preloaded by the HTML),
    // so a phone on a slow link waits one round trip less before the form shows. The stylesheet
    // is in the HTML, asked for by nobody.
    const held = gate();
    const asked: string[] = [];
    const context = await browser.newContext({ viewport: PHONE, locale: "tr-TR" });
    context.on("request", (r) => {
      // The files' folder is their version (a content hash): the name is what follows it.
      const name = r.url().match(/\/t\/assets\/[\w-]+\/(.+)$/)?.[1];
      if (name) asked.push(name);
    });
    await context.route("**/t/assets/*/page.js", async (route) => {
      await held.wait;
      await route.continue();
    });
    const page = await context.newPage();
    // Not waiting for "load": that comes after page.js ran.
    await page.goto(url, { waitUntil: "commit" });
    await expect.poll(() => [...asked].sort()).toEqual(["amount.js", "page-text.js", "page.js"]);
    held.open();
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.context().close();
  });

  it("only what is news is in a live region: a copy is said once, by the status line, and a language switch reads nothing out", async () => {
    const { url, body } = await session(firm);
    const { page } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "250");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    // Chromium's accessibility tree, as a screen reader gets it: the live regions above a node.
    const cdp = await page.context().newCDPSession(page);
    type AxNode = {
      nodeId: string;
      parentId?: string;
      role?: { value?: string };
      name?: { value?: string };
      properties?: { name: string; value: { value?: unknown } }[];
    };
    const liveAbove = async (role: string, name: string) => {
      const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as unknown as { nodes: AxNode[] };
      const byId = new Map(nodes.map((n) => [n.nodeId, n]));
      let node = nodes.find((n) => n.role?.value === role && n.name?.value === name);
      expect(node, `${role} "${name}"`).toBeDefined();
      const live: unknown[] = [];
      while (node) {
        const prop = node.properties?.find((p) => p.name === "live");
        if (prop) live.push(prop.value.value);
        node = node.parentId ? byId.get(node.parentId) : undefined;
      }
      return live;
    };
    // A copy button's "Kopyalandı ✓" and its return to "Kopyala" are for the eye: in a live
    // region each was read out besides the status line's "Kopyalandı" (three times for one copy).
    for (const name of ["Tutarı kopyala", "IBAN'ı kopyala"])
      expect(await liveAbove("button", name)).toEqual([]);
    // Nor the account itself: a language switch rewrites every label, and was read out whole.
    expect(await liveAbove("StaticText", "250,00 TL")).toEqual([]);
    expect(await liveAbove("StaticText", "Alıcı adı")).toEqual([]);
    // The status line is the one live region here.
    await page.locator('[data-copy="iban"]').click();
    await expect.poll(() => page.locator("#copied").textContent()).toBe("Kopyalandı");
    expect(await liveAbove("StaticText", "Kopyalandı")).toEqual(["polite"]);
    // The closed screen is announced by its heading taking focus, not a second time as live text.
    await decide(firm, body.reference, "approve");
    await expect.poll(() => page.locator("#expired").isVisible(), { timeout: 8_000 }).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe("expired-title");
    expect(await liveAbove("heading", "Ödemeniz onaylandı")).toEqual([]);
    await page.context().close();
  });

  it("a larger default font size set in the browser makes all text larger, not only some of it", async () => {
    const { url } = await session(firm);
    // The browser's own font size setting (Chrome's "Font size: Very large" is 24 px), not zoom.
    const context = await browser.newContext({ viewport: PHONE, locale: "tr-TR" });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Page.setFontSizes", { fontSizes: { standard: 24, fixed: 24 } });
    await page.goto(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    const size = (selector: string) =>
      page.locator(selector).evaluate((e) => Number.parseFloat(getComputedStyle(e).fontSize));
    // Body text in px stayed 16 px, while the help under the field (in rem) grew past the label.
    expect(await size("#amount-label")).toBe(24);
    expect(await size("#amount-help")).toBeLessThan(await size("#amount-label"));
    expect(await size("#submit")).toBe(24);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.fill("#amount", "1.250,50");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await size("#waiting")).toBeGreaterThan(16);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    await page.context().close();
  });

  it("an approved payment shows a receipt made of what the page showed; a rejected one, the reference to quote", async () => {
    const { url, body } = await session(firm, { return_url: "https://shop.example/back" });
    const { page, foreign } = await openPage(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "1500,50");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    expect(await page.locator("#receipt").isVisible()).toBe(false);
    const assigned = await (await page.request.get(url.replace("/t/", "/api/pay/"))).json();
    const at = await page.evaluate((iso) => {
      const d = new Date(iso);
      const day = d.toLocaleDateString("tr-TR", { day: "2-digit", month: "2-digit", year: "numeric" });
      return `${day} ${d.toLocaleTimeString("tr-TR", { hour: "2-digit", minute: "2-digit" })}`;
    }, assigned.created_at);
    await decide(firm, body.reference, "approve");
    await expect.poll(() => page.locator("#expired").isVisible(), { timeout: 8_000 }).toBe(true);
    expect(await page.locator("#expired h2").textContent()).toBe("Ödemeniz onaylandı");
    expect(await page.locator("#receipt").isVisible()).toBe(true);
    expect(await page.locator("#r-amount").textContent()).toBe("1.500,50 TL");
    expect(await page.locator("#r-time").textContent()).toBe(at);
    expect(await page.locator("#r-time").textContent()).toMatch(/^\d\d\.\d\d\.\d{4} \d\d:\d\d$/);
    expect(await page.locator("#r-reference").textContent()).toBe(body.reference);
    expect(await page.locator("#receipt dt").allTextContents()).toEqual([
      "İşyeri",
      "Tutar",
      "Talep zamanı",
      "İşlem numarası",
    ]);
    // The shop as the page named it while the deposit was pending (the firm's name here: no
    // display name is set).
    expect(await page.locator("#r-merchant").textContent()).toMatch(/^Firm /);
    expect(await page.locator("#return-link").isVisible()).toBe(true);
    expect(await page.locator("#rejected-reference").isVisible()).toBe(false);
    // Nothing of the account stays in the page.
    expect(await page.content()).not.toContain("TR33");
    await page.click("#lang");
    expect(await page.locator("#receipt dt").allTextContents()).toEqual([
      "Merchant",
      "Amount",
      "Requested at",
      "Reference",
    ]);
    await page.click("#lang");
    await shot(page, "phone-7-receipt");
    // The closed answer carries none of it: a reload shows the closed screen without a receipt.
    await page.reload();
    await expect.poll(() => page.locator("#expired").isVisible()).toBe(true);
    expect(await page.locator("#expired h2").textContent()).toBe("Ödemeniz onaylandı");
    expect(await page.locator("#receipt").isVisible()).toBe(false);
    expect(await page.content()).not.toContain(String(body.reference));
    expect(foreign).toEqual([]);
    await page.context().close();

    const refused = await session(firm);
    const second = await openPage(refused.url);
    await expect.poll(() => second.page.locator("#open").isVisible()).toBe(true);
    await second.page.fill("#amount", "80");
    await second.page.click("#submit");
    await second.page.click("#confirm");
    await expect.poll(() => second.page.locator("#assigned").isVisible()).toBe(true);
    await decide(firm, refused.body.reference, "reject");
    await expect.poll(() => second.page.locator("#expired").isVisible(), { timeout: 8_000 }).toBe(true);
    expect(await second.page.locator("#receipt").isVisible()).toBe(false);
    expect(await second.page.locator("#rejected-reference").textContent()).toBe(
      `İşyerine başvururken bu işlem numarasını bildirin: ${refused.body.reference}`,
    );
    await second.page.click("#lang");
    expect(await second.page.locator("#rejected-reference").textContent()).toBe(
      `Quote this reference when you contact the merchant: ${refused.body.reference}`,
    );
    await second.page.context().close();
  });

  it("on a wide screen a QR code of the page's own address opens it on the phone; none on a phone", async () => {
    const { url } = await session(firm);
    const desktop = await openPage(url, DESKTOP);
    await expect.poll(() => desktop.page.locator("#open").isVisible()).toBe(true);
    const qr = desktop.page.locator("#qr img");
    await expect.poll(() => qr.evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(0);
    expect(await desktop.page.locator("#handoff").isVisible()).toBe(true);
    expect(await qr.getAttribute("alt")).toBe("Bu sayfayı telefonunuzda açan QR kodu");
    // The SVG's dark squares are the modules uqr encodes for the page's address: the code opens
    // this very page (re-encoded here, not decoded).
    const svg = await (
      await desktop.page.request.get(new URL((await qr.getAttribute("src")) ?? "", url).href)
    ).text();
    const quiet = 4;
    const dark = new Set(
      [...svg.matchAll(/M(\d+) (\d+)h1v1h-1z/g)].map(
        (m) => `${Number(m[1]) - quiet},${Number(m[2]) - quiet}`,
      ),
    );
    const { data } = encode(desktop.page.url(), { ecc: "M", border: 0 });
    const expected = new Set<string>();
    data.forEach((row, y) => {
      row.forEach((on, x) => {
        if (on) expected.add(`${x},${y}`);
      });
    });
    expect(dark.size).toBeGreaterThan(100);
    expect([...dark].sort()).toEqual([...expected].sort());
    await shot(desktop.page, "desktop-3-qr");
    // It goes with the account too, and not with the closed screen.
    await desktop.page.fill("#amount", "60");
    await desktop.page.click("#submit");
    await desktop.page.click("#confirm");
    await expect.poll(() => desktop.page.locator("#assigned").isVisible()).toBe(true);
    expect(await desktop.page.locator("#qr img").count()).toBe(1);
    expect(desktop.foreign).toEqual([]);
    await desktop.page.context().close();

    const asked: string[] = [];
    const phone = await openPage(url, { width: 390, height: 844 }, async (context) =>
      context.on("request", (r) => asked.push(r.url())),
    );
    await expect.poll(() => phone.page.locator("#assigned").isVisible()).toBe(true);
    expect(await phone.page.locator("#qr img").count()).toBe(0);
    expect(await phone.page.locator("#handoff").isVisible()).toBe(false);
    expect(asked.filter((u) => u.endsWith("/qr.svg"))).toEqual([]);
    await phone.page.context().close();
  });

  it("the account shows one deadline, the deposit's, with the minutes left counted down each minute, not announced", async () => {
    const provider = (
      await server.admin("POST", "/admin/v1/providers", { name: "Countdown", auto_cancel_minutes: 45 })
    ).json;
    const cancelling = await createFirm(server, { provider_id: provider.id });
    const { url } = await session(cancelling);
    const context = await browser.newContext({ viewport: PHONE, locale: "tr-TR" });
    const page = await context.newPage();
    await page.clock.install();
    await page.goto(url);
    await expect.poll(() => page.locator("#open").isVisible()).toBe(true);
    await page.fill("#amount", "300");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => page.locator("#assigned").isVisible()).toBe(true);
    const assigned = await (await page.request.get(url.replace("/t/", "/api/pay/"))).json();
    const minutesLeft = () =>
      page.evaluate((iso) => Math.ceil((new Date(iso).getTime() - Date.now()) / 60000), assigned.pay_by);
    // The time alone, or with its day where it falls on another (a run just before midnight).
    expect(await page.locator("#pay-by-time").textContent()).toMatch(
      /^Son ödeme saati: (\d{1,2} [^\s\d]+ )?\d\d:\d\d$/u,
    );
    const before = await minutesLeft();
    expect(before).toBeGreaterThanOrEqual(44);
    await expect.poll(() => page.locator("#pay-by-left").textContent()).toBe(`(${before} dakika kaldı)`);
    // One line says by when: the page's own 30 minutes are no deadline once an amount is in.
    expect(await page.locator("#assigned .notice:visible").count()).toBe(1);
    await page.clock.runFor(60_000);
    await expect.poll(() => page.locator("#pay-by-left").textContent()).toBe(`(${before - 1} dakika kaldı)`);
    await page.click("#lang");
    expect(await page.locator("#pay-by-left").textContent()).toBe(`(${before - 1} minutes left)`);
    expect(await page.locator("#pay-by-time").textContent()).toMatch(
      /^Pay by (\d{1,2} [A-Z][a-z]+ )?\d\d:\d\d$/,
    );
    // No live region above it: a screen reader reads it when the payer gets there, not every minute.
    expect(
      await page.locator("#pay-by-left").evaluate((el) => {
        const live: string[] = [];
        for (let n: Element | null = el; n; n = n.parentElement) {
          const role = n.getAttribute("role");
          if (
            n.hasAttribute("aria-live") ||
            (role && ["status", "alert", "log", "timer", "marquee"].includes(role))
          )
            live.push(n.id);
        }
        return live;
      }),
    ).toEqual([]);
    await context.close();
  });
});
