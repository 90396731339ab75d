import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium, SCREENSHOTS } from "../support/browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  decide as decideAs,
  depositBody,
  send,
  type TestFirm,
} from "../support/merchant.js";

/**
 * Whom the payer pays, and an amount far above what the shop's payers usually send, on the hosted
 * payment page in Chromium (docs/hosted-page.md): "<Shop> için ödeme" above the amount on every
 * screen of the payment, and a warning (never a refusal) on the confirmation step.
 */
const PHONE = { width: 360, height: 740 };

describe("the payment page names the shop and warns of an unusual amount (Chromium)", BROWSER_TEST, () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await addAccount(server);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function shop(name: string, settings: Record<string, unknown> = {}): Promise<TestFirm> {
    const firm = await createFirm(server, { name });
    if (Object.keys(settings).length > 0) {
      const res = await server.admin("PATCH", `/admin/v1/firms/${firm.id}`, settings);
      expect(res.status).toBe(200);
    }
    return firm;
  }
  async function openPage(firm: TestFirm): Promise<{ page: Page; reference: string }> {
    const body = depositBody({ redirect: true, amount: undefined });
    const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    const context = await browser.newContext({ viewport: PHONE, locale: "tr-TR" });
    const page = await context.newPage();
    await page.goto(`${server.url}${res.json.payment_url}`);
    return { page, reference: body.reference as string };
  }
  const decide = (f: TestFirm, reference: string, decision: "approve" | "reject") =>
    decideAs(server, f, reference, decision);
  const line = (page: Page) => page.locator("#merchant").textContent();
  const visible = (page: Page, id: string) => page.locator(`#${id}`).isVisible();
  const focused = (page: Page) => page.evaluate(() => document.activeElement?.id);
  /** The top of an element, to say what stands above what. */
  const top = async (page: Page, selector: string) => (await page.locator(selector).boundingBox())?.y ?? -1;
  const shot = async (page: Page, name: string) => {
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  };

  it("says '<Shop> için ödeme' above the amount on the form, the confirmation, the account and the receipt, in both languages", async () => {
    const firm = await shop("Kuzey Ticaret Ltd. Şti.", { display_name: "Kuzey Market" });
    const { page, reference } = await openPage(firm);
    await expect.poll(() => visible(page, "open")).toBe(true);
    expect(await line(page)).toBe("Kuzey Market için ödeme");
    expect(await visible(page, "merchant")).toBe(true);
    expect(await top(page, "#merchant")).toBeLessThan(await top(page, "#amount"));
    // Text from outside, isolated from the words around it.
    expect(await page.locator("#merchant-name").evaluate((e) => e.tagName)).toBe("BDI");
    await page.click("#lang");
    expect(await line(page)).toBe("Payment to Kuzey Market");
    await page.click("#lang");

    await page.fill("#amount", "1500");
    await page.click("#submit");
    await expect.poll(() => visible(page, "check")).toBe(true);
    expect(await line(page)).toBe("Kuzey Market için ödeme");
    expect(await top(page, "#merchant")).toBeLessThan(await top(page, "#confirm-amount"));
    await page.click("#confirm");
    await expect.poll(() => visible(page, "assigned")).toBe(true);
    expect(await visible(page, "merchant")).toBe(true);
    expect(await top(page, "#merchant")).toBeLessThan(await top(page, "#v-amount"));
    // The account's holder stays where the IBAN is: the shop is not the account.
    expect(await page.locator("#v-holder").textContent()).toBe("Ödeme Hizmetleri A.Ş.");
    await page.click("#lang");
    expect(await line(page)).toBe("Payment to Kuzey Market");
    await page.click("#lang");

    await decide(firm, reference, "approve");
    await expect.poll(() => visible(page, "expired"), { timeout: 8_000 }).toBe(true);
    expect(await line(page)).toBe("Kuzey Market için ödeme");
    expect(await visible(page, "merchant")).toBe(true);
    expect(await page.locator("#r-merchant").textContent()).toBe("Kuzey Market");
    expect(await page.locator("#r-merchant").evaluate((e) => e.tagName)).toBe("BDI");
    await page.click("#lang");
    expect(await page.locator("#receipt dt").first().textContent()).toBe("Merchant");
    expect(await line(page)).toBe("Payment to Kuzey Market");
    await page.context().close();
  });

  it("names the firm by its own name without a display name, on the rejected screen too; a link that closed unused names none", async () => {
    const firm = await shop("Güney Elektronik");
    const { page, reference } = await openPage(firm);
    await expect.poll(() => visible(page, "open")).toBe(true);
    expect(await line(page)).toBe("Güney Elektronik için ödeme");
    await page.fill("#amount", "80");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => visible(page, "assigned")).toBe(true);
    await decide(firm, reference, "reject");
    await expect.poll(() => visible(page, "expired"), { timeout: 8_000 }).toBe(true);
    expect(await page.locator("#expired h2").textContent()).toBe("Bu ödeme talebi kapandı");
    expect(await line(page)).toBe("Güney Elektronik için ödeme");
    expect(await visible(page, "merchant")).toBe(true);
    await page.context().close();

    // The closed answer does not name the shop: a page that never saw it open names none.
    const closed = await shop("Batı Kırtasiye");
    const unused = await openPage(closed);
    await expect.poll(() => visible(unused.page, "open")).toBe(true);
    await server.admin("PATCH", `/admin/v1/firms/${closed.id}`, { active: false });
    await unused.page.reload();
    await expect.poll(() => visible(unused.page, "expired")).toBe(true);
    expect(await visible(unused.page, "merchant")).toBe(false);
    await unused.page.context().close();
  });

  it("a right-to-left shop name is shown isolated from the words around it", async () => {
    const firm = await shop("Sahil Ltd.", { display_name: "متجر الساحل" });
    const { page } = await openPage(firm);
    await expect.poll(() => visible(page, "open")).toBe(true);
    expect(await line(page)).toBe("متجر الساحل için ödeme");
    expect(await page.locator("#merchant-name").evaluate((e) => getComputedStyle(e).unicodeBidi)).toBe(
      "isolate",
    );
    await page.context().close();
  });

  it("a shop name that tries to end the page's status block ('</script><script>…') is shown as text, and runs nothing", async () => {
    const hostile = "</script><script>window.__ran = 1</script><!-- <b>&amp;";
    const firm = await shop("Tuzak Ltd.", { display_name: hostile });
    const body = depositBody({ redirect: true, amount: undefined });
    const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    const context = await browser.newContext({ viewport: PHONE, locale: "tr-TR" });
    // An inline script would be refused by the CSP and reported: none must even be there to refuse.
    await context.addInitScript(() => {
      const w = window as unknown as { __violations: string[] };
      w.__violations = [];
      document.addEventListener("securitypolicyviolation", (e) => w.__violations.push(e.violatedDirective));
    });
    const page = await context.newPage();
    await page.goto(`${server.url}${res.json.payment_url}`);
    await expect.poll(() => visible(page, "open")).toBe(true);
    expect(await line(page)).toBe(`${hostile} için ödeme`);
    expect(await page.locator("#merchant-name b").count()).toBe(0);
    expect(
      await page.evaluate(() => ({
        scripts: document.scripts.length,
        ran: "__ran" in window,
        violations: (window as unknown as { __violations: string[] }).__violations,
      })),
    ).toEqual({ scripts: 2, ran: false, violations: [] });
    await context.close();
  });

  it("warns on the confirmation of an amount far above what the shop's payers usually send, in both languages; never refuses it", async () => {
    const firm = await shop("Doğu Market", { usual_amount_max: "5000.00" });
    const { page } = await openPage(firm);
    await expect.poll(() => visible(page, "open")).toBe(true);
    await page.fill("#amount", "5000");
    await page.click("#submit");
    await expect.poll(() => visible(page, "check")).toBe(true);
    expect(await visible(page, "unusual")).toBe(false);
    expect(await focused(page)).toBe("confirm-title");
    await page.click("#change");

    // A zero too many.
    await page.fill("#amount", "50000");
    await page.click("#submit");
    await expect.poll(() => visible(page, "check")).toBe(true);
    expect(await visible(page, "unusual")).toBe(true);
    expect(await page.locator("#unusual").textContent()).toBe(
      "Dikkat: bu tutar, bu işyerine genellikle ödenen tutarların çok üstünde. Fazladan bir rakam yazılmadığından emin olun.",
    );
    // Focus on the warning: a screen reader says it before the buttons.
    expect(await focused(page)).toBe("unusual");
    expect(await page.locator("#confirm").isEnabled()).toBe(true);
    await page.click("#lang");
    expect(await page.locator("#unusual").textContent()).toBe(
      "Note: this amount is far above what is usually paid to this merchant. Make sure no extra digit was typed.",
    );
    await page.click("#lang");
    await shot(page, "phone-1c-unusual");
    // A warning only: confirmed, the amount is sent and the account shown.
    await page.click("#confirm");
    await expect.poll(() => visible(page, "assigned")).toBe(true);
    expect(await page.locator("#v-amount").textContent()).toBe("50.000,00 TL");
    await page.context().close();

    // A shop with no setting and too few deposits to judge by: no warning.
    const young = await shop("Yeni Dükkan");
    const other = await openPage(young);
    await expect.poll(() => visible(other.page, "open")).toBe(true);
    await other.page.fill("#amount", "999999");
    await other.page.click("#submit");
    await expect.poll(() => visible(other.page, "check")).toBe(true);
    expect(await visible(other.page, "unusual")).toBe(false);
    await other.page.context().close();
  });
});
