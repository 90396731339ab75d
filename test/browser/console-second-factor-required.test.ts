import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import { axeViolations } from "../support/axe.js";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

/** A console that requires two-step sign-in, in Chromium: an operator without one sets it up first. */

describe("a console that requires two-step sign-in, in Chromium", BROWSER_TEST, () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_CONSOLE_REQUIRE_SECOND_FACTOR: "true",
    });
    await server.admin("POST", "/admin/v1/operators", {
      email: "first@ops.example",
      role: "operator",
      password: "first-password-123",
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("signs in with the password, shows only the setup, and opens the queue once it is on", async () => {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${server.url}/ops#/deposits`);
    await page.fill("#email", "first@ops.example");
    await page.fill("#password", "first-password-123");
    await page.click('#login button[type="submit"]');

    await expect
      .poll(() => page.locator("#sf-required").textContent())
      .toBe("Bu konsol iki adımlı giriş gerektiriyor. Devam etmek için önce iki adımlı girişi açın.");
    // Nothing else: no tabs, no queue (the server would refuse them anyway).
    expect(await page.locator("#nav").count()).toBe(0);
    expect(await page.locator("#queue").count()).toBe(0);
    await expect.poll(() => page.locator("#logout").isVisible()).toBe(true);
    // The setup screen as a machine reads it too: no WCAG 2.1 A/AA violation.
    expect(await axeViolations(page)).toEqual([]);

    await page.click("#sf-start");
    const secret = ((await page.locator("#sf-secret").textContent()) ?? "").replace(/\s/g, "");
    await page.fill('input[name="sf-code"]', totpCode(fromBase32(secret), totpStep(server.clock.now())));
    await page.fill('input[name="sf-password"]', "first-password-123");
    await page.click('#second-factor button[type="submit"]');

    // On: the console opens where the operator asked to go.
    await expect.poll(() => page.locator("#queue").isVisible()).toBe(true);
    expect(await page.locator("#nav").isVisible()).toBe(true);
    expect(await page.locator("#sf-required").count()).toBe(0);
    // Above it, the recovery codes, shown this once (the setup screen they came from is gone).
    expect(await page.locator("#recovery-code-list li").count()).toBe(10);
    // Its settings say it stays on, and offer no way to turn it off (the server would refuse).
    await page.goto(`${server.url}/ops#/password`);
    await expect
      .poll(() => page.locator("#sf-required-note").textContent())
      .toBe(
        "Bu konsol iki adımlı giriş gerektirdiği için kapatılamaz. Telefonunuzu değiştirirseniz bir yöneticiden sıfırlamasını isteyin.",
      );
    expect(await page.locator('input[name="sf-code"]').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
