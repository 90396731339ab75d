import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, pendingDeposit } from "../support/merchant.js";

/**
 * A reference with a right-to-left override (U+202E), stored before the API refused one, reverses
 * nothing beside it in the console. On PostgreSQL: a second connection writes the row as an older
 * version of the service could have (the embedded store's file is the server's alone).
 */
describe.skipIf(!STORES.includes("postgres"))(
  "console: text from outside is laid out on its own",
  BROWSER_TEST,
  () => {
    let server: TestServer;
    let browser: Browser;

    beforeAll(async () => {
      server = await startTestServer("postgres", { LOG_LEVEL: "warn" });
      await addAccount(server);
      await createConsoleOperators(server, ["operator"]);
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
      await server?.close();
    });

    it("the status after an overriding reference stays after it, left to right", async () => {
      const firm = await createFirm(server);
      const id = await pendingDeposit(server, firm);
      const reference = `ORD-\u202EKO-${id}`;
      const client = new pg.Client({ connectionString: server.env.DATABASE_URL });
      await client.connect();
      await client.query("UPDATE transactions SET reference = $1 WHERE id = $2", [reference, id]);
      await client.end();

      const page = await signInConsole(browser, server, "operator", { path: `/ops#/transactions/${id}` });
      await expect.poll(() => page.locator("#d-title bdi").textContent()).toBe(reference);
      expect(await page.locator("#d-title").textContent()).toBe(`#${id} · ${reference} · Bekliyor`);
      const placed = await page.evaluate(() => {
        const title = document.getElementById("d-title") as HTMLElement;
        const bdi = title.querySelector("bdi") as HTMLElement;
        const status = title.lastChild as Text;
        const range = document.createRange();
        range.setStart(status, status.length - "Bekliyor".length);
        range.setEnd(status, status.length);
        // Laid out as one run to the right of the reference: an override reaching it would reverse it
        // and place it before the reference's reversed part.
        return {
          after: range.getBoundingClientRect().left >= bdi.getBoundingClientRect().right,
          runs: range.getClientRects().length,
        };
      });
      expect(placed).toEqual({ after: true, runs: 1 });
      await page.context().close();
    });
  },
);
