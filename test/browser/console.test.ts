import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";

/** The operator console's queue in Debian's Chromium: log in, decide deposits, see the callbacks. */
const CHROMIUM = process.env.PAYINTAKE_CHROMIUM ?? "/usr/bin/chromium";
const SHOTS =
  process.env.PAYINTAKE_SCREENSHOTS === "1"
    ? new URL("../../docs/screenshots/", import.meta.url).pathname
    : null;

describe("operator console in Chromium", () => {
  let server: TestServer;
  let firm: TestFirm;
  let receiver: Receiver;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM))
      throw new Error(`${CHROMIUM} is missing: apt-get install chromium (.ci/run does)`);
    server = await startTestServer(STORES[0] ?? "sqlite", {
      LOG_LEVEL: "warn",
      PAYINTAKE_CALLBACK_POLL_MS: "50",
    });
    await addAccount(server);
    receiver = await startReceiver();
    firm = await createFirm(server, { webhook_url: receiver.url });
    for (const role of ["operator", "viewer"]) {
      await server.admin("POST", "/admin/v1/operators", {
        email: `${role}@ops.example`,
        role,
        password: `${role}-password-123`,
      });
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox"] });
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await server?.close();
  });

  async function deposit(): Promise<number> {
    const body = depositBody();
    await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    return q.json.data.id;
  }
  async function signIn(role: string): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/ops`);
    await expect.poll(() => page.locator("#login").isVisible()).toBe(true);
    await page.fill("#email", `${role}@ops.example`);
    await page.fill("#password", `${role}-password-123`);
    await page.click('#login button[type="submit"]');
    await expect.poll(() => page.locator("#queue").isVisible()).toBe(true);
    return page;
  }
  const row = (page: Page, id: number) => page.locator(`tr[data-id="${id}"]`);

  it("logs in, approves from the queue (the merchant gets the callback), edits an amount, rejects with a note by keyboard", async () => {
    const a = await deposit();
    const b = await deposit();
    const c = await deposit();
    const page = await signIn("operator");
    await expect.poll(() => row(page, a).isVisible()).toBe(true);
    if (SHOTS) await page.screenshot({ path: join(SHOTS, "console-queue.png"), fullPage: true });

    await row(page, a).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${a}: Onaylandı`);
    await expect.poll(() => row(page, a).count()).toBe(0);
    const got = await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === a));
    expect(JSON.parse(got.body).event).toBe("deposit.approved");

    await row(page, b).locator("input.edit-amount").fill("149,50");
    await row(page, b).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${b}: Onaylandı`);
    const tx = (await server.admin("GET", `/admin/v1/transactions/${b}`)).json;
    expect(tx).toMatchObject({
      amount: "149.50",
      original_amount: "150.00",
      decided_by: "operator:operator@ops.example",
    });

    // Keyboard: select c with j/k, reject with r, type the note in the prompt.
    page.once("dialog", (d) => void d.accept("no transfer seen"));
    await page.locator("body").click();
    for (let i = 0; i < 5 && (await page.locator("tr.selected").getAttribute("data-id")) !== String(c); i++) {
      await page.keyboard.press("j");
    }
    await page.keyboard.press("r");
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${c}: Reddedildi`);
    const audit = (await server.admin("GET", `/admin/v1/transactions/${c}`)).json;
    expect(audit).toMatchObject({ status: "rejected", decision_note: "no transfer seen" });
    await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === c));
    await page.context().close();
  });

  it("finds a transaction, shows its history, routing and callback, and sends the callback again", async () => {
    const id = await deposit();
    await server.admin("POST", `/admin/v1/transactions/${id}/approve`, { actor: "operator:ayse" });
    const reference = (await server.admin("GET", `/admin/v1/transactions/${id}`)).json.reference as string;
    await eventually(async () => receiver.received.find((r) => JSON.parse(r.body).id === id));
    const page = await signIn("operator");
    await page.click('.tab[data-type="search"]');
    await page.fill("#s-reference", reference);
    await page.click('#search-form button[type="submit"]');
    await page.locator(`#results tr[data-id="${id}"]`).click();
    await expect.poll(() => page.locator("#d-title").textContent()).toBe(`#${id} · ${reference} · approved`);
    expect(await page.locator("#d-history").textContent()).toContain("operator:ayse transaction.approve");
    expect(await page.locator("#d-routing").textContent()).toContain("manual: accepted");
    await expect
      .poll(() => page.locator("#d-callbacks").textContent())
      .toContain("deposit.approved → delivered");
    if (SHOTS) await page.screenshot({ path: join(SHOTS, "console-detail.png"), fullPage: true });
    const before = receiver.received.filter((r) => JSON.parse(r.body).id === id).length;
    await page.locator("#d-callbacks button.redeliver").click();
    await eventually(async () =>
      receiver.received.filter((r) => JSON.parse(r.body).id === id).length > before ? true : undefined,
    );
    expect(await page.locator("#csv").getAttribute("href")).toBe(
      `/ops/api/transactions.csv?reference=${reference}`,
    );
    await page.context().close();
  });

  it("the summary shows today's figures and channel health", async () => {
    const page = await signIn("viewer");
    await page.click('.tab[data-type="dashboard"]');
    await expect.poll(() => page.locator("#cards .card").count()).toBeGreaterThan(5);
    expect(await page.locator("#cards").textContent()).toContain("Yatırımlar");
    if (SHOTS) await page.screenshot({ path: join(SHOTS, "console-dashboard.png"), fullPage: true });
    await page.context().close();
  });

  it("a viewer sees the queue but cannot decide; a decision made elsewhere disappears from the queue", async () => {
    const id = await deposit();
    const page = await signIn("viewer");
    await expect.poll(() => row(page, id).isVisible()).toBe(true);
    await row(page, id).locator("button.approve").click();
    await expect.poll(() => page.locator("#message").textContent()).toBe(`#${id}: Not allowed for your role`);
    await server.admin("POST", `/admin/v1/transactions/${id}/reject`, { actor: "operator:elsewhere" });
    await expect.poll(() => row(page, id).count(), { timeout: 8_000 }).toBe(0);
    await page.context().close();
  });

  it("an admin rotates a firm's secret and deactivates an account, and finds both in the audit log", async () => {
    await server.admin("POST", "/admin/v1/operators", {
      email: "admin@ops.example",
      role: "admin",
      password: "admin-password-123",
    });
    const page = await signIn("admin");
    await page.click('.tab[data-type="manage"]');
    await page.locator(`#firms tr[data-firm="${firm.id}"] button`).click();
    await expect.poll(() => page.locator("#secret").textContent()).toMatch(/sk_[A-Za-z0-9_-]+$/);
    const account = page.locator("#accounts tr").first();
    await account.locator("button").click();
    await expect.poll(() => account.locator("td.state").textContent()).toBe("devre dışı");
    await expect
      .poll(() => page.locator("#audit").textContent())
      .toContain("operator:admin@ops.example firm.rotate_secret");
    expect(await page.locator("#audit").textContent()).toContain("operator:admin@ops.example account.update");
    if (SHOTS) await page.screenshot({ path: join(SHOTS, "console-manage.png"), fullPage: true });
    await account.locator("button").click();
    await expect.poll(() => account.locator("td.state").textContent()).toBe("etkin");
    await page.context().close();
  });
});
