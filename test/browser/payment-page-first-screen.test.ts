import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  decide as decideAs,
  hostedSession,
  type TestFirm,
} from "../support/merchant.js";

/**
 * The payment page's first screen comes with its HTML (docs/hosted-page.md): the stylesheet inline,
 * allowed by its hash in the CSP, and the session's status in a JSON data block that page.js reads,
 * so that no status request stands between the page and the form. In Chromium.
 */
const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1280, height: 800 };
/** The page's status check, GET /api/pay/:token (not the submit, /api/pay/:token/deposit). */
const STATUS = /\/api\/pay\/[^/]+$/;
const STATUS_BLOCK = /<script type="application\/json" id="status">[^<]*<\/script>/;

/**
 * Added before the page's own scripts: the CSP violations the page reports, the status requests
 * page.js starts (its fetches), and those started before the first screen other than "loading" was
 * shown.
 */
const WATCH = `
window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
  window.__violations.push(e.violatedDirective + " " + e.blockedURI));
window.__asked = [];
const fetched = window.fetch.bind(window);
window.fetch = (url, init) => { window.__asked.push(String(url)); return fetched(url, init); };
new MutationObserver((_m, observer) => {
  const shown = ["open", "assigned", "expired", "missing", "failed"].find((id) => {
    const el = document.getElementById(id);
    return el && !el.hidden;
  });
  if (!shown) return;
  window.__first = { shown, asked: [...window.__asked] };
  observer.disconnect();
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["hidden"] });`;

interface Opening {
  viewport?: typeof PHONE;
  held?: boolean;
  prepare?: (context: BrowserContext) => Promise<unknown>;
}
interface Watched {
  violations: string[];
  first?: { shown: string; asked: string[] };
}
const watched = (page: Page) =>
  page.evaluate(() => {
    const w = window as unknown as { __violations: string[]; __first?: Watched["first"] };
    return { violations: w.__violations, first: w.__first } as Watched;
  });

describe("the payment page's first screen comes with its HTML (Chromium)", BROWSER_TEST, () => {
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

  const session = (f: TestFirm = firm) => hostedSession(server, f);
  const api = (path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const decide = (reference: string, decision: "approve" | "reject") =>
    decideAs(server, firm, reference, decision);
  /**
   * Opens the page, with its status checks held unanswered (never released) unless `held` is
   * false: a screen that shows then was drawn from the HTML alone. Console errors are collected.
   */
  async function openHeld(
    url: string,
    { viewport = PHONE, held = true, prepare }: Opening = {},
  ): Promise<{ page: Page; errors: string[] }> {
    const context = await browser.newContext({ viewport, locale: "tr-TR" });
    await context.addInitScript(WATCH);
    if (held) await context.route(STATUS, () => {});
    await prepare?.(context);
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") errors.push(m.text());
    });
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(url);
    return { page, errors };
  }
  const visible = (page: Page, id: string) => page.locator(`#${id}`).isVisible();

  it("the form shows with no status request before it; the inline stylesheet applies with no CSP violation, through to the account", async () => {
    const { url } = await session();
    const { page, errors } = await openHeld(url);
    await expect.poll(() => visible(page, "open")).toBe(true);
    expect((await watched(page)).first).toEqual({ shown: "open", asked: [] });
    // page.css's rules, from the <style> the CSP allows by its hash.
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(
      "rgb(244, 246, 249)",
    );
    expect(await page.locator('link[rel="stylesheet"]').count()).toBe(0);
    // The submit and the account screen, under the same policy.
    await page.fill("#amount", "210");
    await page.click("#submit");
    await page.click("#confirm");
    await expect.poll(() => visible(page, "assigned")).toBe(true);
    expect(await page.locator("#v-amount").textContent()).toBe("210,00 TL");
    expect((await watched(page)).violations).toEqual([]);
    expect(errors).toEqual([]);
    await page.context().close();

    // On a wide screen the QR code's image loads too, under img-src 'self'.
    const wide = await openHeld((await session()).url, { viewport: DESKTOP });
    await expect.poll(() => wide.page.locator("#qr img").isVisible()).toBe(true);
    await expect
      .poll(() => wide.page.locator("#qr img").evaluate((img) => (img as HTMLImageElement).naturalWidth))
      .toBeGreaterThan(0);
    expect((await watched(wide.page)).violations).toEqual([]);
    expect(wide.errors).toEqual([]);
    await wide.page.context().close();
  });

  it("a link already assigned, approved, rejected or unknown opens on its own screen, with no status request before it", async () => {
    const assigned = await session();
    expect((await api(`/api/pay/${assigned.token}/deposit`, { amount: "330.00" })).status).toBe(200);
    const approved = await session();
    await api(`/api/pay/${approved.token}/deposit`, { amount: "340.00" });
    await decide(approved.reference, "approve");
    const rejected = await session();
    await api(`/api/pay/${rejected.token}/deposit`, { amount: "350.00" });
    await decide(rejected.reference, "reject");
    const cases = [
      { url: assigned.url, shown: "assigned", text: ["#v-amount", "330,00 TL"] },
      { url: approved.url, shown: "expired", text: ["#expired-title", "Ödemeniz onaylandı"] },
      { url: rejected.url, shown: "expired", text: ["#expired-title", "Bu ödeme talebi kapandı"] },
      {
        url: `${server.url}/t/${"C".repeat(32)}`,
        shown: "missing",
        text: ["#missing-title", "Ödeme bağlantısı bulunamadı"],
      },
    ] as const;
    for (const c of cases) {
      const { page, errors } = await openHeld(c.url);
      await expect.poll(() => visible(page, c.shown), { message: c.url }).toBe(true);
      expect(await page.locator(c.text[0]).textContent()).toBe(c.text[1]);
      expect((await watched(page)).first).toEqual({ shown: c.shown, asked: [] });
      expect(errors).toEqual([]);
      await page.context().close();
    }
  });

  it("a page sent without its status (past the rate limit, a store error) asks for it, as before", async () => {
    const { url } = await session();
    let stripped = false;
    const { page } = await openHeld(url, {
      held: false,
      prepare: (context) =>
        context.route("**/t/*", async (route) => {
          const res = await route.fetch();
          const body = (await res.text()).replace(
            STATUS_BLOCK,
            '<script type="application/json" id="status"></script>',
          );
          stripped = true;
          const { "content-encoding": _e, "content-length": _l, ...headers } = res.headers();
          await route.fulfill({ status: res.status(), headers, body });
        }),
    });
    expect(stripped).toBe(true);
    await expect.poll(() => visible(page, "open")).toBe(true);
    expect((await watched(page)).first?.asked).toEqual([`/api/pay/${url.split("/").pop()}`]);
    await page.context().close();
  });
});
