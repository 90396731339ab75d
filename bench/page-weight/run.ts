// The payment page's weight and first render on a cold load (docs/BENCHMARKS.md, "Payment page").
//
// Bytes: what Chromium received for each response (headers and body as sent, compressed when the
// server compressed them), from CDP's Network.loadingFinished encodedDataLength, in a fresh browser
// context, then a second load in the same context to show what the cache saves.
//
// First render: cold loads throttled to Chrome DevTools' "Fast 3G" preset (its figures below, set
// with CDP Network.emulateNetworkConditions), cache disabled, each in a fresh context: the
// first-contentful-paint of the Performance API, and when the amount form is on screen (the moment
// the page is of use), both from navigation start. The median of RUNS loads.
//
// `npm run bench:page-weight [-- TREE…]`: each TREE is a checkout of payintake (default: this one),
// whose own server and test helpers are started, so an older commit in a separate worktree is
// measured as it was (`git worktree add /tmp/before <commit>`, node_modules linked).
import { resolve } from "node:path";
import type { Browser, CDPSession } from "playwright-core";
import { launchChromium } from "../../test/support/browser.js";

/** DevTools' "Fast 3G": 1.6 Mbit/s down and 750 kbit/s up at 90 %, 150 ms × 3.75 latency. */
const FAST_3G = {
  offline: false,
  latency: 150 * 3.75,
  downloadThroughput: ((1.6 * 1000 * 1000) / 8) * 0.9,
  uploadThroughput: ((750 * 1000) / 8) * 0.9,
};
const RUNS = Number(process.env.PAGE_WEIGHT_RUNS ?? 5);
const PHONE = { width: 360, height: 740 };

/** Counts the bytes of every response on a CDP session until `take()` is called. */
async function byteCounter(cdp: CDPSession) {
  await cdp.send("Network.enable");
  const urls = new Map<string, string>();
  let rows: { url: string; bytes: number }[] = [];
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  cdp.on("Network.loadingFinished", (e) =>
    rows.push({ url: urls.get(e.requestId) ?? "?", bytes: e.encodedDataLength }),
  );
  return {
    take() {
      const taken = rows;
      rows = [];
      return { rows: taken, total: taken.reduce((sum, r) => sum + r.bytes, 0) };
    },
  };
}

/** Records, in the page, when the amount form stops being hidden (ms from navigation start). */
const FORM_SHOWN = `new MutationObserver((_m, observer) => {
  const form = document.getElementById("open");
  if (form && !form.hidden) { window.__formShown = performance.now(); observer.disconnect(); }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ["hidden"] });`;

async function unthrottled(browser: Browser, url: string, origin: string) {
  const context = await browser.newContext({ viewport: PHONE });
  const page = await context.newPage();
  const bytes = await byteCounter(await context.newCDPSession(page));
  for (const label of ["cold load", "second load, same browser"]) {
    await page.goto(url);
    await page.locator("#open").waitFor({ state: "visible" });
    await page.waitForLoadState("networkidle");
    const { rows, total } = bytes.take();
    console.log(`\n${label}: ${rows.length} responses, ${total} bytes`);
    for (const r of rows) console.log(`  ${String(r.bytes).padStart(7)}  ${r.url.replace(origin, "")}`);
  }
  await context.close();
}

async function fast3g(browser: Browser, url: string) {
  const context = await browser.newContext({ viewport: PHONE });
  await context.addInitScript(FORM_SHOWN);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  const bytes = await byteCounter(cdp);
  await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
  await cdp.send("Network.emulateNetworkConditions", FAST_3G);
  await page.goto(url);
  await page.locator("#open").waitFor({ state: "visible", timeout: 60_000 });
  await page.waitForLoadState("networkidle");
  const times = await page.evaluate(() => ({
    fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
    form: (window as unknown as { __formShown?: number }).__formShown ?? Number.NaN,
  }));
  await context.close();
  return { ...times, bytes: bytes.take().total };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function measure(tree: string, browser: Browser) {
  // The tree's own server and helpers: an older checkout is measured with the page it served.
  const harness = await import(resolve(tree, "test/support/harness.ts"));
  const merchant = await import(resolve(tree, "test/support/merchant.ts"));
  const server = await harness.startTestServer("sqlite", { LOG_LEVEL: "warn" });
  try {
    await merchant.addAccount(server);
    const firm = await merchant.createFirm(server);
    const link = async () => {
      const body = merchant.depositBody({ redirect: true, amount: undefined });
      const res = await merchant.send(server, firm, { path: "/paymentapi/v1/deposits", body });
      return `${server.url}${res.json.payment_url}`;
    };
    console.log(`\n== ${tree}`);
    await unthrottled(browser, await link(), server.url);
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await fast3g(browser, await link()));
    const shown = (xs: number[]) => xs.map((x) => Math.round(x)).join(", ");
    console.log(`\nFast 3G, cache disabled, ${RUNS} cold loads (median; each run):`);
    console.log(`  bytes                   ${median(runs.map((r) => r.bytes))}`);
    console.log(
      `  first-contentful-paint  ${Math.round(median(runs.map((r) => r.fcp)))} ms  (${shown(runs.map((r) => r.fcp))})`,
    );
    console.log(
      `  amount form shown       ${Math.round(median(runs.map((r) => r.form)))} ms  (${shown(runs.map((r) => r.form))})`,
    );
  } finally {
    await server.close();
  }
}

const trees = process.argv.slice(2);
const browser = await launchChromium();
try {
  for (const tree of trees.length > 0 ? trees : ["."]) await measure(resolve(tree), browser);
} finally {
  await browser.close();
}
