import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe.js";
import { BROWSER_TEST, launchChromium, withoutEmbeddedStatus } from "../support/browser.js";
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
 * axe-core's WCAG 2.1 A/AA rules on every state of the hosted payment page, at a phone's and a
 * desktop's width (the QR code shows on the desktop only), in Turkish and English: any violation
 * fails, named by state, rule and element.
 */
const WIDTHS = [
  ["phone", { width: 390, height: 844 }],
  ["desktop", { width: 1280, height: 800 }],
] as const;
/** The page's status check, GET /api/pay/:token. */
const STATUS = /\/api\/pay\/[^/]+$/;
/** The page checks its status every 3 s: a decision shows within one check or two (and a busy machine is slow). */
const DECIDED = { timeout: 10_000 };

describe("payment page: axe-core finds no WCAG 2.1 A/AA violation", BROWSER_TEST, () => {
  let server: TestServer;
  let firm: TestFirm;
  let limited: TestFirm;
  let cancelling: TestFirm;
  let shop: TestFirm;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server);
    limited = await createFirm(server, { deposit_min: "100.00", deposit_max: "50000.00" });
    const provider = (
      await server.admin("POST", "/admin/v1/providers", { name: "A11y", auto_cancel_minutes: 45 })
    ).json;
    cancelling = await createFirm(server, { provider_id: provider.id });
    shop = await createFirm(server, { display_name: "Doğu Market", usual_amount_max: "5000.00" });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const session = (f: TestFirm, overrides: Record<string, unknown> = {}) =>
    hostedSession(server, f, overrides);
  const decide = (f: TestFirm, reference: string, decision: "approve" | "reject") =>
    decideAs(server, f, reference, decision);
  const shown = (page: Page, id: string) => expect.poll(() => page.locator(`#${id}`).isVisible(), DECIDED);

  /** Each state's violations by name: the test expects every list empty. */
  function recorder(page: Page, found: Record<string, string[]>) {
    return async (state: string) => {
      found[state] = await axeViolations(page);
    };
  }
  const clean = (found: Record<string, string[]>) =>
    Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));

  async function amountIn(page: Page, amount: string) {
    await page.fill("#amount", amount);
    await page.click("#submit");
  }

  for (const [name, viewport] of WIDTHS) {
    it(`${name}: amount, its errors, the reading offer, confirmation, account, copied, receipt; in Turkish and English`, async () => {
      const { url, reference } = await session(firm, { return_url: "https://shop.example/back" });
      const context = await browser.newContext({ viewport, locale: "tr-TR" });
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
      const page = await context.newPage();
      const found: Record<string, string[]> = {};
      const check = recorder(page, found);
      await page.goto(url);
      await shown(page, "open").toBe(true);
      if (name === "desktop") await shown(page, "qr img").toBe(true);
      await check("amount");
      await amountIn(page, "12,345");
      await shown(page, "amount-error").toBe(true);
      await check("amount with an error");
      await amountIn(page, "1.500");
      await shown(page, "take-reading").toBe(true);
      await check("the 1.500 reading offered");
      await page.click("#lang");
      await check("the 1.500 reading offered, English");
      await page.click("#lang");
      await page.click("#take-reading");
      await shown(page, "check").toBe(true);
      await check("confirmation");
      await page.click("#lang");
      await check("confirmation, English");
      await page.click("#lang");
      await page.click("#confirm");
      await shown(page, "assigned").toBe(true);
      await check("account");
      // The clock stands still while "Kopyalandı ✓" is checked: the button says it for 2 s only.
      await page.clock.install();
      await page.clock.pauseAt(Date.now() + 1_000);
      await page.locator('[data-copy="iban"]').click();
      await expect.poll(() => page.locator('[data-copy="iban"]').textContent(), DECIDED).toBe("Kopyalandı ✓");
      await page.clock.runFor(200);
      await expect.poll(() => page.locator("#copied").textContent(), DECIDED).toBe("Kopyalandı");
      await check("copied");
      await page.clock.resume();
      await page.click("#lang");
      await check("account, English");
      await page.click("#lang");
      await decide(firm, reference, "approve");
      await shown(page, "receipt").toBe(true);
      await check("approved, with the receipt");
      await page.click("#lang");
      await check("approved, with the receipt, English");
      await page.reload();
      await shown(page, "expired").toBe(true);
      await check("approved, reloaded (no receipt)");
      await context.close();
      expect(clean(found)).toEqual({});
    });

    // The states below in two tests, each well inside the test timeout on a busy machine (an axe
    // run costs about a second there).
    it(`${name}: English from the start, limits, an unusual amount, rejected, expired unused`, async () => {
      const context = await browser.newContext({ viewport, locale: "tr-TR" });
      const page = await context.newPage();
      const found: Record<string, string[]> = {};
      const check = recorder(page, found);

      // English, with the firm's limits, a limit error and a server rejection.
      const bounded = await session(limited);
      await page.goto(bounded.url);
      await shown(page, "open").toBe(true);
      await page.click("#lang");
      await check("amount with limits, English");
      await amountIn(page, "50");
      await shown(page, "amount-error").toBe(true);
      await check("limit error, English");
      await page.click("#lang");
      await check("limit error");
      // The shop named above the amount, and an amount far above its usual on the confirmation step.
      const named = await session(shop);
      await page.goto(named.url);
      await shown(page, "open").toBe(true);
      await amountIn(page, "90000");
      await shown(page, "unusual").toBe(true);
      await check("confirmation, an unusual amount");
      await page.click("#lang");
      await check("confirmation, an unusual amount, English");
      await page.click("#lang");

      // Rejected: the reference to quote.
      const refused = await session(firm);
      await page.goto(refused.url);
      await shown(page, "open").toBe(true);
      await amountIn(page, "80");
      await page.click("#confirm");
      await shown(page, "assigned").toBe(true);
      await decide(firm, refused.reference, "reject");
      await shown(page, "rejected-reference").toBe(true);
      await check("rejected");
      await page.click("#lang");
      await check("rejected, English");
      await page.click("#lang");

      // A link that closed unused.
      const closing = await createFirm(server);
      const unused = await session(closing);
      await page.goto(unused.url);
      await shown(page, "open").toBe(true);
      await server.admin("PATCH", `/admin/v1/firms/${closing.id}`, { active: false });
      await shown(page, "expired").toBe(true);
      await check("expired unused");
      await context.close();
      expect(clean(found)).toEqual({});
    });

    it(`${name}: an earlier deposit, a deadline, no clipboard, unknown and failed links`, async () => {
      const context = await browser.newContext({ viewport, locale: "tr-TR" });
      const page = await context.newPage();
      const found: Record<string, string[]> = {};
      const check = recorder(page, found);

      // The payer's earlier deposit, still pending; then decided, the form comes back with a notice.
      const direct = depositBody({ amount: "350.00" });
      expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: direct })).status).toBe(200);
      const again = await session(firm, { user_id: direct.user_id });
      await page.goto(again.url);
      await shown(page, "earlier-deposit").toBe(true);
      await check("earlier deposit pending");
      await page.click("#lang");
      await check("earlier deposit pending, English");
      await page.click("#lang");
      await decide(firm, String(direct.reference), "approve");
      await shown(page, "earlier-settled").toBe(true);
      await check("earlier deposit settled");

      // A deposit with a deadline, and an amount other than the one typed.
      const timed = await session(cancelling);
      await page.goto(timed.url);
      await shown(page, "open").toBe(true);
      await shown(page, "open-until").toBe(true);
      await check("amount, open until");
      // Sent from another tab; this page learns of it only when it sends its own amount.
      await page.route(STATUS, (route) => route.abort());
      await fetch(`${server.url}/api/pay/${timed.url.split("/").pop()}/deposit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ amount: "350.00" }),
      });
      await amountIn(page, "500");
      await page.click("#confirm");
      await shown(page, "pay-by").toBe(true);
      await check("account with a deadline");
      await shown(page, "earlier-amount").toBe(true);
      await check("account, an earlier amount");
      await page.unroute(STATUS);

      // Without a clipboard: the value selected in a field to copy by hand.
      await page.evaluate(() =>
        Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true }),
      );
      await page.locator('[data-copy="iban"]').click();
      await shown(page, "manual").toBe(true);
      await check("copy by hand");

      await page.goto(`${server.url}/t/${"A".repeat(32)}`);
      await shown(page, "missing").toBe(true);
      await check("unknown link");
      // A page sent without its status (past the rate limit), whose own status check then fails.
      const failing = await session(firm);
      await withoutEmbeddedStatus(page);
      await page.route(STATUS, (route) => route.abort());
      await page.goto(failing.url);
      await shown(page, "failed").toBe(true);
      await check("first load failed");
      await context.close();
      expect(clean(found)).toEqual({});
    });
  }
});
