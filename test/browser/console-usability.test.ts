import { join } from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import { BROWSER_TEST, launchChromium, SCREENSHOTS } from "../support/browser.js";
import { type ConsoleRole, createConsoleOperators, signInConsole } from "../support/console-browser.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  pendingDeposit,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

/** The console read and worked on a tablet, by a screen reader and by keyboard (issue 35). */

describe("console usability in Chromium", BROWSER_TEST, () => {
  let server: TestServer;
  let firm: TestFirm;
  let browser: Browser;
  const thirdParty: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", { LOG_LEVEL: "warn" });
    await addAccount(server);
    firm = await createFirm(server);
    await createConsoleOperators(server);
    browser = await launchChromium();
  });
  afterAll(async () => {
    expect(thirdParty).toEqual([]);
    await browser?.close();
    await server?.close();
  });

  const signIn = (role: ConsoleRole, viewport = { width: 1280, height: 800 }) =>
    signInConsole(browser, server, role, { viewport, strays: thirdParty });
  const row = (page: Page, id: number) => page.locator(`#rows tr[data-id="${id}"]`);
  const tab = (page: Page, name: string) => page.click(`a.tab[data-tab="${name}"]`);
  async function withdrawal(overrides: Record<string, unknown> = {}): Promise<number> {
    const body = withdrawalBody(overrides);
    const res = await send(server, firm, { path: "/paymentapi/v1/withdrawals", body });
    if (res.status !== 200) throw new Error(`withdrawal answered ${res.status}: ${res.text}`);
    const found = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference as string}`,
    });
    return found.json.data.id as number;
  }
  /**
   * How many lines each of the elements' texts takes: a value broken inside a word (an IBAN's group,
   * a reference, a user id) takes two. Each text node is measured word by word: the words of a
   * name may wrap between them, never inside one.
   */
  const linesPerWord = (loc: Locator) =>
    loc.evaluateAll((els) =>
      els.flatMap((el) => {
        const out: { text: string; lines: number }[] = [];
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode() as Text | null; node; node = walker.nextNode() as Text | null) {
          for (const match of node.data.matchAll(/\S+/g)) {
            const range = document.createRange();
            range.setStart(node, match.index);
            range.setEnd(node, match.index + match[0].length);
            const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
            out.push({ text: match[0], lines: tops.size });
          }
        }
        return out;
      }),
    );
  /** How many lines a whole element's text takes (a grouped IBAN: its groups on one line). */
  const linesOf = (loc: Locator) =>
    loc.evaluateAll((els) =>
      els.map((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
      }),
    );

  it("at 768 px (a tablet) no value breaks inside a word, IBANs are grouped and the buttons keep apart", async () => {
    const d = await pendingDeposit(server, firm, {
      user_id: "user-7f3a9c2e-41b8-4d0e-9a6f-2c5e8b1d7a40",
      reference: "DEP-2026-11-28-REFERENCE-000123456789",
    });
    const w = await withdrawal({
      iban: "TR000006100519786457841326",
      user_id: "user-0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
      reference: "WD-2026-11-28-REFERENCE-000987654321",
    });
    const page = await signIn("operator", { width: 768, height: 1024 });
    await expect.poll(() => row(page, d).isVisible()).toBe(true);
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, "console-tablet-deposits.png"), fullPage: true });
    // The deposit queue's account IBAN in groups of four, as the payouts' and the detail's.
    await expect
      .poll(() => row(page, d).locator(".iban span").allTextContents())
      .toEqual(["TR33", "0006", "1005", "1978", "6457", "8413", "26"]);
    for (const word of await linesPerWord(row(page, d).locator("td .sub, td.amount")))
      expect(word, word.text).toMatchObject({ lines: 1 });
    expect(await linesOf(row(page, d).locator(".iban"))).toEqual([1]);
    await expectApart(row(page, d).locator("button.approve"), row(page, d).locator("button.reject"));

    await tab(page, "withdrawals");
    await expect.poll(() => row(page, w).isVisible()).toBe(true);
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, "console-tablet-withdrawals.png"), fullPage: true });
    for (const word of await linesPerWord(row(page, w).locator("td .sub, td.amount")))
      expect(word, word.text).toMatchObject({ lines: 1 });
    expect(await linesOf(row(page, w).locator(".iban, .bad-iban"))).toEqual([1, 1]);
    await expectApart(row(page, w).locator("button.approve"), row(page, w).locator("button.reject"));
    // Nothing of the row is cut off: the page does not scroll sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
    await page.context().close();
  });

  it("the audit log says in words what happened, with each field by its name and yes or no, in English too", async () => {
    const account = await addAccount(server, { bank_name: "Garanti BBVA" });
    const changed = await server.admin("PATCH", `/admin/v1/accounts/${account.id}`, { active: false });
    expect(changed.status).toBe(200);
    const page = await signIn("admin");
    await page.goto(`${server.url}/ops#/audit?entity_type=account&entity_id=${account.id}`);
    const rows = page.locator("#audit tbody tr");
    await expect.poll(() => rows.count()).toBe(2);
    const switched = page.locator('#audit tbody tr[data-action="account.update"]');
    expect(await switched.locator("td.action").textContent()).toBe("Hesap devre dışı bırakıldı");
    // The stored action stays at hand, for the admin API's filter.
    expect(await switched.locator("td.action").getAttribute("title")).toBe("account.update");
    expect(await switched.locator("td.change").textContent()).toBe("Etkin: evet → hayır");
    expect(await switched.textContent()).toContain(`Hesap #${account.id}`);
    const created = page.locator('#audit tbody tr[data-action="account.create"]');
    expect(await created.locator("td.action").textContent()).toBe("Hesap eklendi");
    const createdText = await created.locator("td.change").textContent();
    expect(createdText).toContain("Banka: Garanti BBVA");
    expect(createdText).toContain("Etkin: evet");
    expect(createdText).not.toMatch(/\b(active|bank_name|true|false)\b/);
    // The filter chooses among the actions by their words.
    await page.selectOption('#audit-form select[name="action"]', { label: "Hesap değiştirildi" });
    await page.click('#audit-form button[type="submit"]');
    await expect.poll(() => page.url()).toContain("action=account.update");
    await expect.poll(() => rows.count()).toBe(1);

    await page.click("#lang");
    await expect.poll(() => switched.locator("td.action").textContent()).toBe("Account deactivated");
    expect(await switched.locator("td.change").textContent()).toBe("Active: yes → no");
    await page.context().close();
  });

  it("the search opens on today's transactions, newest first, says so, and Ara with no filter looks again", async () => {
    const first = await pendingDeposit(server, firm);
    const second = await pendingDeposit(server, firm);
    const page = await signIn("operator");
    await tab(page, "transactions");
    const ids = () =>
      page.locator("#results tr").evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute("data-id"))));
    await expect.poll(() => ids()).toEqual(expect.arrayContaining([first, second]));
    const shown = await ids();
    expect(shown).toEqual([...shown].sort((a, b) => b - a));
    expect(await page.locator("#search-shown").textContent()).toBe(
      "Bugünün işlemleri, en yenisi üstte (en çok 200). Daha eskileri için bir tarih ya da başka bir filtre seçin.",
    );
    // Nothing typed: the same list, asked for again, with what came meanwhile on top.
    const third = await pendingDeposit(server, firm);
    await page.click('#search-form button[type="submit"]');
    await expect.poll(async () => (await ids())[0]).toBe(third);
    // A filter says it is one.
    await page.fill("#s-reference", "NO-SUCH-REFERENCE");
    await page.click('#search-form button[type="submit"]');
    await expect.poll(() => page.locator("#no-results").isVisible()).toBe(true);
    expect(await page.locator("#search-shown").textContent()).toBe(
      "Filtreye uyan işlemler, en yenisi üstte (en çok 200).",
    );
    // A filter that names no key and no dates looks at the last 31 days, and says from which day.
    await page.fill("#s-reference", "");
    await page.fill("#s-name", "Ayşe");
    // The day may turn in Türkiye while the test runs: either day's start is right.
    const sinceAt = (at: number) =>
      new Date(startOfTurkeyDay(at) - 30 * 86_400_000).toLocaleDateString("tr-TR", {
        timeZone: "Europe/Istanbul",
      });
    const said = (since: string) =>
      `Filtreye uyan işlemler, en yenisi üstte (en çok 200). Başlangıç tarihi seçilmediği için ${since} ve sonrası aranır; daha eskisi için başlangıç tarihi seçin.`;
    const before = said(sinceAt(Date.now()));
    await page.click('#search-form button[type="submit"]');
    await expect.poll(() => ids()).toEqual(expect.arrayContaining([first, second, third]));
    await expect
      .poll(() => page.locator("#search-shown").textContent())
      .toMatch(/Başlangıç tarihi seçilmediği/);
    expect([before, said(sinceAt(Date.now()))]).toContain(await page.locator("#search-shown").textContent());
    await page.click("#lang");
    await expect
      .poll(() => page.locator("#search-shown").textContent())
      .toMatch(
        /^Transactions matching the filter, newest first \(at most 200\)\. With no start date chosen, the search covers \d\d\/\d\d\/\d{4} onwards; choose a start date for earlier ones\.$/,
      );
    await page.click("#lang");
    await page.context().close();
  });

  it("a search result's link is named by what it opens; the detail warns of a bad IBAN as the queue does", async () => {
    const id = await withdrawal({ iban: "TR00 not an iban", amount: "1500.00" });
    const page = await signIn("operator");
    await page.goto(`${server.url}/ops#/transactions?id=${id}`);
    const link = page.locator(`#results tr[data-id="${id}"] a`);
    await expect
      .poll(() => link.getAttribute("aria-label"))
      .toBe(`#${id} ayrıntısı — Mehmet Öztürk, 1.500,00 TL`);
    await link.focus();
    await page.keyboard.press("Enter");
    await expect
      .poll(() => page.locator('#d-fields [data-field="iban_valid"] .bad-iban').textContent())
      .toBe("IBAN geçersiz");
    expect(await page.locator("#d-back").textContent()).toBe("← Aramaya dön");
    await page.click("#lang");
    await expect.poll(() => page.locator("#d-back").textContent()).toBe("← Back to the search");
    expect(await page.locator('#d-fields [data-field="iban_valid"] .bad-iban').textContent()).toBe(
      "IBAN invalid",
    );
    await page.click("#d-back");
    await expect
      .poll(() => page.locator(`#results tr[data-id="${id}"] a`).getAttribute("aria-label"))
      .toBe(`#${id} details — Mehmet Öztürk, 1.500,00 TL`);
    await page.click("#lang");
    // A deposit's account: its IBAN grouped in fours, as everywhere else; and the pool's accounts.
    const deposit = await pendingDeposit(server, firm);
    await page.goto(`${server.url}/ops#/transactions/${deposit}`);
    await expect
      .poll(() => page.locator('#d-fields [data-field="account"] .iban.grouped').textContent())
      .toBe("TR330006100519786457841326");
    expect(await page.locator('#d-fields [data-field="account"] .iban.grouped > span').count()).toBe(7);
    await page.goto(`${server.url}/ops#/pool`);
    await expect
      .poll(() => page.locator(".iban.grouped").allTextContents())
      .toContain("TR330006100519786457841326");
    await page.context().close();
  });

  it("each decision button and detail link is named by the row it acts on, its visible words unchanged", async () => {
    const a = await pendingDeposit(server, firm, { amount: "1500.00" });
    const b = await pendingDeposit(server, firm, {
      amount: "75.25",
      first_name: "Mehmet",
      last_name: "Kaya",
    });
    const w = await withdrawal({ amount: "250.50" });
    const page = await signIn("operator");
    await expect.poll(() => row(page, b).isVisible()).toBe(true);
    const named = (name: string) => page.getByRole("button", { name, exact: true });
    await expect.poll(() => named(`Onayla — #${a}, 1.500,00 TL, Ayşe Yılmaz`).count()).toBe(1);
    expect(await named(`Reddet — #${b}, 75,25 TL, Mehmet Kaya`).count()).toBe(1);
    expect(await row(page, a).locator("button.approve").textContent()).toBe("Onayla");
    expect(await row(page, a).locator("button.reject").textContent()).toBe("Reddet");
    // Another amount typed: the name says it, as the button does.
    await row(page, a).locator("input.edit-amount").fill("1.499,50");
    await expect.poll(() => named(`Onayla: 1.499,50 TL — #${a}, 1.500,00 TL, Ayşe Yılmaz`).count()).toBe(1);
    expect(await page.getByRole("link", { name: `İşlem #${a} ayrıntısı`, exact: true }).count()).toBe(1);
    await tab(page, "withdrawals");
    await expect.poll(() => named(`Ödendi — #${w}, 250,50 TL, Mehmet Öztürk`).count()).toBe(1);
    await page.context().close();
  });

  it("after sign-in the focus is on the screen's heading; one focus ring everywhere; the queue's filter says Filtrele", async () => {
    const page = await signIn("operator");
    await expect
      .poll(() =>
        page.evaluate(() => `${document.activeElement?.tagName}: ${document.activeElement?.textContent}`),
      )
      .toBe("H1: Bekleyen yatırımlar");
    expect(await page.locator('#queue-filter button[type="submit"]').textContent()).toBe("Filtrele");
    // The keyboard's ring on a link, a button and a field alike.
    const ring = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((el) => {
          const s = getComputedStyle(el);
          return `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`;
        });
    const rings: string[] = [];
    for (const selector of ["a.tab", "#lang", 'select[name="firm"]']) {
      await page.locator(selector).first().focus();
      await page.keyboard.press("Shift");
      rings.push(await ring(selector));
    }
    expect(rings).toEqual(Array(3).fill("solid 3px rgb(31, 111, 209)"));
    await page.context().close();
  });

  it("a new firm's provider is chosen by name; renewing a secret looks dangerous, not like Düzenle", async () => {
    const provider = (
      await server.admin("POST", "/admin/v1/providers", { name: "Kuzey Ödeme", auto_cancel_minutes: 30 })
    ).json as { id: number };
    const page = await signIn("admin");
    await tab(page, "firms");
    await page.fill('#firm-create input[name="name"]', "Sağlayıcılı Firma");
    await page.selectOption('#firm-create select[name="provider_id"]', {
      label: `Kuzey Ödeme (#${provider.id})`,
    });
    await page.click('#firm-create button[type="submit"]');
    await expect.poll(() => page.locator("#message").textContent()).toMatch(/^#\d+: Kaydedildi/);
    const firms = (await server.admin("GET", "/admin/v1/firms")).json as {
      name: string;
      provider_id: number | null;
    }[];
    expect(firms.find((f) => f.name === "Sağlayıcılı Firma")?.provider_id).toBe(provider.id);
    const style = (selector: string) =>
      page.locator(`#firms tr[data-firm="${firm.id}"] ${selector}`).evaluate((el) => {
        const s = getComputedStyle(el);
        return { color: s.color, border: s.borderTopColor };
      });
    expect(await style("button.rotate")).toEqual({ color: "rgb(179, 38, 30)", border: "rgb(179, 38, 30)" });
    expect((await style("a.button")).color).not.toBe("rgb(179, 38, 30)");
    await page.context().close();
  });

  /** Two buttons side by side or one above the other, with room between their boxes. */
  async function expectApart(a: Locator, b: Locator) {
    const [ra, rb] = [await a.boundingBox(), await b.boundingBox()];
    if (!ra || !rb) throw new Error("button not shown");
    const gapX = Math.max(rb.x - (ra.x + ra.width), ra.x - (rb.x + rb.width));
    const gapY = Math.max(rb.y - (ra.y + ra.height), ra.y - (rb.y + rb.height));
    expect(Math.max(gapX, gapY)).toBeGreaterThanOrEqual(4);
  }
});
