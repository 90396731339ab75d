import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BROWSER_TEST, launchChromium } from "../support/browser.js";
import { createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { createFirm, type TestFirm } from "../support/merchant.js";

/**
 * The firm form's payment page and reconciliation settings in Chromium (issues 34 and 35): the
 * shop's name payers see (empty: the firm's name, shown as the placeholder), the amount above which
 * the page warns (empty: judged by recent deposits), and whether bank statements approve the
 * firm's deposits by themselves, by name too, and whether its answers carry the payment code.
 */
const WAIT = { timeout: 10_000 };

describe.each(STORES)(
  "console: a firm's payment page and reconciliation settings (%s)",
  BROWSER_TEST,
  (kind) => {
    let server: TestServer;
    let browser: Browser;
    let firm: TestFirm;
    const problems: string[] = [];

    beforeAll(async () => {
      server = await startTestServer(kind, { LOG_LEVEL: "warn" });
      await createConsoleOperators(server, ["admin"]);
      firm = await createFirm(server, { name: "Kuzey Ticaret Ltd. Şti." });
      browser = await launchChromium();
    });
    afterAll(async () => {
      expect(problems).toEqual([]);
      await browser?.close();
      await server?.close();
    });

    const signIn = () => signInConsole(browser, server, "admin", { strays: problems, timeout: WAIT.timeout });
    const field = (page: Page, name: string) => page.locator(`#firm-edit [name="${name}"]`);
    /** The visible label of a field of the firm form. */
    const labelOf = (page: Page, name: string) =>
      page.locator(`#firm-edit label:has([name="${name}"])`).textContent();
    const stored = async () => (await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json;
    /** Saves the form and waits for the server's answer to what it sent. */
    async function save(page: Page) {
      const answered = page.waitForResponse(
        (r) => r.request().method() === "PATCH" && r.url().endsWith(`/firms/${firm.id}`),
      );
      await page.click('#firm-edit button[type="submit"]');
      expect((await answered).status()).toBe(200);
      await expect.poll(() => page.locator("#message").textContent(), WAIT).toBe(`#${firm.id}: Kaydedildi`);
    }
    async function openForm() {
      const page = await signIn();
      await page.click('a.tab[data-tab="firms"]');
      await page.locator(`#firms tr[data-firm="${firm.id}"] a.button`).click();
      await expect.poll(() => page.locator("#firm-edit").isVisible(), WAIT).toBe(true);
      return page;
    }

    it("sets the shop's name and the usual amount, and takes them off with an empty field", async () => {
      const page = await openForm();
      expect(await labelOf(page, "display_name")).toContain("Ödeme sayfasında görünen ad (display_name)");
      // Unset: the page shows the firm's name, which the field shows as its placeholder.
      expect(await field(page, "display_name").inputValue()).toBe("");
      expect(await field(page, "display_name").getAttribute("placeholder")).toBe("Kuzey Ticaret Ltd. Şti.");
      expect(await field(page, "usual_amount_max").getAttribute("placeholder")).toBe(
        "son 30 günün ortancasının 10 katı",
      );
      await field(page, "display_name").fill("Kuzey Market");
      await field(page, "usual_amount_max").fill("7.500,00");
      await save(page);
      expect(await stored()).toMatchObject({ display_name: "Kuzey Market", usual_amount_max: "7500.00" });
      await expect.poll(() => field(page, "usual_amount_max").inputValue(), WAIT).toBe("7.500,00");

      // Read back as saved, a save of the unchanged form sends nothing for them.
      const sent: string[] = [];
      page.on("request", (r) => {
        if (r.method() === "PATCH") sent.push(r.postData() ?? "");
      });
      await field(page, "rate").fill("150");
      await save(page);
      expect(sent.map((b) => JSON.parse(b))).toEqual([{ rate_limit_per_second: 150 }]);

      await field(page, "display_name").fill("");
      await field(page, "usual_amount_max").fill("");
      await save(page);
      expect(await stored()).toMatchObject({ display_name: null, usual_amount_max: null });

      await page.click("#lang");
      expect(await labelOf(page, "display_name")).toContain("Name on the payment page (display_name)");
      expect(await labelOf(page, "usual_amount_max")).toContain(
        "The payment page warns above this amount (usual_amount_max)",
      );
      await page.context().close();
    });

    it("switches the firm's reconciliation settings, grouped under their own name, in both languages", async () => {
      const page = await openForm();
      expect(await page.locator("#firm-edit fieldset legend").textContent()).toBe("Ekstreyle eşleştirme");
      // As the API gives a new firm: statements approve by themselves and by name; no payment code in answers.
      expect(await field(page, "reconcile_auto").isChecked()).toBe(true);
      expect(await field(page, "reconcile_by_name").isChecked()).toBe(true);
      expect(await field(page, "answer_payment_code").isChecked()).toBe(false);
      expect(await labelOf(page, "reconcile_by_name")).toContain(
        "Ödeme kodu olmadan tutar ve adla da (reconcile_by_name)",
      );
      await field(page, "reconcile_by_name").uncheck();
      await field(page, "answer_payment_code").check();
      await save(page);
      expect(await stored()).toMatchObject({
        reconcile_auto: true,
        reconcile_by_name: false,
        answer_payment_code: true,
      });
      await field(page, "reconcile_auto").uncheck();
      await save(page);
      expect(await stored()).toMatchObject({ reconcile_auto: false, answer_payment_code: true });

      await page.click("#lang");
      expect(await page.locator("#firm-edit fieldset legend").textContent()).toBe("Bank statement matching");
      expect(await labelOf(page, "reconcile_auto")).toContain(
        "A statement line may approve a deposit by itself (reconcile_auto)",
      );
      expect(await labelOf(page, "answer_payment_code")).toContain(
        "Payment code in deposit answers (answer_payment_code)",
      );
      await page.context().close();
    });

    it("a new firm may be given its shop's name at creation", async () => {
      const page = await signIn();
      await page.click('a.tab[data-tab="firms"]');
      await page.fill('#firm-create [name="name"]', "Güney Gıda A.Ş.");
      await page.fill('#firm-create [name="display_name"]', "Güney Market");
      await page.click('#firm-create button[type="submit"]');
      await expect.poll(() => page.locator("#message").textContent(), WAIT).toMatch(/^#\d+: Kaydedildi/);
      const firms = (await server.admin("GET", "/admin/v1/firms")).json as {
        name: string;
        display_name: string;
      }[];
      expect(firms.find((f) => f.name === "Güney Gıda A.Ş.")?.display_name).toBe("Güney Market");
      await page.context().close();
    });
  },
);
