import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe.js";
import { launchChromium, SCREENSHOTS } from "../support/browser.js";
import { createConsoleOperators } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, send, type TestFirm, withdrawalBody } from "../support/merchant.js";

/**
 * "Ödemeler" in Chromium (issue 47, point 7), through the real server: an admin turns payouts on;
 * a firm's withdrawals wait, one with an invalid IBAN saying why it cannot go; an operator makes a
 * batch over the two-person limit (default 100.000,00 TL), which then waits for a second operator;
 * its maker's approval is refused in Turkish; a second operator, in a browser of their own,
 * approves it, downloads its bank file (which names each payout's payment id) and, after
 * confirming, marks it uploaded (a dismissed confirmation sends nothing). axe finds nothing in each
 * state; 768 px and 320 px scroll nothing sideways.
 */
/** A sign-in hashes a password, a move writes and reads again: more than poll's default second on a busy machine. */
const WAIT = { timeout: 10_000 };
const SECOND = "second@ops.example";
const VALID_IBAN = "TR330006100519786457841326";

describe.each(STORES)("console: payouts (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let account: { id: number };
  let browser: Browser;
  const problems: string[] = [];
  const tx = { big: 0, small: 0, badIban: 0 };

  async function withdrawal(overrides: Record<string, unknown>): Promise<number> {
    const body = withdrawalBody(overrides);
    const res = await send(server, firm, { path: "/paymentapi/v1/withdrawals", body });
    expect(res.status).toBe(200);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference as string}`,
    });
    return q.json.data.id as number;
  }

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn" });
    account = await addAccount(server, { bank_name: "Garanti BBVA", iban: "TR320010009999901234567890" });
    firm = await createFirm(server, { name: "Kuzey Oyun A.Ş." });
    await createConsoleOperators(server, ["operator"]);
    const second = await server.admin("POST", "/admin/v1/operators", {
      email: SECOND,
      role: "operator",
      password: "second-password-123",
    });
    expect(second.status).toBe(201);
    const on = await server.admin("PATCH", "/admin/v1/payouts/settings", { payouts: true, actor: "admin:t" });
    expect(on.status).toBe(200);
    expect(on.json.two_person_batch_above).toBe("100000.00");
    tx.big = await withdrawal({
      amount: "60000.00",
      first_name: "Elif",
      last_name: "Şahin",
      iban: VALID_IBAN,
    });
    tx.small = await withdrawal({
      amount: "45000.00",
      first_name: "Can",
      last_name: "Demir",
      iban: VALID_IBAN,
    });
    tx.badIban = await withdrawal({ amount: "500.00", iban: "TR000000000000000000000000" });
    browser = await launchChromium();
  });
  afterAll(async () => {
    // Every request went to the console's own origin, and no page threw.
    expect(problems).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  async function signIn(email: string, password: string, hash = "/payouts"): Promise<Page> {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) problems.push(r.url());
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${server.url}/ops#${hash}`);
    await page.fill("#email", email);
    await page.fill("#password", password);
    await page.click('#login button[type="submit"]');
    await expect.poll(() => page.locator("#login").isVisible(), WAIT).toBe(false);
    return page;
  }
  const text = (page: Page, selector: string) => page.locator(selector).first().textContent();
  const message = (page: Page) => page.locator("#message").textContent();
  const waitingCard = (page: Page, id: number) => page.locator(`#payouts-waiting li[data-tx="${id}"]`);
  const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);
  async function fits(page: Page, ready: string) {
    for (const width of [768, 320]) {
      await page.setViewportSize({ width, height: 900 });
      await expect.poll(() => page.locator(ready).first().isVisible(), WAIT).toBe(true);
      expect(await pageWidth(page), `${width} px`).toBe(width);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  const stageOf = async (batch: number) =>
    (await server.admin("GET", `/admin/v1/payouts/batches/${batch}`)).json.stage as string;

  it("waiting, a batch over the limit, refused to its maker, approved by a second operator, its file downloaded, marked sent", async () => {
    // The operator sees the payouts waiting; the one with an invalid IBAN says why it cannot go.
    const maker = await signIn("operator@ops.example", "operator-password-123", "/deposits");
    await expect.poll(() => maker.locator("#queue").isVisible(), WAIT).toBe(true);
    await maker.click('a.tab[data-tab="payouts"]');
    await expect.poll(() => text(maker, "#payouts h1"), WAIT).toBe("Ödemeler");
    await expect.poll(() => maker.locator("#payouts-waiting li").count(), WAIT).toBe(3);
    expect(await waitingCard(maker, tx.big).textContent()).toContain("60.000,00 TL");
    expect(await waitingCard(maker, tx.big).textContent()).toContain("Elif Şahin");
    expect(await waitingCard(maker, tx.big).locator(".why-not").count()).toBe(0);
    expect(await waitingCard(maker, tx.badIban).locator(".why-not").textContent()).toBe(
      "Partiye konamaz: IBAN geçerli bir TR IBAN'ı değil",
    );
    expect(await axeViolations(maker)).toEqual([]);
    await fits(maker, "#payouts-waiting li");

    // A batch from the paying account (the sandbox account is not offered): over 100.000,00 TL.
    const offered = await maker
      .locator("#mb-account option")
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value).filter(Boolean));
    expect(offered).toEqual([String(account.id)]);
    await maker.selectOption("#mb-account", String(account.id));
    await maker.click("#make-batch-submit");
    await expect
      .poll(() => message(maker), WAIT)
      .toBe("Parti #1 oluşturuldu: 2 ödeme, 105.000,00 TL. İkinci bir operatörün onayını bekliyor.");
    const card = maker.locator('#payout-batches li[data-batch="1"]');
    await expect.poll(() => card.getAttribute("data-stage"), WAIT).toBe("second_approval");
    expect(await card.locator(".b-reason").textContent()).toBe(
      "İkinci onay gerekçesi: partinin toplamı 105.000,00 TL, sınır 100.000,00 TL",
    );
    const approve = card.locator("button.approve-batch");
    expect(await approve.textContent()).toBe("Partiyi onayla: #1, 105.000,00 TL");
    // Batched, the two payouts wait no more; the invalid one still does.
    await expect.poll(() => maker.locator("#payouts-waiting li").count(), WAIT).toBe(1);
    expect(await axeViolations(maker)).toEqual([]);
    await fits(maker, "#payout-batches li");

    // Its maker cannot be its second operator: refused, in Turkish, and nothing moved.
    await approve.click();
    await expect
      .poll(() => message(maker), WAIT)
      .toBe("İkinci onayı partiyi oluşturan dışında bir operatör vermeli.");
    expect(await stageOf(1)).toBe("second_approval");

    // A second operator, in a browser of their own, approves it from its screen.
    const checker = await signIn(SECOND, "second-password-123", "/payouts/1");
    await expect.poll(() => text(checker, "#batch-stage"), WAIT).toBe("İkinci onay bekliyor");
    expect(await checker.locator("#payout-batch li.payout-item").count()).toBe(2);
    expect(await axeViolations(checker)).toEqual([]);
    await checker.click("#payout-batch button.approve-batch");
    await expect.poll(() => text(checker, "#batch-stage"), WAIT).toBe("Bankaya yüklenmeyi bekliyor");
    expect(await message(checker)).toBe("Parti #1 onaylandı: dosyası indirilebilir.");
    expect(await axeViolations(checker)).toEqual([]);
    await fits(checker, "#payout-batch button.mark-sent");

    // The bank file: a download whose bytes name each payout's payment id.
    const items = (await server.admin("GET", "/admin/v1/payouts/batches/1")).json.items as {
      payment_id: string;
    }[];
    expect(items).toHaveLength(2);
    const downloading = checker.waitForEvent("download");
    await checker.click('#payout-batch button.download[data-format="pain.001.001.09"]');
    const download = await downloading;
    expect(download.suggestedFilename()).toBe("PAYINTAKE-B1.pain.001.001.09.xml");
    const path = await download.path();
    const bytes = await readFile(path);
    for (const { payment_id } of items) expect(bytes.toString("utf8")).toContain(payment_id);
    await expect
      .poll(() => message(checker), WAIT)
      .toContain("Parti #1: PAYINTAKE-B1.pain.001.001.09.xml indirildi.");
    // Downloading is not sending.
    expect(await stageOf(1)).toBe("batched");

    // Marking it uploaded asks first; dismissed, nothing is sent.
    const questions: string[] = [];
    checker.once("dialog", (d) => {
      questions.push(d.message());
      void d.dismiss();
    });
    await checker.click("#payout-batch button.mark-sent");
    await expect.poll(() => questions.length, WAIT).toBe(1);
    expect(questions[0]).toContain("indirmek göndermek değildir");
    expect(questions[0]).toContain("Parti #1 (2 ödeme, 105.000,00 TL)");
    expect(await stageOf(1)).toBe("batched");
    checker.once("dialog", (d) => void d.accept());
    await checker.click("#payout-batch button.mark-sent");
    await expect.poll(() => text(checker, "#batch-stage"), WAIT).toBe("Bankaya gönderildi");
    expect(await message(checker)).toBe("Parti #1 bankaya gönderildi olarak işaretlendi.");
    expect(await stageOf(1)).toBe("sent");
    expect(
      await checker.locator("#payout-batch button.mark-sent, #payout-batch button.cancel-batch").count(),
    ).toBe(0);
    expect(await axeViolations(checker)).toEqual([]);
    await fits(checker, "#payout-batch li.payout-item");
    if (SCREENSHOTS)
      await checker.screenshot({ path: join(SCREENSHOTS, "console-payout-batch.png"), fullPage: true });

    // The maker's list, read again, shows it sent; in English too.
    await maker.goto(`${server.url}/ops#/payouts?stage=sent`);
    await maker.reload();
    await expect.poll(() => maker.locator('#payout-batches li[data-batch="1"]').count(), WAIT).toBe(1);
    if (SCREENSHOTS)
      await maker.screenshot({ path: join(SCREENSHOTS, "console-payouts.png"), fullPage: true });
    await maker.click("#lang");
    await expect.poll(() => text(maker, "#payouts h1"), WAIT).toBe("Payouts");
    expect(await text(maker, '#payout-batches li[data-batch="1"] .b-stage')).toBe("Sent to the bank");
    expect(await waitingCard(maker, tx.badIban).locator(".why-not").textContent()).toBe(
      "Cannot be batched: the IBAN is not a valid Turkish IBAN",
    );
    expect(await axeViolations(maker)).toEqual([]);
    await maker.context().close();
    await checker.context().close();
  });
});
