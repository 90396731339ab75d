import type { Browser, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe.js";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { consoleCall } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

const MINUTE = 60_000;
const IDLE_MINUTES = 5;
/** The page answers a move of its clock within a second or two; far more on a machine running the suite. */
const SLOW = { timeout: 15_000 };

/**
 * The idle sign-out in Chromium, at the shortest timeout (5 minutes) with both clocks moved by the
 * test: the page's (Playwright's fake clock: Date and timers) and the server's (the harness's). A
 * minute before the end the page warns and offers to stay signed in; at the end it signs out and
 * says why; input that sends nothing (a key) is told to the server.
 */
describe("operator console: signed out after minutes without activity", BROWSER_TEST, () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await serverWithOperator(IDLE_MINUTES);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    expect(pageErrors).toEqual([]);
  });

  const signIn = (prepare?: (page: Page) => Promise<unknown>) =>
    signedInPage(browser, server, pageErrors, prepare);
  const pass = (page: Page, ms: number) => passTime(server, page, ms);
  const warning = (page: Page) => page.locator("#idle-warning");

  it("warns a minute before; staying signed in counts; at the end it signs out and says why", async () => {
    const page = await signIn();
    const cookie = await cookieOf(page);
    await pass(page, 3 * MINUTE);
    expect(await warning(page).count()).toBe(0);

    // 75 s before the server's end, 60 s before the page's own sign-out (held decisions go first).
    await pass(page, 70_000);
    await expect.poll(() => warning(page).isVisible(), SLOW).toBe(true);
    expect(await warning(page).locator("p").textContent()).toBe(
      "Bir süredir işlem yapmadınız: oturumunuz güvenlik için yaklaşık bir dakika içinde kapatılacak.",
    );
    expect(await warning(page).locator("button").textContent()).toBe("Oturumu açık tut");
    // The warning as a machine reads it too (axe runs in a world of its own: the page's clock stands still).
    expect(await axeViolations(page)).toEqual([]);

    await page.click("#stay-signed-in");
    await expect.poll(() => warning(page).count(), SLOW).toBe(0);
    // Past the end it had: the click moved it.
    await pass(page, 2 * MINUTE);
    expect((await consoleCall(server, "GET", "/ops/api/queue", { cookie })).status).toBe(200);
    expect(await page.locator("#queue").isVisible()).toBe(true);

    // Left alone again: the warning, then the sign-in screen saying why, and the session is over.
    await pass(page, 2 * MINUTE + 20_000);
    await expect.poll(() => warning(page).isVisible(), SLOW).toBe(true);
    // Past the page's sign-out, 10 s before the server's end: the page ends the session itself.
    await pass(page, 30_000);
    await expect.poll(() => page.locator("#login-idle").isVisible(), SLOW).toBe(true);
    expect(await page.locator("#login-idle").textContent()).toBe(
      "5 dakika işlem yapılmadığı için oturumunuz kapatıldı. Devam etmek için yeniden giriş yapın.",
    );
    expect(await warning(page).count()).toBe(0);
    expect(await page.locator("#queue").count()).toBe(0);
    expect((await consoleCall(server, "GET", "/ops/api/me", { cookie })).status).toBe(401);
    const audit = await server.admin("GET", "/admin/v1/audit?action=operator.logout");
    expect(audit.json.map((e: { actor: string }) => e.actor)).toContain("operator:operator@ops.example");
    await page.context().close();
  });

  it("a key pressed in the page counts, though it sends nothing of its own", async () => {
    const page = await signIn();
    const cookie = await cookieOf(page);
    await pass(page, 2 * MINUTE);
    // Told by a marked /me a second later, or by a marked request the page sent meanwhile anyway.
    const told = page.waitForResponse((r) => r.request().headers()["x-operator-active"] === "1");
    // `j` moves the queue's selection: no request of its own.
    await page.keyboard.press("j");
    await page.clock.runFor(1_500);
    await told;
    // Four minutes on, the session would have ended without it.
    await pass(page, 4 * MINUTE);
    const res = await consoleCall(server, "GET", "/ops/api/me", { cookie });
    expect(res.status).toBe(200);
    expect(Number(res.headers["x-session-idle-left"])).toBeGreaterThan(50);
    await page.context().close();
  });

  it("a key pressed while the page's own question to the server is unanswered still counts", async () => {
    // The page asks the server (an unmarked /me) before warning, when it heard nothing for a while:
    // no answer says the time left here, and the page's question is held unanswered.
    const held: Route[] = [];
    let holding = false;
    const api = (url: URL) => url.pathname.startsWith("/ops/api/") && url.pathname !== "/ops/api/events";
    const page = await signIn((p) =>
      p.route(api, async (route) => {
        const marked = route.request().headers()["x-operator-active"] === "1";
        if (holding && !marked && new URL(route.request().url()).pathname === "/ops/api/me")
          return held.push(route);
        const response = await route.fetch();
        const headers = { ...response.headers() };
        delete headers["x-session-idle-left"];
        await route.fulfill({ response, headers });
      }),
    );
    holding = true;
    await pass(page, 3 * MINUTE + 50_000);
    await expect.poll(() => held.length, SLOW).toBeGreaterThan(0);
    const cookie = await cookieOf(page);
    // Told by a marked /me a second later, or by a marked request the page sent meanwhile anyway
    // (its polls go marked for a few seconds after a key): either is the key reaching the server.
    const told = page.waitForResponse((r) => r.request().headers()["x-operator-active"] === "1", SLOW);
    await page.keyboard.press("j");
    await page.clock.runFor(1_500);
    await told;
    // The server's record moved: the end is a whole timeout away, not the 70 s it was.
    const res = await consoleCall(server, "GET", "/ops/api/me", { cookie });
    expect(Number(res.headers["x-session-idle-left"])).toBeGreaterThan(IDLE_MINUTES * 60 - 30);
    for (const route of held) await route.continue().catch(() => undefined);
    // Answers still being passed on when the page closes are of no interest.
    await page.unrouteAll({ behavior: "ignoreErrors" });
    await page.context().close();
  });

  it("a console that slept past its end wakes up to the sign-in screen saying why", async () => {
    const page = await signIn();
    // Asleep: no timer of the page runs, so it sends nothing while the server's time goes on.
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1_000);
    await page.waitForTimeout(500);
    server.clock.advance(IDLE_MINUTES * MINUTE + 10_000);
    await page.clock.fastForward(IDLE_MINUTES * MINUTE + 10_000);
    await page.clock.resume();
    await expect.poll(() => page.locator("#login-idle").isVisible(), SLOW).toBe(true);
    expect(await page.locator("#login-expired").count()).toBe(0);
    // Signed out, it asks nothing more (a loop of /me asks once followed each other without end).
    const asks = mePolls(page);
    await page.waitForTimeout(2_000);
    expect(asks()).toBe(0);
    await page.context().close();
  });

  it("behind a proxy that drops the time-left header, it reckons from the operator's requests and asks the server sparingly", async () => {
    // Not the live stream: an answer that never ends cannot be fetched whole and fulfilled.
    const dropped = (url: URL) => url.pathname.startsWith("/ops/api/") && url.pathname !== "/ops/api/events";
    const page = await signIn((p) =>
      p.route(dropped, async (route) => {
        const response = await route.fetch();
        const headers = { ...response.headers() };
        delete headers["x-session-idle-left"];
        await route.fulfill({ response, headers });
      }),
    );
    const asks = mePolls(page);

    await pass(page, 3 * MINUTE);
    // The operator opens another screen: a marked read, answered, so the end moves.
    const opened = page.waitForResponse(
      (r) =>
        new URL(r.url()).pathname === "/ops/api/queue" && r.request().headers()["x-operator-active"] === "1",
    );
    await page.click('a.tab[data-tab="withdrawals"]');
    expect((await opened).status()).toBe(200);
    await pass(page, 3 * MINUTE);
    expect(await warning(page).count()).toBe(0);
    // Then the last minute: the warning by the page's own reckoning, then the sign-out.
    await pass(page, 25_000);
    await expect.poll(() => warning(page).isVisible(), SLOW).toBe(true);
    await pass(page, 40_000);
    await expect.poll(() => page.locator("#login-idle").isVisible(), SLOW).toBe(true);
    await page.unrouteAll({ behavior: "ignoreErrors" });
    // A few asks in that last minute, not one after another.
    expect(asks()).toBeLessThan(10);
    await page.context().close();
  });
});

const underWay = new WeakMap<Page, Set<unknown>>();

/**
 * The session's hard end, 12 hours from sign-in, which no activity moves: announced ten minutes
 * before, then the page signs out itself (held decisions first) and says why. The idle timeout is
 * set to its longest (12 hours) and kept from running out by one click half-way.
 */
describe("operator console: the 12 hours of a session", BROWSER_TEST, () => {
  let server: TestServer;
  let browser: Browser;
  const pageErrors: string[] = [];
  const HOUR = 60 * MINUTE;

  // A server of its own: the test leaves its clock 12 hours on.
  beforeAll(async () => {
    server = await serverWithOperator(720);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    expect(pageErrors).toEqual([]);
  });

  it("says ten minutes before when the session ends; at the end it signs out and says why", async () => {
    // A browser set to New York: the time is said in Türkiye time, as every time in the console.
    const page = await signedInPage(browser, server, pageErrors, undefined, "America/New_York");
    const cookie = await cookieOf(page);
    const limitWarning = page.locator("#limit-warning");
    await passTime(server, page, 6 * HOUR);
    // The operator's click: the idle timeout starts again, the 12 hours do not. The click reaches
    // the server by a marked request (its own, or the page's word a second later), answered before
    // the clocks move on: a request sent after the jump would be the page's, late, and unmarked.
    const told = page.waitForResponse((r) => r.request().headers()["x-operator-active"] === "1", SLOW);
    await page.click(`#nav a[data-tab="withdrawals"]`);
    await page.clock.runFor(1_500);
    await told;
    await expect.poll(() => page.locator("#queue").isVisible(), SLOW).toBe(true);
    const me = await consoleCall(server, "GET", "/ops/api/me", { cookie });
    expect(Number(me.headers["x-session-idle-left"])).toBeGreaterThan(12 * 3600 - 60);
    await passTime(server, page, 5 * HOUR + 45 * MINUTE);
    expect(await limitWarning.count()).toBe(0);

    // 9 minutes before the server's end.
    await passTime(server, page, 6 * MINUTE);
    await expect.poll(() => limitWarning.isVisible(), SLOW).toBe(true);
    expect(await axeViolations(page)).toEqual([]);
    expect(await limitWarning.locator("p").textContent()).toMatch(
      /^Oturumunuz şu saatte kapanacak: \d\d:\d\d\. Bir oturum en çok 12 saat sürer; elinizdeki işi bitirip yeniden giriş yapın\.$/,
    );
    // No "stay signed in" for it: nothing moves the 12 hours.
    expect(await page.locator("#idle-warning").count()).toBe(0);
    // Every answer says how long the session has (here about 9 minutes; a second or two went by).
    const endsIn = Number(
      (await consoleCall(server, "GET", "/ops/api/me", { cookie })).headers["x-session-ends-in"],
    );
    expect(endsIn).toBeGreaterThan(530);
    expect(endsIn).toBeLessThanOrEqual(540);
    const pageNow = await page.evaluate(() => Date.now());
    const istanbul = (ms: number) =>
      new Date(ms).toLocaleTimeString("tr-TR", {
        hour: "2-digit",
        minute: "2-digit",
        timeZone: "Europe/Istanbul",
      });
    const said = (await limitWarning.locator("p").textContent())?.match(/\d\d:\d\d/)?.[0];
    expect([-60, 0, 60].map((d) => istanbul(pageNow + (endsIn + d) * 1000))).toContain(said);

    // Past the page's sign-out, 10 s before the server's end: the page ends the session itself.
    await passTime(server, page, 8 * MINUTE + 50_000);
    await expect.poll(() => page.locator("#login-limit").isVisible(), SLOW).toBe(true);
    expect(await page.locator("#login-limit").textContent()).toBe(
      "Oturumunuz 12 saatlik süresini doldurdu. Devam etmek için yeniden giriş yapın.",
    );
    expect(await limitWarning.count()).toBe(0);
    expect((await consoleCall(server, "GET", "/ops/api/me", { cookie })).status).toBe(401);
    await page.context().close();
  });
});

/** The session cookie the page holds, to ask the server about it directly. */
async function cookieOf(page: Page) {
  const c = (await page.context().cookies()).find((k) => k.name === "payintake_ops");
  return c ? `${c.name}=${c.value}` : "";
}

/** A server with this idle timeout and one operator, who signs in as the tests do. */
async function serverWithOperator(idleMinutes: number): Promise<TestServer> {
  const server = await startTestServer(STORES[0] ?? "sqlite", {
    LOG_LEVEL: "warn",
    PAYINTAKE_CONSOLE_IDLE_MINUTES: String(idleMinutes),
  });
  await server.admin("POST", "/admin/v1/operators", {
    email: "operator@ops.example",
    role: "operator",
    password: "operator-password-123",
  });
  return server;
}

/** `prepare`: what the page needs before it loads (a route in front of the server). */
async function signedInPage(
  browser: Browser,
  server: TestServer,
  pageErrors: string[],
  prepare?: (page: Page) => Promise<unknown>,
  timezoneId?: string,
): Promise<Page> {
  const page = await (
    await browser.newContext({ viewport: { width: 1280, height: 800 }, timezoneId })
  ).newPage();
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await prepare?.(page);
  countRequests(page);
  await page.clock.install();
  await page.goto(`${server.url}/ops`);
  await page.fill("#email", "operator@ops.example");
  await page.fill("#password", "operator-password-123");
  await page.click('#login button[type="submit"]');
  await expect.poll(() => page.locator("#queue").isVisible(), SLOW).toBe(true);
  return page;
}
/**
 * Time passes for the page and the server alike, as one world: both clocks stop (the page's timers
 * and the server's time stand still), the requests under way are answered at the time they were
 * sent, both clocks jump, and both go on. A request must never cross the jump: one the page sent
 * before it (marked, a few seconds after the operator's input) would count as activity minutes
 * later, and one it sent after it, answered at the server's earlier time, would tell it minutes
 * too many.
 */
async function passTime(server: TestServer, page: Page, ms: number) {
  await pausePage(page);
  const stoppedAt = Date.now();
  server.clock.frozenAtMs = stoppedAt;
  await expect.poll(() => requestsUnderWay(page), SLOW).toBe(0);
  server.clock.advance(ms);
  // Timers due meanwhile fire once, at the new time; their requests find the server there too.
  await page.clock.fastForward(ms);
  server.clock.advance(stoppedAt - Date.now());
  server.clock.frozenAtMs = undefined;
  await page.clock.resume();
}

/** Stops the page's clock where it stands (pauseAt takes an instant a little ahead of it). */
async function pausePage(page: Page) {
  for (let margin = 200; ; margin *= 2) {
    const at = await page.evaluate(() => Date.now());
    try {
      await page.clock.pauseAt(at + margin);
      return;
    } catch (e) {
      // The page's clock passed that instant before the pause arrived (a busy machine): further.
      if (!String(e).includes("past") || margin > 60_000) throw e;
    }
  }
}

/** Keeps count of the page's console API requests not yet answered (the live stream never is). */
function countRequests(page: Page) {
  const open = new Set<unknown>();
  underWay.set(page, open);
  const api = (url: string) => {
    const path = new URL(url).pathname;
    return path.startsWith("/ops/api/") && path !== "/ops/api/events";
  };
  page.on("request", (r) => api(r.url()) && open.add(r));
  page.on("requestfinished", (r) => open.delete(r));
  page.on("requestfailed", (r) => open.delete(r));
}
const requestsUnderWay = (page: Page) => underWay.get(page)?.size ?? 0;

/** Counts the page's GET /ops/api/me from now on. */
function mePolls(page: Page): () => number {
  let n = 0;
  page.on("request", (r) => {
    if (r.method() === "GET" && new URL(r.url()).pathname === "/ops/api/me") n++;
  });
  return () => n;
}
