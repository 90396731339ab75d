import { existsSync } from "node:fs";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

/** Where browser tests save the screenshots the docs show, when PAYINTAKE_SCREENSHOTS=1; else null. */
export const SCREENSHOTS =
  process.env.PAYINTAKE_SCREENSHOTS === "1"
    ? new URL("../../docs/screenshots/", import.meta.url).pathname
    : null;

/**
 * A browser test's time limit, passed to each browser file's describe: on a busy 2-core machine
 * (CI's on a slow day) a screen took up to four times as long as on a quiet one, and a test of some
 * ten screens then passed the suite's 30 s.
 */
export const BROWSER_TEST = { timeout: 60_000 } as const;

/** Debian's Chromium, which .ci/run installs; PAYINTAKE_CHROMIUM names another. */
const CHROMIUM = process.env.PAYINTAKE_CHROMIUM ?? "/usr/bin/chromium";

/** Headless Chromium for the browser tests; without it they fail saying what to install. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}

/**
 * The payment page's HTML sent without the status it carries (as the server sends it past the rate
 * limit, or when the store failed): the page then asks for its status itself.
 */
export async function withoutEmbeddedStatus(target: Page | BrowserContext): Promise<void> {
  await target.route("**/t/*", async (route) => {
    const res = await route.fetch();
    const body = (await res.text()).replace(
      /<script type="application\/json" id="status">[^<]*<\/script>/,
      '<script type="application/json" id="status"></script>',
    );
    const { "content-encoding": _e, "content-length": _l, ...headers } = res.headers();
    await route.fulfill({ status: res.status(), headers, body });
  });
}
