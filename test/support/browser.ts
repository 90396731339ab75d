import { existsSync } from "node:fs";
import { type Browser, chromium } from "playwright-core";

/** Where browser tests save the screenshots the docs show, when PAYINTAKE_SCREENSHOTS=1; else null. */
export const SCREENSHOTS =
  process.env.PAYINTAKE_SCREENSHOTS === "1"
    ? new URL("../../docs/screenshots/", import.meta.url).pathname
    : null;

/** Debian's Chromium, which .ci/run installs; PAYINTAKE_CHROMIUM names another. */
const CHROMIUM = process.env.PAYINTAKE_CHROMIUM ?? "/usr/bin/chromium";

/** Headless Chromium for the browser tests; without it they fail saying what to install. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
}
