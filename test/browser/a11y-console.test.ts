import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import { axeViolations } from "../support/axe.js";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  pendingDeposit,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

/**
 * axe-core's WCAG 2.1 A/AA rules on every screen of the operators' console, at a phone's and a
 * desktop's width, in Turkish and (the main screens) in English: any violation fails, named by
 * screen, rule and element. Decisions are held before they are sent, so the bar that takes one
 * back is a screen too.
 */
const WIDTHS = [
  ["phone", { width: 390, height: 844 }],
  ["desktop", { width: 1280, height: 800 }],
] as const;
/** A sign-in hashes a password, a screen asks the server: more than poll's default second on a busy machine. */
const WAIT = { timeout: 10_000 };

describe("console: axe-core finds no WCAG 2.1 A/AA violation", BROWSER_TEST, () => {
  let server: TestServer;
  let firm: TestFirm;
  let account: { id: number; iban: string };
  let browser: Browser;
  const strays: string[] = [];
  const ids = { pending: 0, decided: 0, suggested: 0, unmatched: 0 };

  async function typeLine(body: Record<string, unknown>) {
    const res = await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      ...body,
    });
    expect(res.status).toBe(200);
    return res.json.results[0] as { id: number; state: string };
  }

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_CONSOLE_UNDO_SECONDS: "30",
    });
    account = await addAccount(server);
    firm = await createFirm(server);
    await createConsoleOperators(server, ["admin", "operator", "viewer"]);
    await server.admin("POST", "/admin/v1/channels", { code: "ELDEN", kind: "manual" });
    await server.admin("POST", "/admin/v1/providers", { name: "Sağlayıcı", auto_cancel_minutes: 45 });
    for (const name of ["phone", "desktop"])
      await server.admin("POST", "/admin/v1/operators", {
        email: `twostep-${name}@ops.example`,
        role: "operator",
        password: "twostep-password-123",
      });
    ids.pending = await pendingDeposit(server, firm, {
      first_name: "Zeynep",
      last_name: "Koç",
      amount: "300.00",
    });
    for (let i = 0; i < 4; i++) await pendingDeposit(server, firm);
    ids.decided = await pendingDeposit(server, firm, { amount: "75.00" });
    await server.admin("POST", `/admin/v1/transactions/${ids.decided}/approve`, { actor: "operator:t" });
    const payout = withdrawalBody();
    expect((await send(server, firm, { path: "/paymentapi/v1/withdrawals", body: payout })).status).toBe(200);
    ids.unmatched = (
      await typeLine({ amount: "12.34", sender_name: "BILINMEYEN KISI", description: "x" })
    ).id;
    ids.suggested = (
      await typeLine({ amount: "290.00", sender_name: "ZEYNEP KOC", description: "havale" })
    ).id;
    browser = await launchChromium();
  });
  afterAll(async () => {
    // Every request went to the console's own origin, and no page threw.
    expect(strays).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  const clean = (found: Record<string, string[]>) =>
    Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
  function recorder(page: Page, found: Record<string, string[]>) {
    return async (screen: string) => {
      found[screen] = await axeViolations(page);
    };
  }
  const visible = (page: Page, selector: string) =>
    expect.poll(() => page.locator(selector).first().isVisible(), WAIT).toBe(true);
  async function open(page: Page, hash: string, selector: string) {
    await page.goto(`${server.url}/ops#${hash}`);
    await visible(page, selector);
  }
  const row = (id: number) => `#rows tr[data-id="${id}"]`;

  /** The screens every operator works in, in the language the page shows now. */
  async function mainScreens(page: Page, check: (screen: string) => Promise<void>, lang: string) {
    await open(page, "/deposits", row(ids.pending));
    await check(`deposit queue${lang}`);
    await page.fill('#queue-filter input[name="name"]', "ZEYNEP KOC");
    await page.click('#queue-filter button[type="submit"]');
    await visible(page, "#queue-filter-clear");
    await check(`deposit queue, filtered${lang}`);
    await open(page, "/withdrawals", "#rows tr");
    await check(`withdrawal queue${lang}`);
    await open(page, "/transactions", "#results tr");
    await check(`transactions${lang}`);
    await open(page, `/transactions/${ids.pending}`, "#d-decide");
    await check(`transaction detail, pending${lang}`);
    await open(page, `/transactions/${ids.decided}`, "#d-history li");
    await check(`transaction detail, approved${lang}`);
    await open(page, "/summary", ".hourly svg");
    await check(`summary${lang}`);
    await open(page, "/statement-lines", `#lines li[data-id="${ids.suggested}"]`);
    await check(`statement lines${lang}`);
    await open(page, `/statement-lines/${ids.suggested}`, "#candidates li");
    await check(`statement line with candidates${lang}`);
    await open(page, "/audit", "#audit tbody tr");
    await check(`audit log${lang}`);
    await open(page, "/firms", `#firms tr[data-firm="${firm.id}"]`);
    await check(`firms${lang}`);
  }

  for (const [name, viewport] of WIDTHS) {
    // The admin's screens in two tests, each well inside the test timeout on a busy machine: one
    // axe run costs about a second there, and these are some twenty screens.
    it(`${name}: the main screens in Turkish`, async () => {
      const page = await signInConsole(browser, server, "admin", { viewport, strays, timeout: WAIT.timeout });
      const found: Record<string, string[]> = {};
      await mainScreens(page, recorder(page, found), "");
      await page.context().close();
      expect(clean(found)).toEqual({});
    });

    it(`${name}: the admin's other screens in Turkish, a held decision, notices`, async () => {
      const page = await signInConsole(browser, server, "admin", { viewport, strays, timeout: WAIT.timeout });
      const found: Record<string, string[]> = {};
      const check = recorder(page, found);
      await open(page, "/statement-lines", `#lines li[data-id="${ids.unmatched}"]`);
      await open(page, `/statement-lines/${ids.unmatched}`, "#ld-title");
      await check("statement line, unmatched");
      await open(page, `/firms/${firm.id}`, "#firm-edit");
      await check("firm edit");
      await page.click('#firm-edit button[type="submit"]');
      await expect.poll(() => page.locator("#message").textContent(), WAIT).toBe(`#${firm.id}: Kaydedildi`);
      await check("firm saved, a notice");
      await open(page, "/pool", '#channels-table tr[data-channel="ELDEN"]');
      await check("pool");
      await open(page, "/providers", "#providers tbody tr");
      await check("providers");
      await open(page, "/operators", "#operators tbody tr");
      await check("operators");
      await page.fill('#operators input[name="email"]', `new-${name}@ops.example`);
      await page.click('#operators form button[type="submit"]');
      await visible(page, "#secret code");
      await check("operators, a password shown once");
      await open(page, "/password", "#password-page");
      await check("password and two-step sign-in");

      // A decision held before it is sent, with its "Geri al"; an amount the queue cannot read.
      const held = await pendingDeposit(server, firm);
      await open(page, "/deposits", row(held));
      await page.locator(row(held)).locator("button.approve").click();
      await visible(page, `#held .held-item[data-id="${held}"]`);
      await check("deposit queue, a decision held");
      await page.click(`#held .held-item[data-id="${held}"] button.undo`);
      await visible(page, row(held));
      await page.fill('#queue-filter input[name="amount"]', "12,345");
      await page.click('#queue-filter button[type="submit"]');
      await expect.poll(() => page.locator("#message").textContent(), WAIT).not.toBe("");
      await check("deposit queue, an error notice");
      // The session ends under the page: the sign-in screen says so.
      await page.context().clearCookies();
      await page.click('a.tab[data-tab="audit"]');
      await visible(page, "#login-expired");
      await check("sign-in, the session ended");
      await page.context().close();
      expect(clean(found)).toEqual({});
    });

    it(`${name}: the main screens in English`, async () => {
      const page = await signInConsole(browser, server, "operator", {
        viewport,
        strays,
        timeout: WAIT.timeout,
      });
      const found: Record<string, string[]> = {};
      await page.click("#lang");
      await expect.poll(() => page.locator("html").getAttribute("lang"), WAIT).toBe("en");
      await mainScreens(page, recorder(page, found), ", English");
      await page.context().close();
      expect(clean(found)).toEqual({});
    });

    it(`${name}: a viewer's screens, without actions`, async () => {
      const page = await signInConsole(browser, server, "viewer", {
        viewport,
        strays,
        timeout: WAIT.timeout,
      });
      const found: Record<string, string[]> = {};
      const check = recorder(page, found);
      await open(page, "/deposits", row(ids.pending));
      await check("deposit queue, viewer");
      await open(page, `/transactions/${ids.pending}`, "#d-title");
      await check("transaction detail, viewer");
      await open(page, `/statement-lines/${ids.suggested}`, "#candidates li");
      await check("statement line, viewer");
      await open(page, "/firms", `#firms tr[data-firm="${firm.id}"]`);
      await check("firms, viewer");
      await open(page, "/pool", '#channels-table tr[data-channel="ELDEN"]');
      await check("pool, viewer");
      await open(page, "/providers", "#providers tbody tr");
      await check("providers, viewer");
      await open(page, "/audit", "#audit tbody tr");
      await check("audit log, viewer");
      await page.context().close();
      expect(clean(found)).toEqual({});
    });

    it(`${name}: sign-in, its error, two-step sign-in set up, its recovery codes and its second step`, async () => {
      const email = `twostep-${name}@ops.example`;
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const found: Record<string, string[]> = {};
      const check = recorder(page, found);
      const signInForm = async (password: string, code?: string) => {
        await page.fill("#email", email);
        await page.fill("#password", password);
        if (code !== undefined) await page.fill("#code", code);
        await page.click('#login button[type="submit"]');
      };
      await page.goto(`${server.url}/ops`);
      await visible(page, "#login");
      await check("sign-in");
      await signInForm("not-the-password");
      await visible(page, "#login-error");
      await check("sign-in, wrong password");
      await signInForm("twostep-password-123");
      await visible(page, "#queue");
      await open(page, "/password", "#sf-start");
      await page.click("#sf-start");
      await expect.poll(() => page.locator("#qr path").getAttribute("d"), WAIT).toMatch(/^M/);
      await check("two-step sign-in, setting up");
      const secret = ((await page.locator("#sf-secret").textContent()) ?? "").replace(/\s/g, "");
      const codeNow = () => totpCode(fromBase32(secret), totpStep(server.clock.now()));
      await page.fill('input[name="sf-code"]', codeNow());
      await page.fill('input[name="sf-password"]', "twostep-password-123");
      await page.click('#second-factor button[type="submit"]');
      await expect.poll(() => page.locator("#recovery-code-list li").count(), WAIT).toBe(10);
      await check("recovery codes");
      await page.click("#logout");
      await visible(page, "#login");
      await signInForm("twostep-password-123");
      await visible(page, "#code");
      await check("sign-in, the code");
      await page.click("#use-recovery");
      await signInForm("twostep-password-123", "aaaaa-aaaaa");
      await visible(page, "#login-error");
      await check("sign-in, a wrong recovery code");
      await page.click("#lang");
      await check("sign-in, a wrong recovery code, English");
      await context.close();
      expect(clean(found)).toEqual({});
    });
  }
});
