import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { axeViolations } from "../support/axe.js";
import { BROWSER_TEST, launchChromium, SCREENSHOTS } from "../support/browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, paymentCodeOf, pendingDeposit, type TestFirm } from "../support/merchant.js";
import { camtFile } from "../support/statement-files.js";

/**
 * "Hesap hareketleri" in Chromium (issue 34): the bank's lines that wait for a person come first;
 * an operator opens a suggestion, reads its candidates' evidence, approves the right deposit with
 * the bank's (lower) amount; marks an unknown credit not ours with a note; types a line and uploads
 * a statement; the deposit's detail shows the line that settled it, the summary the day's figures
 * and a silent feed; a viewer reads without actions; a 320 px phone scrolls no screen sideways.
 */
/** A sign-in hashes a password, a decision writes and refreshes: more than poll's default second on a busy machine. */
const WAIT = { timeout: 10_000 };

describe.each(STORES)("console: bank statement lines (%s)", BROWSER_TEST, (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let account: { id: number; iban: string };
  let browser: Browser;
  const problems: string[] = [];
  /** The deposits and lines every case below works on (beforeAll). */
  const ids = { a: 0, b: 0, c: 0, cancelled: 0, suggested: 0, unmatched: 0, auto: 0, late: 0 };

  async function typeLine(body: Record<string, unknown>) {
    const res = await server.admin("POST", `/admin/v1/accounts/${account.id}/statement-lines`, {
      booked_at: new Date(server.clock.now()).toISOString(),
      ...body,
    });
    expect(res.status).toBe(200);
    return res.json.results[0] as { id: number; state: string };
  }

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_CALLBACK_POLL_MS: "50" });
    account = await addAccount(server);
    firm = await createFirm(server, { answer_payment_code: true });
    for (const role of ["operator", "viewer"])
      await server.admin("POST", "/admin/v1/operators", {
        email: `${role}@ops.example`,
        role,
        password: `${role}-password-123`,
      });
    // A live feed that never spoke: silent from the start.
    await server.admin("POST", `/admin/v1/accounts/${account.id}/feed-secret`, { silence_minutes: 15 });
    // Two pending deposits of the same amount; the bank shows 290.00 from the first payer.
    ids.a = await pendingDeposit(server, firm, { first_name: "Zeynep", last_name: "Koç", amount: "300.00" });
    ids.b = await pendingDeposit(server, firm, { first_name: "Kerem", last_name: "Aslan", amount: "300.00" });
    ids.c = await pendingDeposit(server, firm, { first_name: "Ali", last_name: "Kaya", amount: "75.00" });
    ids.cancelled = await pendingDeposit(server, firm, { amount: "64.00" });
    await server.admin("POST", `/admin/v1/transactions/${ids.cancelled}/reject`, { actor: "operator:t" });
    const unmatched = await typeLine({ amount: "12.34", sender_name: "BILINMEYEN KISI", description: "x" });
    const suggested = await typeLine({ amount: "290.00", sender_name: "ZEYNEP KOC", description: "havale" });
    const late = await typeLine({
      amount: "64.00",
      description: `odeme ${await paymentCodeOf(server, firm, ids.cancelled)}`,
    });
    // Newest of all, and approved by itself: shown after the open lines even when all are shown.
    const auto = await typeLine({
      amount: "75.00",
      description: `odeme ${await paymentCodeOf(server, firm, ids.c)}`,
    });
    expect([unmatched.state, suggested.state, late.state, auto.state]).toEqual([
      "unmatched",
      "suggested",
      "after_cancellation",
      "approved",
    ]);
    Object.assign(ids, { unmatched: unmatched.id, suggested: suggested.id, late: late.id, auto: auto.id });
    browser = await launchChromium();
  });
  afterAll(async () => {
    // Every request went to the console's own origin, and no page threw.
    expect(problems).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  async function signIn(role: string, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const page = await (await browser.newContext({ viewport })).newPage();
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) problems.push(r.url());
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(`${server.url}/ops`);
    await page.fill("#email", `${role}@ops.example`);
    await page.fill("#password", `${role}-password-123`);
    await page.click('#login button[type="submit"]');
    await expect.poll(() => page.locator("#queue").isVisible(), WAIT).toBe(true);
    await page.click('a.tab[data-tab="statement-lines"]');
    await expect
      .poll(() => page.locator("#statement-lines h1").textContent(), WAIT)
      .toBe("Hesap hareketleri");
    return page;
  }
  const lineIds = (page: Page) =>
    page.locator("#lines li").evaluateAll((lis) => lis.map((li) => Number(li.getAttribute("data-id"))));
  const candidate = (page: Page, tx: number) => page.locator(`#candidates li[data-tx="${tx}"]`);
  const message = (page: Page) => page.locator("#message").textContent();
  const tx = async (id: number) => (await server.admin("GET", `/admin/v1/transactions/${id}`)).json;
  const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

  it("a viewer sees the open lines and a suggestion's candidates, without any action", async () => {
    const page = await signIn("viewer");
    await expect.poll(() => lineIds(page), WAIT).toEqual([ids.late, ids.suggested, ids.unmatched]);
    await page.click(`#lines li[data-id="${ids.suggested}"] a`);
    await expect.poll(() => candidate(page, ids.a).isVisible(), WAIT).toBe(true);
    // Each candidate says what stopped it (issue 49): here the bank's 290.00 against 300.00 asked.
    expect(await candidate(page, ids.a).locator('[data-stop="amount_differs"]').textContent()).toBe(
      "tutar istenen tutar değil: kanıt sayılmaz",
    );
    expect(await candidate(page, ids.a).locator(".stopped").textContent()).toMatch(/^Onaylanmama nedeni: /);
    expect(await page.locator("#line-detail button, #type-line, #upload-statement").count()).toBe(0);
    expect(await page.locator("#approve-by-id").count()).toBe(0);
    await page.context().close();
  });

  it("fits a 320 px phone: the list, a line with its candidates and the forms scroll nothing sideways", async () => {
    const page = await signIn("operator", { width: 320, height: 700 });
    await expect.poll(() => lineIds(page), WAIT).toContain(ids.suggested);
    expect(await pageWidth(page)).toBe(320);
    await page.click(`#lines li[data-id="${ids.suggested}"] a`);
    await expect.poll(() => candidate(page, ids.b).isVisible(), WAIT).toBe(true);
    expect(await page.locator("#type-line").isVisible()).toBe(true);
    expect(await pageWidth(page)).toBe(320);
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, "console-statement-lines-phone.png"), fullPage: true });
    await page.click('a.tab[data-tab="summary"]');
    await expect.poll(() => page.locator("#statements-card").isVisible(), WAIT).toBe(true);
    expect(await pageWidth(page)).toBe(320);
    await page.context().close();
  });

  it("an operator approves the right deposit with the bank's lower amount, and marks an unknown credit not ours", async () => {
    const page = await signIn("operator");
    // Open lines first, the newest first among them; the line approved by itself is not among them.
    await expect.poll(() => lineIds(page), WAIT).toEqual([ids.late, ids.suggested, ids.unmatched]);
    const first = page.locator("#lines li").nth(1);
    expect(await first.textContent()).toContain("290,00 TL");
    expect(await first.textContent()).toContain("ZEYNEP KOC");
    expect(await first.textContent()).toContain("öneri var");
    // Every line: the approved one after the three open ones.
    await page.selectOption("#l-state", "all");
    await page.click('#lines-filter button[type="submit"]');
    await expect.poll(() => lineIds(page), WAIT).toEqual([ids.late, ids.suggested, ids.unmatched, ids.auto]);

    // Paid after cancellation: said so, and nothing approves it.
    await page.click(`#lines li[data-id="${ids.late}"] a`);
    await expect
      .poll(() => page.locator("#ld-after-cancellation").textContent(), WAIT)
      .toBe("İptalden sonra ödendi: iade edin ya da üye işyerine sorun.");
    expect(await page.locator("button.approve-line, #approve-by-id").count()).toBe(0);
    expect(await page.locator("#not-ours").isVisible()).toBe(true);

    // From the keyboard: j moves to the next line, Enter opens it.
    await page.locator(`#lines li[data-id="${ids.late}"] a`).focus();
    await page.keyboard.press("j");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.locator("#ld-title").textContent(), WAIT)
      .toBe(`#${ids.suggested} · 290,00 TL · öneri var`);
    await expect.poll(() => candidate(page, ids.b).isVisible(), WAIT).toBe(true);
    const order = await page
      .locator("#candidates li")
      .evaluateAll((lis) => lis.map((li) => Number(li.getAttribute("data-tx"))));
    expect(order).toEqual([ids.a, ids.b]);
    expect(await candidate(page, ids.a).locator(".evidence").textContent()).toMatch(
      /eksik ödenmiş · isim tam/,
    );
    expect(await candidate(page, ids.b).locator(".evidence").textContent()).toMatch(
      /eksik ödenmiş · isim uymuyor/,
    );
    const note = "Bankadaki tutar 290,00 TL, istenen 300,00 TL: 290,00 TL ile onaylanır.";
    expect(await candidate(page, ids.a).locator(".amount-note").textContent()).toBe(note);
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, "console-statement-lines.png"), fullPage: true });
    expect(await candidate(page, ids.a).locator("button.approve-line").textContent()).toBe(
      "Onayla: 290,00 TL",
    );
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.accept();
    });
    await candidate(page, ids.a).locator("button.approve-line").click();
    await expect
      .poll(() => message(page), WAIT)
      .toBe(`#${ids.suggested}: #${ids.a} yatırımı 290,00 TL ile onaylandı.`);
    expect(asked).toContain(note);
    expect(await tx(ids.a)).toMatchObject({
      status: "approved",
      amount: "290.00",
      original_amount: "300.00",
      decided_by: "operator:operator@ops.example",
    });
    expect((await tx(ids.b)).status).toBe("pending");
    await expect.poll(() => page.locator("#ld-title").textContent(), WAIT).toContain("yatırımı onayladı");
    expect(await page.locator("button.approve-line").count()).toBe(0);

    // An unknown credit: no candidates; not ours, with a note typed and Enter.
    await page.click(`#lines li[data-id="${ids.unmatched}"] a`);
    await expect.poll(() => page.locator("#no-candidates").isVisible(), WAIT).toBe(true);
    await page.click("#not-ours");
    // The note field takes the keys as soon as it is there: no click into it first.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id), WAIT).toBe("not-ours-note");
    await page.keyboard.type("tanımıyoruz, iade");
    await page.keyboard.press("Enter");
    await expect
      .poll(() => message(page), WAIT)
      .toBe(`#${ids.unmatched}: bizim değil olarak işaretlendi (iade edilecek).`);
    expect((await server.admin("GET", `/admin/v1/statement-lines/${ids.unmatched}`)).json.state).toBe(
      "not_ours",
    );
    const audit = await server.admin("GET", "/admin/v1/audit?action=statement_line.not_ours");
    expect(audit.json[0]).toMatchObject({
      entity_id: String(ids.unmatched),
      after: { note: "tanımıyoruz, iade" },
    });
    await expect
      .poll(() => page.locator(`#lines li[data-id="${ids.unmatched}"] .l-state`).textContent(), WAIT)
      .toBe("bizim değil (iade edilecek)");

    // The deposit's detail names the line that settled it.
    await page.goto(`${server.url}/ops#/transactions/${ids.a}`);
    const settling = page.locator('#d-fields [data-field="statement_line"] dd');
    await expect.poll(() => settling.textContent(), WAIT).toContain(`#${ids.suggested} · 290,00 TL`);
    expect(await settling.textContent()).toContain("ZEYNEP KOC · havale · elle girildi");
    await page.context().close();
  });

  it("an operator records the bank's debit that sent a not-ours credit back: chosen from those offered, each end names the other", async () => {
    const credit = await typeLine({
      amount: "45.67",
      sender_name: "YANLIS GONDEREN",
      sender_iban: "TR330006100519786457841326",
      description: "havale",
    });
    const markNotOurs = async (id: number) =>
      expect((await server.admin("POST", `/admin/v1/statement-lines/${id}/not-ours`, {})).status).toBe(200);
    await markNotOurs(credit.id);
    // Newer, of the same amount, from someone else: offered after the one the debit went back to.
    const stranger = await typeLine({
      amount: "45.67",
      sender_name: "BASKA BIRI",
      sender_iban: "TR320010009999901234567890",
      description: "havale",
    });
    await markNotOurs(stranger.id);
    const debit = await typeLine({
      amount: "45.67",
      direction: "debit",
      sender_iban: "TR33 0006 1005 1978 6457 8413 26",
      description: "IADE",
    });
    const page = await signIn("operator");
    await page.goto(`${server.url}/ops#/statement-lines/${debit.id}`);
    const offered = page.locator(`#refund-candidates li[data-line="${credit.id}"]`);
    await expect.poll(() => offered.isVisible(), WAIT).toBe(true);
    const order = await page
      .locator("#refund-candidates li")
      .evaluateAll((lis) => lis.map((li) => Number(li.getAttribute("data-line"))));
    expect(order).toEqual([credit.id, stranger.id]);
    expect(await offered.textContent()).toContain("gönderenin IBAN'ına");
    expect(await axeViolations(page)).toEqual([]);
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.accept();
    });
    await offered.locator("button.refund-this").click();
    await expect
      .poll(() => message(page), WAIT)
      .toBe(`#${debit.id}: #${credit.id} alacağının iadesi olarak kaydedildi.`);
    expect(asked).toBe(
      `#${debit.id} borcu, #${credit.id} alacağının iadesi olarak kaydedilsin mi? (45,67 TL)`,
    );
    await expect
      .poll(() => page.locator("#ld-refund").textContent(), WAIT)
      .toBe(`İadesi olduğu alacak: #${credit.id}`);
    expect(await page.locator("#refund-offer").count()).toBe(0);
    expect((await server.admin("GET", `/admin/v1/statement-lines/${debit.id}`)).json.refund_of).toBe(
      credit.id,
    );
    await page.click(`#ld-refund a`);
    await expect
      .poll(() => page.locator("#ld-refund").textContent(), WAIT)
      .toBe(`İade eden borç: #${debit.id}`);
    await page.context().close();
  });

  it("an operator types a line from the bank's screen and uploads a statement; the summary shows the day and the silent feed", async () => {
    const page = await signIn("operator");
    await page.selectOption("#tl-account", String(account.id));
    await page.fill("#tl-amount", "45,50");
    await page.fill("#tl-sender", "FORM GONDEREN");
    await page.fill("#tl-ref", `REF-${ids.b}`);
    await page.click('#type-line button[type="submit"]');
    const result = () => page.locator("#typed-result").textContent();
    await expect.poll(result, WAIT).toMatch(/^#(\d+): Satır kaydedildi: eşleşmedi\.$/);
    const typed = Number(/^#(\d+)/.exec((await result()) ?? "")?.[1]);
    await expect
      .poll(() => page.locator("#ld-title").textContent(), WAIT)
      .toBe(`#${typed} · 45,50 TL · eşleşmedi`);
    // A day without a time is shown as the day alone.
    const booked = await page.locator(`#lines li[data-id="${typed}"] .l-booked`).textContent();
    expect(booked).toMatch(/^\d{2}\.\d{2}\.\d{4}$/);

    const file = camtFile({
      iban: account.iban,
      entries: [
        {
          amount: "33.00",
          name: "DOSYA GONDEREN",
          description: "yok",
          ref: `F-${ids.b}`,
          at: server.clock.now(),
        },
      ],
      closingOff: 100,
    });
    await page.selectOption("#us-account", String(account.id));
    await page.setInputFiles("#us-file", { name: "ekstre.xml", mimeType: "", buffer: Buffer.from(file) });
    await page.click('#upload-statement button[type="submit"]');
    await expect
      .poll(() => page.locator("#upload-result p").textContent(), WAIT)
      .toContain("1 satır okundu: 1 yeni gelen ödeme");
    expect(await page.locator("#upload-doubts li").count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator("#feeds li.open").textContent(), WAIT).toContain("SESSİZ");

    await page.click('a.tab[data-tab="summary"]');
    const card = page.locator("#statements-card");
    await expect.poll(() => card.textContent(), WAIT).toContain("Hesap hareketleri");
    // The figures as the console's own API gives them (the admin API has no dashboard).
    const figures = await page.evaluate(
      async () => (await (await fetch("/ops/api/dashboard")).json()).statements,
    );
    expect(figures.unmatched_credits).toBeGreaterThanOrEqual(2);
    expect(await card.textContent()).toContain(`%${Math.round(figures.approved_automatically_share * 100)}`);
    expect(await page.locator("#unmatched-money").textContent()).toContain(`${figures.unmatched_credits} · `);
    expect(await page.locator("#silent-feeds").textContent()).toBe(`Sessiz canlı akış: hesap #${account.id}`);
    await page.context().close();
  });
});
