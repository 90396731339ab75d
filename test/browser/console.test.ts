import { join } from "node:path";
import type { Browser, Locator, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import { BROWSER_TEST, launchChromium, SCREENSHOTS } from "../support/browser.js";
import { consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  pendingDeposit,
  send,
  statusOf,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";

/** The operator console in Debian's Chromium: log in, decide deposits, manage, find it in the audit log. */

describe("operator console in Chromium", BROWSER_TEST, () => {
  let server: TestServer;
  let firm: TestFirm;
  let receiver: Receiver;
  let browser: Browser;
  const thirdParty: string[] = [];

  beforeAll(async () => {
    server = await startTestServer(STORES[0] ?? "sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_CALLBACK_POLL_MS: "50",
    });
    await addAccount(server);
    receiver = await startReceiver();
    firm = await createFirm(server, { webhook_url: receiver.url });
    // The firm makes withdrawals with no money in its balance: its operators' approvals by hand are
    // not held to it here (the ledger's guard is test/api/payout-ledger.test.ts's).
    const unguarded = await server.admin("PATCH", "/admin/v1/payouts/settings", {
      firm: firm.id,
      balance_guard: false,
    });
    expect(unguarded.status).toBe(200);
    for (const role of ["admin", "operator", "viewer"]) {
      await server.admin("POST", "/admin/v1/operators", {
        email: `${role}@ops.example`,
        role,
        password: `${role}-password-123`,
      });
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    // Every request any page made went to the console's own origin.
    expect(thirdParty).toEqual([]);
    await browser?.close();
    await receiver?.close();
    await server?.close();
  });

  const deposit = () => pendingDeposit(server, firm);
  const status = (id: number) => statusOf(server, id);
  async function signIn(
    role: string,
    viewport = { width: 1280, height: 800 },
    prepare?: (page: Page) => Promise<unknown>,
  ): Promise<Page> {
    const context = await browser.newContext({ viewport });
    const page = await context.newPage();
    await prepare?.(page);
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) thirdParty.push(r.url());
    });
    page.on("pageerror", (e) => thirdParty.push(`page error: ${e.message}`));
    await page.goto(`${server.url}/ops`);
    await expect.poll(() => page.locator("#login").isVisible()).toBe(true);
    await page.fill("#email", `${role}@ops.example`);
    await page.fill("#password", `${role}-password-123`);
    await page.click('#login button[type="submit"]');
    await expect.poll(() => page.locator("#queue").isVisible()).toBe(true);
    return page;
  }
  const row = (page: Page, id: number) => page.locator(`#rows tr[data-id="${id}"]`);
  const tab = (page: Page, name: string) => page.click(`a.tab[data-tab="${name}"]`);
  /**
   * The session ends for the page at one request: that request is sent to the server without its
   * cookie (the browser would add it back), and the server's own answer, a 401, goes to the page.
   * Clearing the browser's cookies instead would let the page's own refresh (which a queue notice
   * asks for at any moment) be refused first.
   */
  async function endSessionAt(page: Page, method: string, path: string) {
    let ended = false;
    await page.route(
      (url) => url.pathname === path,
      async (route) => {
        const request = route.request();
        if (ended || request.method() !== method) return route.continue();
        ended = true;
        const { cookie: _, ...headers } = await request.allHeaders();
        const body = request.postData();
        const res = await fetch(request.url(), { method, headers, ...(body ? { body } : {}) });
        expect(res.status).toBe(401);
        await route.fulfill({
          status: res.status,
          headers: Object.fromEntries(res.headers),
          body: Buffer.from(await res.arrayBuffer()),
        });
      },
    );
  }

  it("logs in, approves from the queue (the merchant gets the callback), edits an amount, rejects with a note by keyboard", async () => {
    const a = await deposit();
    const b = await deposit();
    const c = await deposit();
    const page = await signIn("operator");
    await expect.poll(() => row(page, a).isVisible()).toBe(true);
    // The firm by its name (transactions carry its id alone).
    const firmName = (await server.admin("GET", "/admin/v1/firms")).json.find(
      (f: { id: number }) => f.id === firm.id,
    ).name as string;
    await expect
      .poll(() =>
        row(page, a)
          .locator("td.firm")
          .evaluate((td) => td.firstChild?.textContent),
      )
      .toBe(firmName);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "console-queue.png"), fullPage: true });

    await row(page, a).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${a}: Onaylandı`);
    await expect.poll(() => row(page, a).count()).toBe(0);
    const got = await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === a));
    expect(JSON.parse(got.body).event).toBe("deposit.approved");

    await row(page, b).locator("input.edit-amount").fill("149,50");
    await expect.poll(() => row(page, b).locator("button.approve").textContent()).toBe("Onayla: 149,50 TL");
    // Another amount than asked for is confirmed first, showing both.
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.accept();
    });
    await row(page, b).locator("button.approve").click();
    await expect.poll(() => asked).toContain(`#${b}: 150,00 TL → 149,50 TL`);
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${b}: Onaylandı`);
    const tx = (await server.admin("GET", `/admin/v1/transactions/${b}`)).json;
    expect(tx).toMatchObject({
      amount: "149.50",
      original_amount: "150.00",
      decided_by: "operator:operator@ops.example",
    });

    // Keyboard: select c with j/k, r opens the note in the row, Enter rejects.
    await page.locator("h1").click();
    for (
      let i = 0;
      i < 30 && (await page.locator("#rows tr.selected").getAttribute("data-id")) !== String(c);
      i++
    ) {
      await page.keyboard.press("j");
    }
    const noteFocused = () =>
      row(page, c)
        .locator("input.note")
        .evaluate((el) => el === document.activeElement);
    // Esc closes the note and gives the keys back to the row (before: to the page's body).
    await page.keyboard.press("r");
    await expect.poll(noteFocused).toBe(true);
    await page.keyboard.press("Escape");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute("data-id")))
      .toBe(String(c));
    await page.keyboard.press("r");
    await expect.poll(noteFocused).toBe(true);
    await page.keyboard.type("no transfer seen");
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${c}: Reddedildi`);
    const rejected = (await server.admin("GET", `/admin/v1/transactions/${c}`)).json;
    expect(rejected).toMatchObject({ status: "rejected", decision_note: "no transfer seen" });
    await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === c));
    await page.context().close();
  });

  it("the withdrawal queue shows each payout's IBAN (grouped, copied plain), the method asked for and a bad or missing IBAN; approving as paid sends its callback", async () => {
    const ids: number[] = [];
    for (const extra of [
      // As merchants send it as often as not: grouped, in lower case.
      { method: "havale", amount: "1250.50", iban: "tr33 0006 1005 1978 6457 8413 26", middle_name: "Gül" },
      { iban: "TR00 not an iban" },
      { iban: "" },
    ]) {
      const body = withdrawalBody(extra);
      expect((await send(server, firm, { path: "/paymentapi/v1/withdrawals", body })).status).toBe(200);
      const q = await send(server, firm, {
        path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
      });
      ids.push(q.json.data.id);
    }
    const [good = 0, bad = 0, none = 0] = ids;
    const page = await signIn("operator", { width: 1366, height: 768 });
    await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
    await tab(page, "withdrawals");
    await expect.poll(() => row(page, good).isVisible()).toBe(true);
    // The person is paid, not paying: the column and the filter say so.
    expect(await page.locator("table.queue th").nth(3).textContent()).toBe("Alıcı");
    expect(await page.locator('#queue-filter label:has(input[name="name"]) > span').textContent()).toBe(
      "Alıcı",
    );
    // Grouped in fours for reading, upper case; the groups are spaced by the stylesheet, so the
    // text (selected by hand and copied) is still the 26 characters a bank's field takes.
    const iban = row(page, good).locator(".iban");
    await expect
      .poll(() => iban.locator("span").allTextContents())
      .toEqual(["TR33", "0006", "1005", "1978", "6457", "8413", "26"]);
    await expect
      // biome-ignore lint/performance/useDomNodeTextContent: the text as laid out, line break and all, is what the operator reads
      .poll(() => row(page, good).locator("td[data-label=IBAN]").innerText())
      .toBe("TR330006100519786457841326\nHAVALE");
    const selected = await iban.evaluate((el) => {
      const range = document.createRange();
      range.selectNodeContents(el);
      const s = getSelection();
      s?.removeAllRanges();
      s?.addRange(range);
      return s?.toString();
    });
    expect(selected).toBe("TR330006100519786457841326");
    // Yet shown apart: a gap between one group and the next.
    const gap = await iban.evaluate((el) => {
      const [first, second] = [...el.querySelectorAll("span")];
      return (second?.getBoundingClientRect().left ?? 0) - (first?.getBoundingClientRect().right ?? 0);
    });
    expect(gap).toBeGreaterThan(2);
    // Each copy button puts what a bank's transfer form takes on the clipboard.
    // (The first marks the payout as being paid by this operator first: below.)
    // The notice says what was copied, as the keys' copies do (and a screen reader hears it).
    const copied = async (label: string, expected: string, notice: string) => {
      await page.evaluate(() => navigator.clipboard.writeText(""));
      await row(page, good).locator(`button.copy[aria-label^="${label} — #"]`).click();
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(expected);
      await expect.poll(() => page.locator("#message").textContent()).toBe(`#${good}: ${notice}`);
    };
    await copied(
      "IBAN'ı kopyala",
      "TR330006100519786457841326",
      "IBAN kopyalandı: TR330006100519786457841326",
    );
    await copied("Alıcı adını kopyala", "Mehmet Gül Öztürk", "Alıcı adı kopyalandı: Mehmet Gül Öztürk");
    await copied("Tutarı kopyala", "1250,50", "Tutar kopyalandı: 1.250,50 TL");
    // Each row's buttons are named with whose value they copy: twenty rows, twenty different names.
    expect(
      await row(page, good).locator(`button.copy[aria-label^="IBAN'ı kopyala"]`).getAttribute("aria-label"),
    ).toBe(`IBAN'ı kopyala — #${good}, Mehmet Gül Öztürk`);
    await expect
      .poll(() => row(page, good).locator('button.copy[aria-label^="Tutarı kopyala — #"]').textContent())
      .toBe("✓");
    await expect.poll(() => row(page, bad).locator(".method").textContent()).toBe("FAST");
    await expect.poll(() => row(page, bad).locator(".bad-iban").textContent()).toBe("IBAN geçersiz");
    // What is no IBAN at all is shown (and copied) as it came, not grouped into something else.
    expect(await row(page, bad).locator(".iban").textContent()).toBe("TR00 not an iban");
    expect(await row(page, bad).locator(".iban span").count()).toBe(0);
    // None sent: said so, not "invalid" beside an empty cell.
    await expect.poll(() => row(page, none).locator(".bad-iban").textContent()).toBe("IBAN yok");
    expect(await row(page, none).locator(".iban").count()).toBe(0);
    // In the warning's colour, not the grey of the other detail lines (`td .sub` outranked it).
    const colours = await row(page, bad).evaluate((tr) => ({
      warning: getComputedStyle(tr.querySelector(".bad-iban") as Element).color,
      detail: getComputedStyle(tr.querySelector(".method") as Element).color,
      bad: getComputedStyle(document.body).getPropertyValue("--bad").trim(),
    }));
    expect(colours.warning).not.toBe(colours.detail);
    expect(colours.bad).not.toBe("");
    // The queue's ages are in the console's language: "sn", not "s".
    expect(await row(page, bad).locator("td.age").textContent()).toMatch(/^\d+ (sn|dk)$/);
    await expect(row(page, good).locator(".bad-iban").count()).resolves.toBe(0);
    // A payout is approved once its money has left: the button and the keys' line say so, and the
    // line does not offer an amount field that a withdrawal's row has not got.
    expect(await row(page, good).locator("button.approve").textContent()).toBe("Ödendi");
    expect(await page.locator(".help.keys").textContent()).toContain(
      "a ödendi olarak onayla (parayı gönderdikten sonra)",
    );
    expect(await page.locator(".help.keys").textContent()).not.toContain("tutarı yazıp");

    // From the keyboard: the selected row's IBAN (i), payee (n) and amount (t, tutar), named in the notice.
    await row(page, good).locator("td.age").click();
    const byKey = async (key: string) => {
      await page.evaluate(() => navigator.clipboard.writeText(""));
      // Playwright's keyboard has no İ (a Turkish layout's key): that one is sent as the event.
      if (key === "İ")
        await page.evaluate(
          (k) => document.body.dispatchEvent(new KeyboardEvent("keydown", { key: k, bubbles: true })),
          key,
        );
      else await page.keyboard.press(key);
      await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).not.toBe("");
      return [
        await page.evaluate(() => navigator.clipboard.readText()),
        await page.locator("#message").textContent(),
      ];
    };
    expect(await byKey("i")).toEqual([
      "TR330006100519786457841326",
      `#${good}: IBAN kopyalandı: TR330006100519786457841326`,
    ]);
    expect(await byKey("n")).toEqual([
      "Mehmet Gül Öztürk",
      `#${good}: Alıcı adı kopyalandı: Mehmet Gül Öztürk`,
    ]);
    expect(await byKey("t")).toEqual(["1250,50", `#${good}: Tutar kopyalandı: 1.250,50 TL`]);
    // Caps Lock on a Turkish keyboard: its capital of i is İ (whose lower case is two characters).
    expect(await byKey("İ")).toEqual([
      "TR330006100519786457841326",
      `#${good}: IBAN kopyalandı: TR330006100519786457841326`,
    ]);
    await row(page, none).locator("td.age").click();
    await page.keyboard.press("i");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${none}: IBAN yok`);

    await row(page, good).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${good}: Onaylandı`);
    const got = await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === good));
    expect(JSON.parse(got.body)).toMatchObject({ event: "withdrawal.approved", method: "havale" });

    // The detail shows and copies the same, and confirms a payout against what was sent.
    const dialogs: string[] = [];
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(`${server.url}/ops#/transactions/${bad}`);
    await expect.poll(() => page.locator("#d-decide").isVisible()).toBe(true);
    expect(await page.locator('#d-fields [data-field="payer"] dt').textContent()).toBe("Alıcı");
    expect(await page.locator("#d-decide button.approve").textContent()).toBe("Ödendi");
    await page.click("#d-decide button.approve");
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toBe(
      `#${bad}: 250,50 TL → Mehmet Öztürk · TR00 not an iban\nBu tutarı bu alıcıya gönderdiyseniz onaylayın: firmaya ödendi bildirilir ve bu geri alınamaz.\nBu çekimin IBAN'ı geçersiz. Yine de onaylansın mı?`,
    );
    await page.click("#d-decide button.reject");
    await expect.poll(() => dialogs.length).toBe(2);
    expect(dialogs[1]).toContain("para gönderildiyse reddetmeyin");
    expect(await status(bad)).toBe("pending");
    await page.goto(`${server.url}/ops#/transactions/${good}`);
    await expect.poll(() => page.locator('#d-fields [data-field="iban"] .iban span').count()).toBe(7);
    await page.locator('#d-fields [data-field="iban"] button.copy').click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe("TR330006100519786457841326");

    // A past payout is found by its IBAN as the console shows it (grouped), as a withdrawal, approved:
    // the choices are in the console's language (they read `withdrawal`, `approved`).
    await page.goto(`${server.url}/ops#/transactions`);
    const typeSelect = page.locator('#search-form select[name="type"]');
    await expect
      .poll(() => typeSelect.locator("option").allTextContents())
      .toEqual(["Tümü", "Yatırım", "Çekim"]);
    expect(await page.locator("#s-status option").allTextContents()).toEqual([
      "Tümü",
      "Bekliyor",
      "Onaylandı",
      "Reddedildi",
    ]);
    await page.fill("#s-iban", "TR33 0006 1005 1978 6457 8413 26");
    await typeSelect.selectOption({ label: "Çekim" });
    await page.selectOption("#s-status", { label: "Onaylandı" });
    await page.click('#search-form button[type="submit"]');
    await expect.poll(() => page.locator(`#results tr[data-id="${good}"]`).isVisible()).toBe(true);
    await page.context().close();
  });

  it("a payout being paid by one operator is marked on a colleague's screen, who cannot copy it to pay it again", async () => {
    const body = withdrawalBody({ amount: "3000.00" });
    expect((await send(server, firm, { path: "/paymentapi/v1/withdrawals", body })).status).toBe(200);
    const id = (
      await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` })
    ).json.data.id as number;
    const ayse = await signIn("operator", { width: 1366, height: 768 });
    const mehmet = await signIn("admin", { width: 1920, height: 1080 });
    for (const page of [ayse, mehmet]) {
      await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url });
      await tab(page, "withdrawals");
      await expect.poll(() => row(page, id).isVisible()).toBe(true);
    }
    // The first copy of its IBAN marks it as being paid by this operator.
    await row(ayse, id).locator(`button.copy[aria-label^="IBAN'ı kopyala — #"]`).click();
    await expect
      .poll(() => ayse.evaluate(() => navigator.clipboard.readText()))
      .toBe("TR330006100519786457841326");
    await expect.poll(() => row(ayse, id).locator(".paying").textContent()).toMatch(/^Ödeme sizde · \d+ sn/);
    // The colleague's screen shows it at once (the live queue), marked.
    await expect
      .poll(() => row(mehmet, id).locator(".paying").textContent())
      .toMatch(/^operator@ops\.example ödüyor · \d+ sn/);
    expect(await row(mehmet, id).getAttribute("class")).toContain("paying-other");
    // In yellow on a desk's screen and on a phone's card alike (the card's white outranked it).
    const background = () => row(mehmet, id).evaluate((tr) => getComputedStyle(tr).backgroundColor);
    expect(await background()).toBe("rgb(255, 244, 214)");
    await mehmet.setViewportSize({ width: 360, height: 740 });
    expect(await background()).toBe("rgb(255, 244, 214)");
    // Its copy and Bırak buttons big enough for a finger there.
    for (const button of ["button.copy", "button.release-paying"]) {
      const box = await row(mehmet, id).locator(button).first().boundingBox();
      expect(Math.min(box?.width ?? 0, box?.height ?? 0)).toBeGreaterThanOrEqual(32);
    }
    await mehmet.setViewportSize({ width: 1920, height: 1080 });
    // Copying it there (by key or button) copies nothing and says who pays it.
    await mehmet.evaluate(() => navigator.clipboard.writeText("nothing"));
    await row(mehmet, id).locator("td.age").click();
    await mehmet.keyboard.press("i");
    await expect
      .poll(() => mehmet.locator("#message").textContent())
      .toMatch(
        new RegExp(
          `^#${id}: operator@ops\\.example bu çekimi ödüyor \\(\\d+ sn\\): aynı parayı ikinci kez göndermeyin\\.$`,
        ),
      );
    await row(mehmet, id).locator('button.copy[aria-label^="Tutarı kopyala — #"]').click();
    expect(await mehmet.evaluate(() => navigator.clipboard.readText())).toBe("nothing");
    // Deciding it there asks first, naming who pays it; dismissed, nothing is sent.
    const asked: string[] = [];
    mehmet.on("dialog", (d) => {
      asked.push(d.message());
      void (d.message().includes("işareti kaldırılsın") ? d.accept() : d.dismiss());
    });
    await row(mehmet, id).locator("button.approve").click();
    await expect.poll(() => asked.length).toBe(1);
    expect(asked[0]).toContain("operator@ops.example bu çekimi ödüyor");
    expect(asked[0]).toContain("Yine de karar verilsin mi?");
    expect(await status(id)).toBe("pending");
    // The holder gone home: "Bırak" takes the mark off after asking, and the colleague may pay it.
    await row(mehmet, id).locator("button.release-paying").click();
    await expect.poll(() => row(mehmet, id).locator(".paying").count()).toBe(0);
    await row(mehmet, id).locator('button.copy[aria-label^="Tutarı kopyala — #"]').click();
    await expect.poll(() => mehmet.evaluate(() => navigator.clipboard.readText())).toBe("3000,00");
    await expect.poll(() => row(mehmet, id).locator(".paying").textContent()).toMatch(/^Ödeme sizde/);
    await expect
      .poll(() => row(ayse, id).locator(".paying").textContent())
      .toMatch(/^admin@ops\.example ödüyor/);
    // The detail names who is paying it, and deciding it from there asks first, as the queue does.
    await ayse.goto(`${server.url}/ops#/transactions/${id}`);
    await expect
      .poll(() => ayse.locator('[data-field="paying_by"] dd').textContent())
      .toMatch(/^admin@ops\.example · \d+ sn/);
    const askedInDetail: string[] = [];
    ayse.on("dialog", (d) => {
      askedInDetail.push(d.message());
      void d.dismiss();
    });
    await ayse.click("#d-decide button.reject");
    await expect.poll(() => askedInDetail.length).toBe(1);
    expect(askedInDetail[0]).toMatch(/^#\d+: admin@ops\.example bu çekimi ödüyor/);
    expect(askedInDetail[0]).toContain("Yine de karar verilsin mi?");
    expect(await status(id)).toBe("pending");
    // The transaction's history says who marked it and who took the mark off.
    await mehmet.goto(`${server.url}/ops#/transactions/${id}`);
    await expect
      .poll(() => mehmet.locator("#d-history").textContent())
      .toContain("operator:admin@ops.example ödeme işaretini kaldırdı");
    expect(await mehmet.locator("#d-history").textContent()).toContain(
      "operator:operator@ops.example ödüyor olarak işaretledi",
    );
    await ayse.context().close();
    await mehmet.context().close();
  });

  it("the withdrawal queue narrows to one transfer method, alone or with a firm", async () => {
    const own = await createFirm(server, { webhook_url: receiver.url });
    const ids: Record<string, number> = {};
    for (const method of ["fast", "eft", "havale"]) {
      const body = withdrawalBody({ method });
      expect((await send(server, own, { path: "/paymentapi/v1/withdrawals", body })).status).toBe(200);
      const q = await send(server, own, {
        path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
      });
      ids[method] = q.json.data.id;
    }
    const page = await signIn("operator", { width: 1366, height: 768 });
    await tab(page, "withdrawals");
    await expect.poll(() => row(page, ids.eft ?? 0).isVisible()).toBe(true);
    // The deposits' queue has no method to choose.
    const method = page.locator('#queue-filter select[name="method"]');
    expect(await method.locator("option").allTextContents()).toEqual(["Tümü", "FAST", "EFT", "HAVALE"]);
    await page.selectOption('#queue-filter select[name="firm"]', String(own.id));
    await method.selectOption("eft");
    await page.click('#queue-filter button[type="submit"]');
    await expect
      .poll(() => page.locator("#rows tr").evaluateAll((trs) => trs.map((tr) => tr.getAttribute("data-id"))))
      .toEqual([String(ids.eft)]);
    expect(await page.locator("#queue-count").textContent()).toBe("1");
    await page.click("#queue-filter-clear");
    await expect.poll(() => page.locator("#rows tr").count()).toBeGreaterThanOrEqual(3);
    await tab(page, "deposits");
    // The deposits' queue shown (the withdrawals' filter was visible too, until it re-renders).
    await expect
      .poll(() => page.locator('a.tab[data-tab="deposits"]').getAttribute("aria-current"))
      .toBe("page");
    await expect.poll(() => page.locator("#queue-filter").isVisible()).toBe(true);
    await expect.poll(() => page.locator('#queue-filter select[name="method"]').count()).toBe(0);
    await page.context().close();
  });

  it("the keys act only on the row chosen: a held key decides once; a row decided elsewhere leaves nothing selected", async () => {
    const x = await deposit();
    const y = await deposit();
    const z = await deposit();
    const page = await signIn("operator", undefined, (p) => p.clock.install());
    await expect.poll(() => row(page, z).isVisible()).toBe(true);

    // Nothing chosen: `a` decides nothing and says what to do.
    await page.locator("h1").click();
    await page.keyboard.press("a");
    await expect
      .poll(() => page.locator("#message").textContent())
      .toBe("Önce j/k ile ya da tıklayarak bir satır seçin.");

    // Holding `a` down on x: its repeats are ignored (they approved four more deposits before).
    await row(page, x).locator("td").nth(3).click();
    await page.keyboard.down("a");
    for (let i = 0; i < 4; i++) await page.keyboard.down("a");
    await page.keyboard.up("a");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${x}: Onaylandı`);
    // No other decision was sent by the repeats: none reaches the server in a moment more.
    await new Promise((r) => setTimeout(r, 300));
    expect([await status(x), await status(y), await status(z)]).toEqual(["approved", "pending", "pending"]);

    // y chosen, then decided by someone else: after the refresh nothing is selected, and `a` asks
    // for a choice instead of approving the row now on top.
    await row(page, y).locator("td").nth(3).click();
    await server.admin("POST", `/admin/v1/transactions/${y}/reject`, { actor: "operator:elsewhere" });
    await expect
      .poll(() => page.locator("#message").textContent(), { timeout: 8_000 })
      .toContain(`#${y}: başka biri karar verdi`);
    expect(await page.locator("#rows tr.selected").count()).toBe(0);
    await page.locator("h1").click();
    await page.keyboard.press("a");
    expect(await status(z)).toBe("pending");

    // Another amount, declined at the confirmation: nothing is sent.
    await row(page, z).locator("input.edit-amount").fill("12515");
    await expect
      .poll(() => row(page, z).locator("button.approve").textContent())
      .toBe("Onayla: 12.515,00 TL");
    page.once("dialog", (d) => void d.dismiss());
    await row(page, z).locator("button.approve").click();
    // Declined: no decision reaches the server in a moment.
    await new Promise((r) => setTimeout(r, 300));
    expect(await status(z)).toBe("pending");
    // "1.500": 1500 with a thousands dot, or 1,5? Not guessed: no confirmation showing a guess, and
    // the notice says what to type.
    await row(page, z).locator("input.edit-amount").fill("1.500");
    await expect.poll(() => row(page, z).locator("button.approve").textContent()).toBe("Onayla: ?");
    let dialogs = 0;
    page.on("dialog", (d) => {
      dialogs++;
      void d.dismiss();
    });
    await page.clock.runFor(900); // past the moved-row guard, on the page's clock
    await row(page, z).locator("button.approve").click();
    await expect
      .poll(() => page.locator("#message").textContent())
      .toBe(`#${z}: 1.500 TL mi? Öyleyse 1500 ya da 1.500,00 yazın.`);
    expect(dialogs).toBe(0);
    expect(await status(z)).toBe("pending");
    // Typed with "TL" and Turkish grouping: read, and shown grouped.
    await row(page, z).locator("input.edit-amount").fill("1.500,50 TL");
    await expect.poll(() => row(page, z).locator("button.approve").textContent()).toBe("Onayla: 1.500,50 TL");
    // Two thousands dots leave no doubt; a leading "TL" is dropped as the payment page drops it.
    await row(page, z).locator("input.edit-amount").fill("TL 1.500.000");
    await expect
      .poll(() => row(page, z).locator("button.approve").textContent())
      .toBe("Onayla: 1.500.000,00 TL");
    await page.context().close();
  });

  it("a result clicked low in a long list opens its detail on a screen of its own; Back returns to the list as it was (1366 × 768)", async () => {
    for (let i = 0; i < 25; i++) await deposit();
    const page = await signIn("operator", { width: 1366, height: 768 });
    await page.goto(`${server.url}/ops#/transactions?type=deposit`);
    await expect.poll(() => page.locator("#results tr").count()).toBeGreaterThan(20);
    const last = page.locator("#results tr").last();
    await last.scrollIntoViewIfNeeded();
    const id = await last.getAttribute("data-id");
    await last.click();
    await expect.poll(() => page.locator("#d-title").textContent()).toContain(`#${id} ·`);
    // Its own screen: no search form above it, its title at the top and focused.
    expect(await page.locator("#search-form").count()).toBe(0);
    await expect
      .poll(() =>
        page.locator("#detail").evaluate((el) => {
          const top = el.getBoundingClientRect().top;
          return top >= 0 && top < window.innerHeight - 120;
        }),
      )
      .toBe(true);
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe("d-title");
    // The browser's Back: the same search, scrolled where it was, the row it opened focused.
    await page.goBack();
    await expect.poll(() => page.evaluate(() => location.hash)).toBe("#/transactions?type=deposit");
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.closest("tr")?.getAttribute("data-id")))
      .toBe(id);
    expect(await last.evaluate((el) => el.getBoundingClientRect().top < window.innerHeight)).toBe(true);
    expect(await page.locator('#search-form select[name="type"]').inputValue()).toBe("deposit");
    // The detail's own link does the same.
    await last.click();
    await expect.poll(() => page.locator("#d-title").textContent()).toContain(`#${id} ·`);
    await page.click("#d-back");
    await expect.poll(() => page.evaluate(() => location.hash)).toBe("#/transactions?type=deposit");
    await page.context().close();
  });

  it("names the payer with the middle name the merchant sent, as a bank statement line does", async () => {
    const id = await pendingDeposit(server, firm, { middle_name: "Gül" });
    const page = await signIn("operator");
    await expect.poll(() => row(page, id).locator("td.payer").textContent()).toMatch(/^Ayşe Gül Yılmaz/);
    await page.goto(`${server.url}/ops#/transactions/${id}`);
    await expect
      .poll(() => page.locator('#d-fields [data-field="payer"] dd').textContent())
      .toBe("Ayşe Gül Yılmaz");
    await page.context().close();
  });

  it("the amount received is typed and approved without the mouse: Enter approves with it, Esc takes it back", async () => {
    const first = await deposit();
    const second = await deposit();
    const page = await signIn("operator");
    await expect.poll(() => row(page, second).isVisible()).toBe(true);
    // From the row chosen by key, Tab reaches the amount field (after the row's link).
    await page.locator("h1").click();
    await page.keyboard.press("j");
    while ((await page.locator("#rows tr.selected").getAttribute("data-id")) !== String(first))
      await page.keyboard.press("j");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement?.className)).toBe("edit-amount");
    await page.keyboard.type("2.000,00");
    // Esc: the amount typed is taken back, and the keys act on the row again.
    await page.keyboard.press("Escape");
    expect(await row(page, first).locator("input.edit-amount").inputValue()).toBe("");
    // With Caps Lock on (or Shift), the keys are the same keys.
    await page.keyboard.press("J");
    await expect.poll(() => page.locator("#rows tr.selected").getAttribute("data-id")).toBe(String(second));
    await page.keyboard.press("K");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Tab");
    await page.keyboard.type("149,50");
    // Enter approves with it, after the confirmation of the other amount (before: nothing happened).
    let asked = "";
    page.once("dialog", (d) => {
      asked = d.message();
      void d.accept();
    });
    await page.keyboard.press("Enter");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${first}: Onaylandı`);
    expect(asked).toContain(`#${first}: 150,00 TL → 149,50 TL`);
    expect((await server.admin("GET", `/admin/v1/transactions/${first}`)).json.amount).toBe("149.50");
    // The next row is chosen, and Enter held on does not decide it.
    await expect.poll(() => page.locator("#rows tr.selected").getAttribute("data-id")).toBe(String(second));
    await page.keyboard.press("Enter");
    // Not decided: no decision reaches the server in a moment.
    await new Promise((r) => setTimeout(r, 300));
    expect(await status(second)).toBe("pending");
    await server.admin("POST", `/admin/v1/transactions/${second}/reject`, { actor: "operator:ayse" });
    await page.context().close();
  });

  it("a double tap of a approves the chosen row only: the row selected after it waits for a press of its own", async () => {
    const first = await deposit();
    const second = await deposit();
    const page = await signIn("operator", undefined, (p) => p.clock.install());
    await expect.poll(() => row(page, second).isVisible()).toBe(true);
    await row(page, first).locator("td").nth(3).click();
    await page.keyboard.press("a");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${first}: Onaylandı`);
    const next = Number(await page.locator("#rows tr.selected").getAttribute("data-id"));
    expect(next).toBeGreaterThan(0);
    // The second tap, at once: the next row is not decided unseen.
    await page.keyboard.press("a");
    await expect
      .poll(() => page.locator("#message").textContent())
      .toBe(`#${next}: Sıradaki satır az önce seçildi: kontrol edip tuşa yeniden basın.`);
    // Refused: no decision reaches the server in a moment.
    await new Promise((r) => setTimeout(r, 300));
    expect(await status(next)).toBe("pending");
    // A press of its own, once the operator has had a look (past the guard, on the page's clock): decided.
    await page.clock.runFor(700);
    await page.keyboard.press("a");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${next}: Onaylandı`);
    expect(await status(next)).toBe("approved");
    await page.context().close();
  });

  it("a decision made by another operator meanwhile drops out of the queue and cannot be made twice", async () => {
    const id = await deposit();
    // The queue's reads go through the test from the start: once held, they wait until the click
    // is made (the live notice of the other decision would otherwise take the row away first, at
    // the server's pace), and the reads already under way are answered before the other decision.
    let held = false;
    let underWay = 0;
    let release = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const page = await signIn("operator", undefined, (p) =>
      p.route(
        (url) => url.pathname === "/ops/api/queue",
        async (route) => {
          if (held) await released;
          underWay++;
          try {
            await route.fulfill({ response: await route.fetch() });
          } finally {
            underWay--;
          }
        },
      ),
    );
    try {
      await expect.poll(() => row(page, id).isVisible()).toBe(true);
      held = true;
      await expect.poll(() => underWay).toBe(0);
      await server.admin("POST", `/admin/v1/transactions/${id}/reject`, { actor: "operator:elsewhere" });
      // Clicking before the refresh: the server refuses the second decision, and the row goes.
      await row(page, id).locator("button.approve").click();
      await expect
        .poll(() => page.locator("#message").textContent())
        .toBe(`#${id}: bu işleme zaten karar verilmiş (durum: reddedildi).`);
      release();
      await expect.poll(() => row(page, id).count(), { timeout: 8_000 }).toBe(0);
    } finally {
      release();
      await page.context().close();
    }
  });

  it("a session that ends says the last action was not saved only when a change was refused", async () => {
    const id = await deposit();
    const next = await deposit();
    const page = await signIn("operator");
    await row(page, id).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${id}: Onaylandı`);
    // The session ends under a read: the summary's.
    await endSessionAt(page, "GET", "/ops/api/dashboard");
    await tab(page, "summary");
    await expect.poll(() => page.locator("#login-expired").isVisible()).toBe(true);
    // Before: "… Son işleminiz kaydedilmedi." under an approval the server had taken.
    expect(await page.locator("#login-expired").textContent()).toBe(
      "Oturumunuz sona erdi; yeniden giriş yapın.",
    );
    expect(await status(id)).toBe("approved");

    await page.fill("#email", "operator@ops.example");
    await page.fill("#password", "operator-password-123");
    await page.click('#login button[type="submit"]');
    await tab(page, "deposits");
    await expect.poll(() => row(page, next).isVisible()).toBe(true);
    // A decision sent after the session ended is refused: that one is not saved, and it says so.
    await endSessionAt(page, "POST", `/ops/api/transactions/${next}/approve`);
    await row(page, next).locator("button.approve").click();
    await expect.poll(() => page.locator("#login-expired").isVisible()).toBe(true);
    expect(await page.locator("#login-expired").textContent()).toBe(
      "Oturumunuz sona erdi; yeniden giriş yapın. Son işleminiz kaydedilmedi.",
    );
    expect(await status(next)).toBe("pending");
    // Decided, so the queues the later tests show (and photograph) hold what they did before.
    await server.admin("POST", `/admin/v1/transactions/${next}/reject`, { actor: "operator:ayse" });
    await page.context().close();
  });

  it("finds a transaction, shows its history, routing and callback attempts, and sends the callback again", async () => {
    const id = await deposit();
    await server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:ayse" });
    const reference = (await server.admin("GET", `/admin/v1/transactions/${id}`)).json.reference as string;
    await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === id));
    const page = await signIn("operator");
    await tab(page, "transactions");
    // The firm filter offers the firms by name.
    await expect
      .poll(() => page.locator('select[name="firm"] option').allTextContents())
      .toContainEqual(expect.stringMatching(/^Firm .+ \(#\d+\)$/));
    // A reference in the wrong letter case finds nothing, and the answer says why.
    await page.fill("#s-reference", reference.toLowerCase());
    await page.click('#search-form button[type="submit"]');
    await expect
      .poll(() => page.locator("#no-results").textContent())
      .toBe("Sonuç yok. Referans, firmanın gönderdiği gibi aranır: büyük/küçük harf ayrımıyla.");
    await page.fill("#s-reference", reference);
    // The amount as a person types it: read as 150.00.
    await page.fill('#search-form input[name="amount"]', "150,00 TL");
    // The payer as a bank statement writes the name (the deposit's payer is Ayşe Yılmaz).
    await page.fill("#s-name", "AYSE YILMAZ");
    await page.click('#search-form button[type="submit"]');
    await expect.poll(() => page.evaluate(() => location.hash)).toContain("amount=150.00");
    await page.locator(`#results tr[data-id="${id}"]`).click();
    await expect.poll(() => page.locator("#d-title").textContent()).toBe(`#${id} · ${reference} · Onaylandı`);
    // Labels and values in the console's language, money as the queue shows it.
    expect(await page.locator('#d-fields [data-field="amount"]').textContent()).toBe("Tutar150,00 TL");
    expect(await page.locator('#d-fields [data-field="type"]').textContent()).toBe("TürYatırım");
    // The decision in the console's language, amounts in TL (the audit log keeps kuruş).
    const history = await page.locator("#d-history").textContent();
    expect(history).toContain("operator:ayse onayladı");
    expect(history).toContain("Durum: Bekliyor → Onaylandı");
    expect(history).toContain("Tutar: 150,00 TL → 150,00 TL");
    expect(await page.locator("#d-routing").textContent()).toContain("manuel: kabul edildi");
    await expect
      .poll(() => page.locator("#d-callbacks").textContent())
      .toContain("deposit.approved → iletildi");
    // Where a resend goes, before an operator fixes a webhook and expects it to follow.
    expect(await page.locator("#detail p.help").allTextContents()).toContainEqual(
      expect.stringContaining("işlem oluşturulurken belirlenen bildirim adresine gider"),
    );
    expect(await page.locator("#d-callbacks ol.attempts").textContent()).toContain("iletildi · 200");
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "console-detail.png"), fullPage: true });
    const before = receiver.received.filter((r) => JSON.parse(r.body).id === id).length;
    await page.locator("#d-callbacks button.redeliver").click();
    await eventually(async () =>
      receiver.received.filter((r) => JSON.parse(r.body).id === id).length > before ? true : undefined,
    );
    // The view is in the URL: a reload shows the same detail.
    await page.reload();
    await expect.poll(() => page.locator("#d-title").textContent()).toBe(`#${id} · ${reference} · Onaylandı`);
    // Back to the search it came from: its row, and the same filter as CSV.
    await page.click("#d-back");
    await expect
      .poll(() => page.locator(`#results tr[data-id="${id}"] .status`).textContent())
      .toBe("Onaylandı");
    expect(await page.locator("#csv").getAttribute("href")).toBe(
      `/ops/api/transactions.csv?reference=${reference}&amount=150.00&name=AYSE+YILMAZ`,
    );
    const excel = `/ops/api/transactions.csv?reference=${reference}&amount=150.00&name=AYSE+YILMAZ&format=excel`;
    expect(await page.locator("#csv-excel").getAttribute("href")).toBe(excel);
    // What the button downloads with the page's session: the BOM, ';' and the amount as Excel-TR reads it.
    const head = await page.evaluate(async (href) => {
      const bytes = new Uint8Array(await (await fetch(href)).arrayBuffer());
      return { bom: [...bytes.slice(0, 3)], text: new TextDecoder().decode(bytes) };
    }, excel);
    expect(head.bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(head.text).toContain(`;${reference};150,00;`);
    await page.context().close();
  });

  it("an admin sees a national id in full only by asking, and the asking is in the transaction's history", async () => {
    const a = await deposit();
    const page = await signIn("admin");
    await page.goto(`${server.url}/ops#/transactions/${a}`);
    const field = page.locator('#d-fields [data-field="national_id"] dd');
    await expect.poll(() => field.textContent()).toContain("12***01");
    expect(await field.textContent()).not.toContain("12345678901");
    await page.click("#d-reveal-national-id");
    await expect.poll(() => page.locator("#d-national-id-full").textContent()).toContain("12345678901");
    await expect
      .poll(() => page.locator("#d-history").textContent())
      .toContain("operator:admin@ops.example T.C. kimlik numarasının tamamını gördü");
    await page.context().close();
    // An operator has no such button.
    const op = await signIn("operator");
    await op.goto(`${server.url}/ops#/transactions/${a}`);
    await expect
      .poll(() => op.locator('#d-fields [data-field="national_id"] dd').textContent())
      .toContain("12***01");
    expect(await op.locator("#d-reveal-national-id").count()).toBe(0);
    await op.context().close();
  });

  it("decides a pending transaction from its detail, after a confirmation that names it; a viewer cannot", async () => {
    const a = await deposit();
    const b = await deposit();
    const page = await signIn("operator");
    const dialogs: string[] = [];
    let answer = false;
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void (answer ? d.accept() : d.dismiss());
    });
    await page.goto(`${server.url}/ops#/transactions/${a}`);
    await expect.poll(() => page.locator("#d-decide").isVisible()).toBe(true);
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, "console-detail-decide.png"), fullPage: true });
    // Dismissed: nothing sent.
    await page.click("#d-decide button.approve");
    await expect.poll(() => dialogs.length).toBe(1);
    expect(dialogs[0]).toBe(`#${a}: 150,00 TL\nBu işlem onaylansın mı?`);
    expect(await status(a)).toBe("pending");
    // More than asked for is an admin's to approve: said at once, nothing asked or sent.
    await page.fill('#d-decide input[name="amount"]', "1.500,00");
    await page.click("#d-decide button.approve");
    await expect
      .poll(() => page.locator("#message").textContent())
      .toBe(
        `#${a} (150,00 TL): talep edilenden yüksek bir tutarla onay için yönetici gerekir; talep edilen tutar ya da daha azı onaylanabilir`,
      );
    expect(dialogs).toHaveLength(1);
    expect(await status(a)).toBe("pending");
    // Another amount, as received: named in the question, then approved with it.
    answer = true;
    await page.fill('#d-decide input[name="note"]', "dekontta 149,50");
    await page.fill('#d-decide input[name="amount"]', "149,50");
    // The button names the amount, and Enter in the field approves with it, as in the queue.
    expect(await page.locator("#d-decide button.approve").textContent()).toBe("Onayla: 149,50 TL");
    await page.press('#d-decide input[name="amount"]', "Enter");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${a}: Onaylandı`);
    expect(dialogs[1]).toContain(`#${a}: 150,00 TL → 149,50 TL`);
    expect(await status(a)).toBe("approved");
    // The note goes with an approval too.
    await expect
      .poll(() => page.locator('#d-fields [data-field="decision_note"] dd').textContent())
      .toBe("dekontta 149,50");
    await expect.poll(() => page.locator("#d-title").textContent()).toContain("Onaylandı");
    expect(await page.locator("#d-decide").count()).toBe(0);
    // Rejected with a note, opened by its address: its link back shows the search with it decided.
    await page.goto(`${server.url}/ops#/transactions/${b}?id=${b}`);
    await expect.poll(() => page.locator("#d-title").textContent()).toContain("Bekliyor");
    // Nothing decided or sent yet: the sections say so instead of standing empty.
    expect(await page.locator("#detail p.empty").allTextContents()).toEqual(
      expect.arrayContaining(["Henüz karar yok.", "Henüz bildirim yok: bildirim karar verilince gider."]),
    );
    await page.fill('#d-decide input[name="note"]', "dekont yok");
    await page.click("#d-decide button.reject");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${b}: Reddedildi`);
    expect(await status(b)).toBe("rejected");
    await expect
      .poll(() => page.locator('#d-fields [data-field="decision_note"] dd').textContent())
      .toBe("dekont yok");
    await page.click("#d-back");
    await expect.poll(() => page.evaluate(() => location.hash)).toBe(`#/transactions?id=${b}`);
    await expect
      .poll(() => page.locator(`#results tr[data-id="${b}"] .status`).textContent())
      .toBe("Reddedildi");
    await page.context().close();

    const c = await deposit();
    const viewer = await signIn("viewer");
    await viewer.goto(`${server.url}/ops#/transactions/${c}`);
    await expect.poll(() => viewer.locator("#d-title").textContent()).toContain(`#${c} ·`);
    expect(await viewer.locator("#d-decide").count()).toBe(0);
    await viewer.context().close();
  });

  it("a callback the merchant keeps refusing shows as retried, with its next attempt in local time, and on the summary", async () => {
    const refusing = await startReceiver();
    refusing.behave(() => ({ status: 500, body: "down" }));
    try {
      const other = await createFirm(server, { webhook_url: refusing.url });
      const id = await pendingDeposit(server, other);
      await server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:ayse" });
      await refusing.waitFor(1);
      const page = await signIn("operator");
      await page.goto(`${server.url}/ops#/transactions/${id}`);
      await expect
        .poll(() => page.locator("#d-callbacks").textContent(), { timeout: 8_000 })
        .toContain("deposit.approved → bekliyor, 1 × HTTP 500 · sonraki deneme ");
      expect(await page.locator("#d-callbacks").textContent()).not.toMatch(
        /next attempt|pending|T\d{2}:\d{2}:\d{2}\.\d{3}Z/,
      );
      await tab(page, "summary");
      await expect
        .poll(() => page.locator("#cards .card.alert").allTextContents())
        .toContainEqual(expect.stringContaining("Hata alan, yeniden denenen bildirimler"));
      await page.context().close();
    } finally {
      await refusing.close();
    }
  });

  it("the summary shows today's figures, hourly charts and channel health, in English too", async () => {
    // One decided today at least, whatever ran before: the approval rate is a number.
    const decided = await deposit();
    await server.admin("POST", `/admin/v1/transactions/${decided}/approve`, { actor: "operator:ayse" });
    const page = await signIn("viewer");
    await tab(page, "summary");
    // Eight, and the bank statement lines' card (docs/console.md, "Hesap hareketleri").
    await expect.poll(() => page.locator("#cards .card").count()).toBe(9);
    expect(await page.locator("#statements-card .label").first().textContent()).toBe("Hesap hareketleri");
    // Pending now, whatever day it came, with the oldest one's age; a click opens the queue.
    expect(await page.locator("#waiting-deposits .label").textContent()).toBe("Bekleyen yatırımlar");
    expect(await page.locator("#cards").textContent()).toContain("Yatırımlar");
    expect(await page.locator(".hourly svg").count()).toBe(2);
    // The coloured bar has its legend, and the hourly chart is a table for screen readers, in Turkish.
    const legend = page.locator(".card.wide").first().locator(".legend li");
    expect(await legend.allTextContents()).toEqual([
      expect.stringMatching(/^Onaylanan: \d+$/),
      expect.stringMatching(/^Reddedilen: \d+$/),
      expect.stringMatching(/^Bekleyen: \d+$/),
    ]);
    const hourly = page.locator(".card.wide").first().locator(".hourly table");
    expect(await hourly.locator("caption").textContent()).toBe("Yatırımlar, bugün saat saat");
    expect(await hourly.locator("tbody tr").count()).toBe(24);
    expect(await hourly.locator("tbody tr").first().locator("th").textContent()).toBe("00:00–01:00");
    expect(await page.locator(".hourly svg").first().getAttribute("aria-hidden")).toBe("true");
    // A share as each language writes it: "%75" in Turkish (before: "75 %"), "75%" in English.
    expect(await page.locator("#cards").textContent()).toMatch(/Onay oranı: %\d+ ·/);
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, "console-dashboard.png"), fullPage: true });
    await page.click("#lang");
    await expect.poll(() => page.locator("#cards").textContent()).toContain("Deposits");
    expect(await page.locator("#cards").textContent()).toMatch(/Approval rate: \d+% ·/);
    expect(await legend.first().textContent()).toMatch(/^Approved: \d+$/);
    expect(await hourly.locator("caption").textContent()).toBe("Deposits, today hour by hour");
    await expect.poll(() => page.locator("html").getAttribute("lang")).toBe("en");
    await page.click("#lang");
    await page.context().close();
  });

  it("a viewer reads the queue but has no decision buttons; the API refuses anyway", async () => {
    const id = await deposit();
    const page = await signIn("viewer");
    await expect.poll(() => row(page, id).isVisible()).toBe(true);
    expect(await row(page, id).locator("button").count()).toBe(0);
    await page.keyboard.press("a");
    expect(await statusOf(server, id)).toBe("pending");
    const status = await page.evaluate(async (txId) => {
      const res = await fetch(`/ops/api/transactions/${txId}/approve`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      return res.status;
    }, id);
    expect(status).toBe(403);
    await page.context().close();
  });

  it("an admin rotates a firm's secret, deactivates an account, edits a firm, and finds each in the audit log", async () => {
    // An account only deposits of 100.000 TL or more would reach: the other tests' deposits never go to it.
    const limited = await addAccount(server, {
      bank_name: "Garanti BBVA",
      iban: "TR960006200000000006295166",
      min: "100000",
      max: "500000",
      daily_cap: "250000",
    });
    // Every dialog the page opens, with its text; each is answered by the next answer queued (none: a failure).
    const dialogs: string[] = [];
    const answers: boolean[] = [];
    const page = await signIn("admin");
    page.on("dialog", (d) => {
      dialogs.push(d.message());
      void (answers.shift() ? d.accept() : d.dismiss());
    });
    await tab(page, "firms");
    // The firm's labels are Turkish, with the field's name an integrator uses where it matters.
    expect(await page.locator("#firms thead").textContent()).toContain("API anahtarı (api_key)");
    answers.push(true);
    await page.locator(`#firms tr[data-firm="${firm.id}"] button.rotate`).click();
    await expect.poll(() => page.locator("#secret code").textContent()).toMatch(/ · sk_[A-Za-z0-9_-]+$/);
    const secret = (await page.locator("#secret code").textContent())?.split(" · ")[2] ?? "";
    // The new secret signs requests at once; the old one is refused.
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() })).status).toBe(
      401,
    );
    firm.secret = secret;
    expect((await send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody() })).status).toBe(
      200,
    );

    await page.locator(`#firms tr[data-firm="${firm.id}"] a.button`).click();
    // An amount the console cannot read is marked on its field in Turkish, and nothing is sent.
    const max = page.locator('#firm-edit input[name="deposit_max"]');
    await max.fill("7.500");
    await page.click('#firm-edit button[type="submit"]');
    await expect
      .poll(() => max.evaluate((el) => (el as HTMLInputElement).validationMessage))
      .toBe("Sıfırdan büyük, en çok iki ondalıklı bir tutar girin (ör. 1.250,50) ya da boş bırakın.");
    expect(await max.evaluate((el) => el === document.activeElement)).toBe(true);
    expect((await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json.deposit_max).toBe(null);
    await page.fill('#firm-edit input[name="deposit_max"]', "7.500,00");
    await page.click('#firm-edit button[type="submit"]');
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${firm.id}: Kaydedildi`);
    expect((await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json.deposit_max).toBe("7500.00");
    const edit = await page.locator("#firm-edit").textContent();
    for (const label of [
      "Webhook adresi (webhook_url)",
      "Bildirimde ikinci ad (middle_name)",
      "Yatırımlar açık",
    ])
      expect(edit).toContain(label);
    expect(edit).not.toMatch(/Webhook URL|API key|Bildirimde middle_name/);
    // Shown again, the limit is in the form an operator types.
    await tab(page, "firms");
    await expect.poll(() => page.locator("#firm-edit").count()).toBe(0);
    // The list shows each firm's deposit limits too (before: only its edit form did).
    await expect
      .poll(async () =>
        (await page.locator(`#firms tr[data-firm="${firm.id}"] td.limits`).textContent())?.replace(
          /\u00a0/g,
          " ",
        ),
      )
      .toBe("En çok 7.500,00 TL");
    await page.locator(`#firms tr[data-firm="${firm.id}"] a.button`).click();
    await expect.poll(() => max.inputValue()).toBe("7.500,00");

    const firmName = (await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json.name;
    // Closing deposits and switching the firm off are asked first, naming each; dismissed, nothing is sent.
    await page.locator('#firm-edit input[name="deposits"]').uncheck();
    await page.locator('#firm-edit input[name="active"]').uncheck();
    await page.click('#firm-edit button[type="submit"]');
    await expect.poll(() => dialogs.length).toBe(2);
    expect(dialogs[1]).toBe(
      `Firma #${firm.id} (${firmName}):\n` +
        "• Yatırımlar kapanacak: firmanın yeni yatırım talepleri reddedilir.\n" +
        "• Firma devre dışı kalacak: API anahtarıyla gelen bütün istekler reddedilir.\n" +
        "Kaydedilsin mi?",
    );
    let saved = (await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json;
    expect([saved.deposits, saved.active]).toEqual(["open", true]);
    await page.locator('#firm-edit input[name="active"]').check();
    answers.push(true);
    await page.click('#firm-edit button[type="submit"]');
    await expect.poll(() => dialogs.length).toBe(3);
    expect(dialogs[2]).toContain("• Yatırımlar kapanacak");
    expect(dialogs[2]).not.toContain("devre dışı");
    await expect
      .poll(async () => (await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json.deposits)
      .toBe("closed");
    // Opening them again is not asked (the other tests deposit for this firm).
    await page.locator('#firm-edit input[name="deposits"]').check();
    await page.click('#firm-edit button[type="submit"]');
    await expect
      .poll(async () => (await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json.deposits)
      .toBe("open");
    expect(dialogs.length).toBe(3);
    saved = (await server.admin("GET", `/admin/v1/firms/${firm.id}`)).json;
    expect([saved.deposits, saved.active]).toEqual(["open", true]);

    await tab(page, "pool");
    const cap = page.locator('#account-create input[name="daily_cap"]');
    await page.fill('#account-create input[name="bank_name"]', "Bank");
    await page.fill('#account-create input[name="holder_name"]', "Holder");
    await page.fill('#account-create input[name="iban"]', "TR330006100519786457841326");
    await cap.fill("0");
    const accountsBefore = (await server.admin("GET", "/admin/v1/accounts")).json.length;
    await page.click('#account-create button[type="submit"]');
    await expect
      .poll(() => cap.evaluate((el) => (el as HTMLInputElement).validationMessage))
      .toContain("Sıfırdan büyük");
    expect((await server.admin("GET", "/admin/v1/accounts")).json.length).toBe(accountsBefore);
    await cap.fill("");
    // An IBAN with a wrong digit is refused before anything is sent: payers would pay into it.
    const ibanField = page.locator('#account-create input[name="iban"]');
    await ibanField.fill("TR33 0006 1005 1978 6457 8413 27");
    await page.click('#account-create button[type="submit"]');
    await expect
      .poll(() => ibanField.evaluate((el) => (el as HTMLInputElement).validationMessage))
      .toContain("Geçerli bir Türk IBAN'ı girin");
    expect((await server.admin("GET", "/admin/v1/accounts")).json.length).toBe(accountsBefore);
    await ibanField.fill("TR330006100519786457841326");
    // Amounts read as the rest of the console shows them.
    const limitedRow = page.locator(`#accounts tr[data-account="${limited.id}"]`);
    // The space before TL is one that does not break (\u00a0): read as a plain one here.
    const plain = async (cell: Locator) => (await cell.textContent())?.replace(/\u00a0/g, " ");
    await expect.poll(() => plain(limitedRow.locator("td.limits"))).toBe("100.000,00 TL – 500.000,00 TL");
    expect(await plain(limitedRow.locator("td.daily-cap"))).toBe("250.000,00 TL");
    const account = page.locator("#accounts tbody tr:not(.sandbox)").first();
    const accountId = Number(await account.getAttribute("data-account"));
    expect(await account.locator("td.limits").textContent()).toBe("—");
    // Switching an account off is asked first, naming it; dismissed, nothing changes.
    const shown = dialogs.length;
    await account.locator("button.toggle").click();
    await expect.poll(() => dialogs.length).toBe(shown + 1);
    expect(dialogs[shown]).toBe(
      `Hesap #${accountId} (Ziraat Bankası) devre dışı kalsın mı? Yeni yatırımlar bu hesaba yönlendirilmez.`,
    );
    expect(await account.locator("td.state").textContent()).toBe("etkin");
    const accountNow = async () =>
      (await server.admin("GET", "/admin/v1/accounts")).json.find((a: { id: number }) => a.id === accountId);
    expect((await accountNow()).active).toBe(true);
    answers.push(true);
    await account.locator("button.toggle").click();
    await expect.poll(() => account.locator("td.state").textContent()).toBe("devre dışı");
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "console-manage.png"), fullPage: true });

    await tab(page, "audit");
    await expect.poll(() => page.locator("#audit tbody tr").count()).toBeGreaterThan(2);
    const text = await page.locator("#audit").textContent();
    expect(text).toContain("Firmanın gizli anahtarı yenilendi");
    expect(text).toContain("Gizli anahtar: yenilendi");
    expect(text).toContain("En çok yatırım: — → 7.500,00 TL");
    expect(text).toContain("Hesap devre dışı bırakıldı");
    expect(text).not.toContain(secret);
    // Filter to the admin's account changes only.
    await page.selectOption('#audit-form select[name="action"]', "account.update");
    await page.click('#audit-form button[type="submit"]');
    await expect.poll(() => page.locator("#audit tbody tr").count()).toBe(1);
    expect(await page.locator("#audit tbody tr").textContent()).toContain("operator:admin@ops.example");
    expect(await page.locator("#audit tbody tr").textContent()).toContain("Etkin: evet → hayır");
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "console-audit.png"), fullPage: true });

    await tab(page, "pool");
    // Switching it on again is not asked.
    const asked = dialogs.length;
    await account.locator("button.toggle").click();
    await expect.poll(() => account.locator("td.state").textContent()).toBe("etkin");
    expect(dialogs.length).toBe(asked);

    // The edit fields hold the amounts as an operator types them; a changed one is read back as typed.
    await limitedRow.locator("button.link").click();
    const maxField = limitedRow.locator('input[name="max"]');
    expect(await maxField.inputValue()).toBe("500.000,00");
    expect(await limitedRow.locator('input[name="daily_cap"]').inputValue()).toBe("250.000,00");
    await maxField.fill("750.000,00");
    await limitedRow.locator('button[type="submit"]').click();
    await expect.poll(() => plain(limitedRow.locator("td.limits"))).toBe("100.000,00 TL – 750.000,00 TL");
    const after = (await server.admin("GET", "/admin/v1/accounts")).json.find(
      (a: { id: number }) => a.id === limited.id,
    );
    expect([after.min, after.max, after.daily_cap]).toEqual(["100000.00", "750000.00", "250000.00"]);
    expect(answers).toEqual([]);

    await tab(page, "providers");
    await expect
      .poll(() => page.locator('#providers select[name="kind"] option').allTextContents())
      .toEqual(["doğrudan", "platform", "toplayıcı (aggregator)"]);
    await page.context().close();
  });

  it("an admin adds an operator (one-time password shown once) who then signs in", async () => {
    const page = await signIn("admin");
    await tab(page, "operators");
    // Roles read in Turkish; the values sent are the API's.
    const self = page.locator('tr[data-operator="admin@ops.example"] td').nth(1);
    await expect.poll(() => self.textContent()).toBe("yönetici");
    expect(await page.locator('#operators select[name="role"] option').allTextContents()).toEqual([
      "izleyici",
      "operatör",
      "yönetici",
    ]);
    const viewerRow = page.locator('tr[data-operator="viewer@ops.example"]');
    await viewerRow.locator("select").selectOption("operator");
    const question = new Promise<string>((resolve) =>
      page.once("dialog", (d) => {
        resolve(d.message());
        void d.dismiss();
      }),
    );
    await viewerRow.locator("button.save-role").click();
    expect(await question).toBe("viewer@ops.example rolü operatör olarak değiştirilsin mi?");
    await page.fill('#operators input[name="email"]', "new@ops.example");
    await page.selectOption('#operators select[name="role"]', "operator");
    await page.click('#operators form button[type="submit"]');
    await expect.poll(() => page.locator("#secret code").textContent()).toMatch(/^new@ops\.example · /);
    const password = (await page.locator("#secret code").textContent())?.split(" · ")[1] ?? "";
    await page.context().close();
    const context = await browser.newContext();
    const other = await context.newPage();
    await other.goto(`${server.url}/ops`);
    await other.fill("#email", "new@ops.example");
    await other.fill("#password", password);
    await other.click('#login button[type="submit"]');
    await expect.poll(() => other.locator("#who").textContent()).toBe("new@ops.example (operatör)");
    await context.close();
  });

  it("works on a tablet in portrait: the queue fits and decisions still work", async () => {
    const id = await deposit();
    const next = await deposit();
    const page = await signIn("operator", { width: 768, height: 1024 });
    await expect.poll(() => row(page, next).isVisible()).toBe(true);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "console-tablet.png"), fullPage: true });
    // Nothing to scroll sideways: neither the page nor the queue's table.
    const widths = await page.evaluate(() => {
      const table = document.querySelector("table.queue") as HTMLElement;
      return [document.documentElement.scrollWidth, table.scrollWidth - table.clientWidth];
    });
    expect(widths).toEqual([768, 0]);
    await row(page, id).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${id}: Onaylandı`);
    // The withdrawals too, with a grouped IBAN and its copy button, a long name and a long firm name.
    const body = withdrawalBody({
      iban: "TR330006100519786457841326",
      first_name: "Muhammed Mustafa",
      last_name: "Karagözoğlu-Şahinbaş",
    });
    expect((await send(server, firm, { path: "/paymentapi/v1/withdrawals", body })).status).toBe(200);
    const payout = (
      await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${body.reference}` })
    ).json.data.id as number;
    await tab(page, "withdrawals");
    await expect.poll(() => row(page, payout).isVisible()).toBe(true);
    const payoutWidths = await page.evaluate(() => {
      const table = document.querySelector("table.queue") as HTMLElement;
      return [document.documentElement.scrollWidth, table.scrollWidth - table.clientWidth];
    });
    expect(payoutWidths).toEqual([768, 0]);
    // Every decision button is on screen, not cut off at the right.
    const right = await row(page, payout)
      .locator("button.reject")
      .evaluate((b) => b.getBoundingClientRect().right);
    expect(right).toBeLessThanOrEqual(768);
    await page.context().close();
  });

  it("works on a phone: every screen fits the width; the queue's cards approve, and reject with a note", async () => {
    const id = await deposit();
    const next = await deposit();
    // A firm named as Turkish companies are: the firm filters' selects are as wide as their longest
    // choice (before: 658 px, the queues and the search scrolled sideways as a whole).
    await createFirm(server, {
      name: "Kuzey Yıldızı Elektronik Ödeme ve Dijital Hizmetler Ticaret Ltd. Şti.",
    });
    const page = await signIn("admin", { width: 390, height: 844 });
    await expect.poll(() => row(page, next).isVisible()).toBe(true);
    await expect.poll(() => page.locator('#queue-filter option:has-text("Kuzey")').count()).toBe(1);
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, "console-phone.png"), fullPage: true });
    const pageWidth = () => page.evaluate(() => document.documentElement.scrollWidth);
    // Before: 507 px, the queue's table wider than the phone.
    expect(await pageWidth()).toBe(390);
    await row(page, id).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${id}: Onaylandı`);
    await row(page, next).locator("button.reject").click();
    await row(page, next).locator("input.note").fill("para gelmedi");
    await row(page, next).locator('.reject-form button[type="submit"]').click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${next}: Reddedildi`);
    // Wide tables scroll inside themselves; the page itself never does.
    const tabs = await page
      .locator("a.tab[data-tab]")
      .evaluateAll((as) => as.map((a) => a.getAttribute("data-tab")));
    expect(tabs.length).toBeGreaterThan(5);
    // Each screen measured once shown with what it loaded: its tab current, its effects run (after
    // the next frame) and no load of the console's API out.
    const loading = new Set<Request>();
    const isLoad = (r: Request) => r.url().includes("/ops/api/") && !r.url().includes("/ops/api/events");
    page.on("request", (r) => void (isLoad(r) && loading.add(r)));
    page.on("requestfinished", (r) => void loading.delete(r));
    page.on("requestfailed", (r) => void loading.delete(r));
    for (const name of tabs) {
      await tab(page, name as string);
      await expect
        .poll(() => page.locator(`a.tab[data-tab="${name}"]`).getAttribute("aria-current"))
        .toBe("page");
      await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r))));
      await expect.poll(() => loading.size).toBe(0);
      expect({ tab: name, width: await pageWidth() }).toEqual({ tab: name, width: 390 });
    }
    await page.goto(`${server.url}/ops#/transactions/${id}`);
    await expect.poll(() => page.locator("#d-title").textContent()).toContain(`#${id} ·`);
    expect(await pageWidth()).toBe(390);
    await page.context().close();
  });

  it("an operator turns on two-step sign-in by scanning a code (recovery codes shown once); sign-in then asks for it or a recovery code; an admin resets it", async () => {
    await server.admin("POST", "/admin/v1/operators", {
      email: "twostep@ops.example",
      role: "operator",
      password: "twostep-password-123",
    });
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      permissions: ["clipboard-read", "clipboard-write"],
    });
    const page = await context.newPage();
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url)) thirdParty.push(r.url());
    });
    page.on("pageerror", (e) => thirdParty.push(`page error: ${e.message}`));
    const signInForm = async (code?: string) => {
      await page.fill("#email", "twostep@ops.example");
      await page.fill("#password", "twostep-password-123");
      if (code !== undefined) await page.fill("#code", code);
      await page.click('#login button[type="submit"]');
    };
    const codeNow = (secret: string) => totpCode(fromBase32(secret), totpStep(server.clock.now()));
    await page.goto(`${server.url}/ops`);
    await signInForm();
    await expect.poll(() => page.locator("#queue").isVisible()).toBe(true);
    await page.click('a[href="#/password"]');
    await page.click("#sf-start");
    // The QR code is drawn in the page (nothing fetched from elsewhere) and the key is shown to type in.
    await expect.poll(() => page.locator("#qr path").getAttribute("d")).toMatch(/^M\d+ \d+h1v1h-1z/);
    const secret = ((await page.locator("#sf-secret").textContent()) ?? "").replace(/\s/g, "");
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, "console-second-factor.png"), fullPage: true });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
    // A mistyped code is told in the console's language (it showed the API's English message).
    await page.fill('input[name="sf-code"]', codeNow(secret) === "000000" ? "111111" : "000000");
    await page.fill('input[name="sf-password"]', "twostep-password-123");
    await page.click('#second-factor button[type="submit"]');
    await expect
      .poll(() => page.locator("#message").textContent())
      .toBe("Parola ya da kod yanlış. Uygulamadaki güncel kodu girin.");
    await page.fill('input[name="sf-code"]', codeNow(secret));
    await page.fill('input[name="sf-password"]', "twostep-password-123");
    await page.click('#second-factor button[type="submit"]');
    await expect
      .poll(() => page.locator("#message").textContent())
      .toBe("İki adımlı giriş açıldı; diğer oturumlarınız kapatıldı.");
    await expect.poll(() => page.locator("#sf-state").textContent()).toContain("İki adımlı giriş açık");
    // The recovery codes, shown this once, with a note to keep them safe and a copy button.
    const shown = async () => page.locator("#recovery-code-list li code").allTextContents();
    await expect.poll(async () => (await shown()).length).toBe(10);
    const codes = await shown();
    for (const c of codes) expect(c).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
    expect(await page.locator("#recovery-note").textContent()).toContain("güvenli bir yere kaydedin");
    if (SCREENSHOTS)
      await page.screenshot({ path: join(SCREENSHOTS, "console-recovery-codes.png"), fullPage: true });
    await page.click("#recovery-copy");
    await expect.poll(() => page.locator("#message").textContent()).toBe("Kodlar kopyalandı");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join("\n"));
    await expect.poll(() => page.locator("#recovery-left").textContent()).toBe("Kalan kurtarma kodu: 10");
    await page.click("#recovery-saved");
    expect(await page.locator("#recovery-codes").count()).toBe(0);
    await page.click("#logout");
    server.clock.advance(30_000);

    // Signing in: the password first, then the code; a wrong code says so and keeps the form.
    await signInForm();
    await expect.poll(() => page.locator("#code").isVisible()).toBe(true);
    expect(await page.locator("#login-code-hint").textContent()).toBe(
      "Doğrulama uygulamanızdaki 6 haneli kodu girin.",
    );
    // The six digits get a phone's number pad; a recovery code, asked for with the link, letters.
    expect(await page.locator("#code").getAttribute("inputmode")).toBe("numeric");
    await page.click("#use-recovery");
    expect(await page.locator("#login-code-hint").textContent()).toBe(
      "Kurtarma kodlarınızdan birini girin (her biri bir kez kullanılır).",
    );
    expect(await page.locator("#code").getAttribute("inputmode")).toBeNull();
    expect(
      await page.locator("#code").evaluate((el: HTMLInputElement) => {
        el.value = "ABCDE-FGH23";
        return el.checkValidity();
      }),
    ).toBe(true);
    await page.click("#use-recovery");
    expect(await page.locator("#code").getAttribute("inputmode")).toBe("numeric");
    // The hint is read out with the field (a screen reader landing on it heard only its label).
    expect(await page.locator("#code").getAttribute("aria-describedby")).toBe("login-code-hint");
    const wrong = codeNow(secret) === "000000" ? "111111" : "000000";
    await signInForm(wrong);
    await expect
      .poll(() => page.locator("#login-error").textContent())
      .toBe("Kod yanlış ya da kullanılmış. Uygulamadaki yeni kodu girin.");
    await signInForm(codeNow(secret));
    // Signed in, back on the page it was on (#/password).
    await expect.poll(() => page.locator("#who").textContent()).toBe("twostep@ops.example (operatör)");
    expect(await page.locator("#sf-state").textContent()).toContain("İki adımlı giriş açık");
    // New recovery codes with the password and a code: shown once, the old ones stop working.
    server.clock.advance(30_000);
    await page.fill('input[name="rc-code"]', codeNow(secret));
    await page.fill('input[name="rc-password"]', "twostep-password-123");
    await page.click('#recovery-new button[type="submit"]');
    await expect
      .poll(() => page.locator("#message").textContent())
      .toBe("Yeni kurtarma kodları oluşturuldu; eskileri artık geçersiz.");
    const fresh = await shown();
    expect(fresh).toHaveLength(10);
    expect(fresh.some((c) => codes.includes(c))).toBe(false);
    expect(
      (await consoleLogin(server, "twostep@ops.example", "twostep-password-123", codes[0])).res.status,
    ).toBe(401);
    // Signing in with one (as typed from paper: upper case, no dash); one fewer left.
    await page.click("#logout");
    await signInForm();
    await expect.poll(() => page.locator("#code").isVisible()).toBe(true);
    await page.click("#use-recovery");
    // A mistyped one is told as a recovery code (it said to take the app's new code, to someone without the phone).
    await signInForm("aaaaa-aaaaa");
    await expect
      .poll(() => page.locator("#login-error").textContent())
      .toBe("Kurtarma kodu yanlış ya da kullanılmış. Kullanılmamış bir kurtarma kodu girin.");
    await signInForm((fresh[0] ?? "").toUpperCase().replace("-", ""));
    await expect.poll(() => page.locator("#recovery-left").textContent()).toBe("Kalan kurtarma kodu: 9");
    await context.close();

    // The operator lost their phone: an admin resets it, and the password alone signs in again.
    const admin = await signIn("admin");
    await tab(admin, "operators");
    const rowOf = admin.locator('tr[data-operator="twostep@ops.example"]');
    await expect.poll(() => rowOf.locator(".state").textContent()).toContain("İki adımlı giriş: açık");
    admin.once("dialog", (d) => void d.accept());
    await rowOf.locator("button.reset-second-factor").click();
    await expect.poll(() => rowOf.locator(".state").textContent()).toContain("İki adımlı giriş: kapalı");
    await admin.context().close();
    const again = await consoleLogin(server, "twostep@ops.example", "twostep-password-123");
    expect(again.res.status).toBe(200);
  });

  // Last: it leaves 500 more deposits pending.
  it("past 500 pending, the queue says how many it shows of how many, and its filters reach the rest", async () => {
    const other = await createFirm(server, { name: "Diğer Firma" });
    for (let i = 0; i < 500; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => pendingDeposit(server, other, { amount: "20.00" })));
    }
    const sought = await pendingDeposit(server, firm, {
      amount: "1234.56",
      first_name: "Şükrü",
      last_name: "Öztürk",
    });
    const page = await signIn("operator");
    const count = page.locator("#queue-count");
    await expect.poll(() => count.textContent()).toMatch(/^500 \/ \d+$/);
    const total = Number((await count.textContent())?.split(" / ")[1]);
    expect(total).toBeGreaterThan(501);
    expect(await page.locator("#queue-more").textContent()).toBe(
      `${total} işlemin 500 tanesi gösteriliyor. Diğerlerine ulaşmak için firma, tutar ya da isimle daraltın veya sırayı değiştirin.`,
    );
    // Oldest first, the newest deposit is past the 500 shown; the payer's name as a statement writes it finds it.
    expect(await row(page, sought).count()).toBe(0);
    await page.fill('#queue-filter input[name="name"]', "SUKRU OZTURK");
    await page.click('#queue-filter button[type="submit"]');
    await expect.poll(() => count.textContent()).toBe("1");
    expect(await page.locator("#queue-more").count()).toBe(0);
    await row(page, sought).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${sought}: Onaylandı`);
    await expect.poll(() => status(sought)).toBe("approved");
    // An amount as typed, and a firm by name; a bad amount is refused before anything is sent.
    await page.click("#queue-filter-clear");
    await page.fill('#queue-filter input[name="amount"]', "1.2.3");
    await page.click('#queue-filter button[type="submit"]');
    await expect.poll(() => page.locator("#message").textContent()).toContain("Sıfırdan büyük");
    await page.fill('#queue-filter input[name="amount"]', "20,00 TL");
    await page.selectOption('#queue-filter select[name="firm"]', String(other.id));
    await page.click('#queue-filter button[type="submit"]');
    await expect.poll(() => count.textContent()).toBe("500");
    expect(await page.locator("#rows tr[data-id]").evaluateAll((rows) => rows.length)).toBe(500);
    // Cleared, the whole queue again.
    await page.click("#queue-filter-clear");
    await expect.poll(() => count.textContent()).toBe(`500 / ${total - 1}`);
    await page.context().close();
  });
});
