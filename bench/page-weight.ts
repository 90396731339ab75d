// The payment page's weight on a cold load: the bytes Chromium received for each response (headers
// and body as sent, compressed when the server compressed them), from CDP's Network.loadingFinished
// encodedDataLength. A fresh browser context, so nothing comes from its cache; then a second load
// in the same context, to show what the cache saves. `npm run bench:page-weight`; docs/BENCHMARKS.md.
import { launchChromium } from "../test/support/browser.js";
import { startTestServer } from "../test/support/harness.js";
import { addAccount, createFirm, depositBody, send } from "../test/support/merchant.js";

const server = await startTestServer("sqlite", { LOG_LEVEL: "warn" });
const browser = await launchChromium();
try {
  await addAccount(server);
  const firm = await createFirm(server);
  const res = await send(server, firm, {
    path: "/paymentapi/v1/deposits",
    body: depositBody({ redirect: true, amount: undefined }),
  });
  const url = `${server.url}${res.json.payment_url}`;
  const context = await browser.newContext({ viewport: { width: 360, height: 740 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  const urls = new Map<string, string>();
  let rows: { url: string; bytes: number }[] = [];
  cdp.on("Network.requestWillBeSent", (e) => urls.set(e.requestId, e.request.url));
  cdp.on("Network.loadingFinished", (e) =>
    rows.push({ url: urls.get(e.requestId) ?? "?", bytes: e.encodedDataLength }),
  );
  const load = async (label: string) => {
    rows = [];
    await page.goto(url);
    await page.locator("#open").waitFor({ state: "visible" });
    await page.waitForLoadState("networkidle");
    const total = rows.reduce((sum, r) => sum + r.bytes, 0);
    console.log(`\n${label}: ${rows.length} responses, ${total} bytes`);
    for (const r of rows) console.log(`  ${String(r.bytes).padStart(7)}  ${r.url.replace(server.url, "")}`);
  };
  await load("cold load");
  await load("second load, same browser");
  await context.close();
} finally {
  await browser.close();
  await server.close();
}
