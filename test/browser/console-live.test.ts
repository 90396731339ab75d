import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, pendingDeposit, statusOf, type TestFirm } from "../support/merchant.js";

/**
 * The queue in Chromium hears of changes at once (web/console/live.ts): while its stream is open
 * it polls only every 30 s, so a row that comes or goes within a few seconds came by the stream.
 */

describe("console queue, live, in Chromium", BROWSER_TEST, () => {
  let server: TestServer;
  let firm: TestFirm;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server);
    for (const email of ["op@ops.example", "colleague@ops.example"])
      await server.admin("POST", "/admin/v1/operators", {
        email,
        role: "operator",
        password: "operator-password-123",
      });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("pageerror", (e) => pageErrors.push(e.message));
    // The page's clock runs as the real one, and tests move it on where the page's time must pass.
    await page.clock.install();
    await page.goto(`${server.url}/ops`);
    await page.fill("#email", "op@ops.example");
    await page.fill("#password", "operator-password-123");
    await page.click('#login button[type="submit"]');
    await page.locator("#queue").waitFor({ state: "visible", timeout: 10_000 });
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  const rowCount = (id: number) => page.locator(`#rows tr[data-id="${id}"]`).count();
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const deposit = () => pendingDeposit(server, firm);

  it("shows the queue as live, a new deposit within seconds, and a colleague's decision too", async () => {
    await expect.poll(() => page.locator('#queue .live[data-live="on"]').count(), { timeout: 5_000 }).toBe(1);

    const id = await deposit();
    await expect.poll(() => rowCount(id), { timeout: 3_000 }).toBe(1);

    const colleague = await consoleLogin(server, "colleague@ops.example", "operator-password-123");
    const rejected = await consoleCall(server, "POST", `/ops/api/transactions/${id}/reject`, {
      cookie: colleague.cookie,
      csrf: colleague.csrf,
      body: { note: "no payment seen" },
    });
    expect(rejected.status).toBe(200);
    await expect.poll(() => rowCount(id), { timeout: 3_000 }).toBe(0);
  });

  it("over a slow link, a new deposit still shows while others keep coming", async () => {
    // Each queue answer takes 400 ms; a notice comes every 250 ms. Reloads that each superseded
    // the one before never showed anything (found by review).
    await page.route("**/ops/api/queue?**", async (route) => {
      await pause(400);
      // Once the test has unrouted, Playwright has let the request through already.
      await route.continue().catch(() => {});
    });
    const id = await deposit();
    let going = true;
    const more = (async () => {
      while (going) {
        await deposit();
        await pause(150);
      }
    })();
    try {
      await expect.poll(() => rowCount(id), { timeout: 4_000 }).toBe(1);
    } finally {
      going = false;
      await more;
      await page.unroute("**/ops/api/queue?**");
    }
  });

  it("a click on approve just after its row moved is not taken; on a row that stayed, or once it held still, it is", async () => {
    const stays = await deposit();
    const leaves = await deposit();
    const moves = await deposit();
    await expect.poll(() => rowCount(moves), { timeout: 3_000 }).toBe(1);
    const colleague = await consoleLogin(server, "colleague@ops.example", "operator-password-123");
    const decided = await consoleCall(server, "POST", `/ops/api/transactions/${leaves}/approve`, {
      cookie: colleague.cookie,
      csrf: colleague.csrf,
      body: {},
    });
    expect(decided.status).toBe(200);
    const status = (id: number) => statusOf(server, id);
    // The row below the one that left moves up under the pointer: a click on it now is not taken.
    await expect.poll(() => rowCount(leaves), { timeout: 3_000, interval: 20 }).toBe(0);
    await page.locator(`#rows tr[data-id="${moves}"] button.approve`).click();
    await expect
      .poll(() => page.locator("#message").textContent())
      .toBe("Liste az önce değişti: satırı kontrol edip yeniden tıklayın.");
    expect(await status(moves)).toBe("pending");
    // The row above it did not move: taken at once.
    await page.locator(`#rows tr[data-id="${stays}"] button.approve`).click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${stays}: Onaylandı`);
    // Past the moved-row guard (800 ms), on the page's clock.
    await page.clock.runFor(900);
    await page.locator(`#rows tr[data-id="${moves}"] button.approve`).click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${moves}: Onaylandı`);
    expect([await status(stays), await status(moves)]).toEqual(["approved", "approved"]);
  });

  it("a load that never answers does not stop the queue for good", async () => {
    // One answer lost without a word (a connection that died silently); later ones come.
    let held = false;
    const hung: (() => void)[] = [];
    await page.route("**/ops/api/queue?**", async (route) => {
      if (held) return route.continue().catch(() => {});
      held = true;
      await new Promise<void>((resolve) => hung.push(resolve));
      await route.abort().catch(() => {});
    });
    try {
      const first = await deposit();
      await expect.poll(() => held, { timeout: 3_000 }).toBe(true);
      // While the load hangs, the row does not come (nothing else loads it within a second).
      await pause(1_000);
      expect(await rowCount(first)).toBe(0);
      // After 20 s (the page's clock) the lost load no longer holds the next one back.
      await page.clock.runFor(20_000);
      const next = await deposit();
      await expect.poll(() => rowCount(next), { timeout: 3_000 }).toBe(1);
      expect(await rowCount(first)).toBe(1);
    } finally {
      for (const resolve of hung) resolve();
      await page.unroute("**/ops/api/queue?**");
    }
  });

  it("says so when the stream is refused, and polls every 5 s again", async () => {
    // A proxy that cuts streams, or an old browser: the page works as before.
    await page.route("**/ops/api/events", (route) => route.abort());
    const asked: number[] = [];
    page.on("request", (r) => {
      if (r.url().includes("/ops/api/queue?type=withdrawal")) asked.push(Date.now());
    });
    await page.evaluate(() => {
      window.location.hash = "#/withdrawals";
    });
    await expect.poll(() => asked.length, { timeout: 3_000 }).toBe(1);
    await expect.poll(() => page.locator('#queue .live[data-live="off"]').count()).toBe(1);
    await expect.poll(() => asked.length, { timeout: 6_000 }).toBeGreaterThanOrEqual(2);
    await page.unroute("**/ops/api/events");
  });

  it("the summary follows the queues too: a new deposit shows within seconds, not at the next 15 s poll", async () => {
    await page.evaluate(() => {
      window.location.hash = "#/summary";
    });
    const figure = page.locator("#cards .card.wide .figure").first();
    await figure.waitFor({ state: "visible", timeout: 5_000 });
    const shownAt = Date.now();
    const before = await figure.textContent();
    await deposit();
    await expect.poll(() => figure.textContent(), { timeout: 9_000 }).not.toBe(before);
    expect(Date.now() - shownAt).toBeLessThan(15_000);
  });
});
