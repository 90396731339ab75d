import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ChannelSimulator, startChannelSimulator } from "../../src/routing/channels/simulator.js";
import { axeViolations } from "../support/axe.js";
import { BROWSER_TEST, launchChromium, SCREENSHOTS } from "../support/browser.js";
import { createConsoleOperators } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, send, type TestFirm, withdrawalBody } from "../support/merchant.js";

/**
 * "Ödemeler" in Chromium (issue 47, point 7), through the real server: an admin turns payouts on;
 * a firm's withdrawals wait, one with an invalid IBAN saying why it cannot go; an operator makes a
 * batch over the two-person limit (default 100.000,00 TL), which then waits for a second operator;
 * its maker's approval is refused in Turkish; a second operator, in a browser of their own,
 * approves it, downloads its bank file (which names each payout's payment id) and, after
 * confirming, marks it uploaded (a dismissed confirmation sends nothing). Then a batch of an
 * account on a payout channel (the simulator plays the partner) is sent to the channel from its
 * button, after a confirmation naming it and its total, with no file offered; the bank returns it
 * after approval, and "Needing attention" says so in words, links its batch, and clears the flag
 * after a confirmation; a bank template an admin added is offered as a file format. axe finds
 * nothing in each state; 768 px and 320 px scroll nothing sideways.
 */
/** A sign-in hashes a password, a move writes and reads again: more than poll's default second on a busy machine. */
const WAIT = { timeout: 10_000 };
const SECOND = "second@ops.example";
const VALID_IBAN = "TR330006100519786457841326";

describe.each(STORES)("console: payouts (%s)", BROWSER_TEST, (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let account: { id: number };
  let browser: Browser;
  let sim: ChannelSimulator | undefined;
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
    // Firms' balances are test/api/payout-ledger.test.ts's: here payouts are not held to them.
    const on = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      payouts: true,
      balance_guard: false,
      actor: "admin:t",
    });
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
    await sim?.close();
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

  it("a batch on a payout channel is sent to the channel; a return after approval needs attention, its flag cleared after checking; an added template is offered", async () => {
    sim = await startChannelSimulator({ payoutBehaviour: { kind: "payout-paid" } });
    const code = `KANAL${kind.slice(0, 2).toUpperCase()}`;
    const channel = await server.admin("POST", "/admin/v1/channels", { code, kind: "http", url: sim.url });
    expect(channel.status).toBe(201);
    const paying = await server.admin("POST", "/admin/v1/accounts", {
      bank_name: "Kanal Bankası",
      holder_name: "Ödeme Hizmetleri A.Ş.",
      iban: "TR330006100519786457841326",
      channel: code,
    });
    expect(paying.status).toBe(201);
    const approves = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      account: paying.json.id,
      channel_final_approves: true,
    });
    expect(approves.status).toBe(200);
    const template = await server.admin("POST", "/admin/v1/payouts/templates?actor=t", {
      code: "ORNEK-BANKA",
      name: "Örnek Banka toplu ödeme",
      headerRow: true,
      separator: ";",
      decimal: ",",
      dateFormat: "DD.MM.YYYY",
      encoding: "utf-8",
      lineEnding: "\r\n",
      columns: [
        { header: "IBAN", field: "payeeIban" },
        { header: "Ad", field: "payeeName" },
        { header: "Tutar", field: "amount" },
        { header: "Açıklama", field: "description" },
      ],
    });
    expect(template.status, JSON.stringify(template.json)).toBe(201);
    const paid = await withdrawal({
      amount: "250.00",
      first_name: "Zeynep",
      last_name: "Kaya",
      iban: VALID_IBAN,
    });

    const op = await signIn("operator@ops.example", "operator-password-123");
    await expect.poll(() => waitingCard(op, paid).count(), WAIT).toBe(1);
    // Choosing the paying account judges each method by its FAST limit.
    await op.selectOption("#mb-account", String(paying.json.id));
    await expect
      .poll(() => text(op, "#waiting-method"), WAIT)
      .toBe("FAST/EFT, seçilen ödeyen hesabın FAST sınırına göre gösteriliyor.");
    await op.click("#make-batch-submit");
    await expect.poll(() => message(op), WAIT).toBe("Parti #2 oluşturuldu: 1 ödeme, 250,00 TL.");
    const card = op.locator('#payout-batches li[data-batch="2"]');
    await expect.poll(() => card.getAttribute("data-stage"), WAIT).toBe("batched");
    // On a channel: sent to it, never a file beside it.
    expect(await card.locator("button.download, button.mark-sent").count()).toBe(0);
    expect(await card.locator(".b-meta").textContent()).toContain(`${code} ödeme kanalıyla`);
    const release = card.locator("button.release-batch");
    expect(await release.textContent()).toBe("Kanala gönder");
    expect(await release.getAttribute("aria-label")).toBe("Kanala gönder — Parti #2, 250,00 TL");
    expect(await axeViolations(op)).toEqual([]);

    const questions: string[] = [];
    op.once("dialog", (d) => {
      questions.push(d.message());
      void d.dismiss();
    });
    await release.click();
    await expect.poll(() => questions.length, WAIT).toBe(1);
    expect(questions[0]).toBe(
      `Parti #2 (1 ödeme, 250,00 TL) ${code} ödeme kanalına gönderilsin mi? Gönderilen ödeme geri alınamaz.`,
    );
    expect(await stageOf(2)).toBe("batched");
    op.once("dialog", (d) => void d.accept());
    await release.click();
    await expect.poll(() => message(op), WAIT).toBe(`Parti #2 ${code} kanalına gönderildi: 1 ödendi.`);
    expect(sim.payouts.size).toBe(1);

    // The payee's bank sends it back after the approval: flagged, shown with its batch.
    const [item] = (await server.admin("GET", "/admin/v1/payouts/batches/2")).json.items;
    const back = await server.admin("POST", `/admin/v1/accounts/${paying.json.id}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      amount: "250.00",
      direction: "credit",
      end_to_end_id: item.payment_id,
      is_return: true,
      return_reason: "AC04",
    });
    expect(back.status, JSON.stringify(back.json)).toBe(200);
    await op.reload();
    const flagged = op.locator(`#payouts-flagged li[data-tx="${paid}"]`);
    await expect.poll(() => flagged.count(), WAIT).toBe(1);
    expect(await flagged.getAttribute("data-flag")).toBe("returned_after_paid");
    expect(await flagged.locator(".a-flag").textContent()).toBe(
      "⚠ onaylandıktan sonra bankadan döndü: üye işyerine ödendi denmişti",
    );
    expect(await flagged.locator("a.batch-link").getAttribute("href")).toBe("#/payouts/2");
    expect(await axeViolations(op)).toEqual([]);
    await fits(op, "#payouts-flagged li");
    op.once("dialog", (d) => void d.accept());
    await flagged.locator("button.clear-flag").click();
    await expect.poll(() => message(op), WAIT).toBe(`İşlem #${paid}: işaret kaldırıldı.`);
    await expect.poll(() => flagged.count(), WAIT).toBe(0);

    // The batch's own screen names its channel; the file batch offers the template an admin added.
    await op.goto(`${server.url}/ops#/payouts/2`);
    await expect.poll(() => text(op, "#batch-stage"), WAIT).toBe("Kapandı");
    expect(await op.locator("#payout-batch dl").textContent()).toContain(code);
    await op.goto(`${server.url}/ops#/payouts/1`);
    const added = op.locator('#payout-batch button.download[data-format="ORNEK-BANKA"]');
    await expect.poll(() => added.count(), WAIT).toBe(1);
    expect(await op.locator("#payout-batch button.download").count()).toBe(6);
    expect(await axeViolations(op)).toEqual([]);
    await op.context().close();
  });
});
