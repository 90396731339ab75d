import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

/**
 * In Chromium: a stranger who locks an operator's account with wrong passwords does not lock out the
 * browser the operator works in (ADR 0007), while a browser the operator never used is locked out.
 */

describe("console sign-in from a known browser, in Chromium", BROWSER_TEST, () => {
  let server: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await server.admin("POST", "/admin/v1/operators", {
      email: "desk@ops.example",
      role: "operator",
      password: "desk-password-123",
    });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  async function signInForm(page: Page) {
    await page.goto(`${server.url}/ops`);
    await expect.poll(() => page.locator("#login").isVisible()).toBe(true);
    await page.fill("#email", "desk@ops.example");
    await page.fill("#password", "desk-password-123");
    await page.click('#login button[type="submit"]');
  }

  it("the operator's own browser signs in through a stranger's lockout; a new browser is told to wait", async () => {
    const own = await (await browser.newContext()).newPage();
    const errors: string[] = [];
    own.on("pageerror", (e) => errors.push(e.message));
    await signInForm(own);
    await expect.poll(() => own.locator("#queue").isVisible()).toBe(true);
    await own.click("#logout");
    await expect.poll(() => own.locator("#login").isVisible()).toBe(true);

    // Someone else, with no cookie of hers, guesses five times: the account is locked.
    for (let i = 0; i < 5; i++)
      expect((await consoleLogin(server, "desk@ops.example", `guess-${i}-password`)).res.status).toBe(401);
    expect((await consoleLogin(server, "desk@ops.example", "desk-password-123")).res.status).toBe(423);

    await signInForm(own);
    await expect.poll(() => own.locator("#queue").isVisible()).toBe(true);
    expect(await own.locator("#who").textContent()).toBe("desk@ops.example (operatör)");

    const fresh = await (await browser.newContext()).newPage();
    await signInForm(fresh);
    await expect
      .poll(() => fresh.locator("#login-error").textContent())
      .toBe(
        "Çok fazla hatalı giriş. Daha önce giriş yaptığınız bir tarayıcıdan deneyin, bir yöneticiden kilidi açmasını isteyin ya da 15 dakika sonra yeniden deneyin.",
      );
    expect(await fresh.locator("#queue").count()).toBe(0);
    expect(errors).toEqual([]);
  });
});
