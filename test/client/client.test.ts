import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PayintakeClient, verifyCallback } from "../../packages/client/src/index.js";
import { type ChannelSim, startChannelSim } from "../support/channel-sim.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { addAccount, createFirm, depositBody, type TestFirm, withdrawalBody } from "../support/merchant.js";
import { eventually, type Receiver, startReceiver } from "../support/receiver.js";

/** The TypeScript client (packages/client) against the real server. */
describe.each(STORES)("@payintake/client against the server (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let legacy: TestFirm;
  let receiver: Receiver;
  let client: PayintakeClient;

  beforeAll(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_CALLBACK_POLL_MS: "50" });
    receiver = await startReceiver();
    firm = await createFirm(server, { webhook_url: receiver.url });
    legacy = await createFirm(server, { webhook_url: receiver.url, legacy_http: true });
    await addAccount(server);
    client = new PayintakeClient({ baseUrl: server.url, apiKey: firm.apiKey, secretKey: firm.secret });
  });
  afterAll(async () => {
    await receiver?.close();
    await server?.close();
  });

  const payer = () => {
    const { amount: _, reference, ...rest } = depositBody();
    return {
      ...(rest as Omit<Parameters<PayintakeClient["createDeposit"]>[0], "amount" | "reference">),
      reference: reference as string,
    };
  };

  it("creates a direct deposit, finds it by id and reference (amounts kept exact), and types rejections", async () => {
    const p = payer();
    const created = await client.createDeposit({ ...p, amount: "150.00" });
    expect(created).toEqual({
      ok: true,
      value: {
        assigned_bank_name: "Ziraat Bankası",
        assigned_holder_name: "Ödeme Hizmetleri A.Ş.",
        assigned_iban: "TR330006100519786457841326",
        recovered: false,
      },
    });
    const byRef = await client.getTransactionByReference(p.reference);
    if (!byRef.ok) throw new Error(byRef.error.message);
    expect(byRef.value).toMatchObject({
      reference: p.reference,
      status: "pending",
      amount: "150.00",
      type: "deposit",
    });
    const byId = await client.getTransaction(byRef.value.id);
    expect(byId.ok && byId.value.reference).toBe(p.reference);

    const again = await client.createDeposit({ ...p, amount: "150.00" });
    expect(again).toEqual({
      ok: false,
      error: { code: "duplicate_reference", message: "Bu islem numarasi zaten kullanilmis", status: 409 },
    });
    expect(await client.getTransactionByReference("nope-404")).toEqual({
      ok: false,
      error: { code: "not_found", message: "transaction not found", status: 404 },
    });
    const invalid = await client.createDeposit({ ...payer(), amount: "1.234" });
    expect(invalid).toEqual({
      ok: false,
      error: {
        code: "validation",
        message: "Validation failed: Amount must have at most 2 decimal places",
        status: 400,
      },
    });
  });

  it("a legacy firm's HTTP-200 rejection is still a failure", async () => {
    const legacyClient = new PayintakeClient({
      baseUrl: server.url,
      apiKey: legacy.apiKey,
      secretKey: legacy.secret,
    });
    const p = payer();
    expect((await legacyClient.createDeposit({ ...p, amount: "10.00" })).ok).toBe(true);
    const again = await legacyClient.createDeposit({ ...p, amount: "10.00" });
    expect(again).toEqual({
      ok: false,
      error: { code: "duplicate_reference", message: "Bu islem numarasi zaten kullanilmis", status: 200 },
    });
  });

  it("hosted deposits and withdrawals; a wrong secret and a dead server are typed failures", async () => {
    const hosted = await client.createHostedDeposit({ ...payer(), return_url: "https://shop.example/back" });
    expect(hosted.ok && hosted.value.payment_url).toMatch(/\/t\/[A-Za-z0-9_-]{32}$/);
    const w = withdrawalBody() as Record<string, string>;
    const withdrawal = await client.createWithdrawal({
      bank_code: w.bank_code as string,
      amount: "250.50",
      first_name: w.first_name as string,
      last_name: w.last_name as string,
      username: w.username as string,
      user_id: w.user_id as string,
      reference: w.reference as string,
      iban: "TR330006100519786457841326",
    });
    expect(withdrawal).toEqual({ ok: true, value: { accepted: true, recovered: false } });
    expect(hosted.ok && hosted.value.payment_url.startsWith(`${server.url}/t/`)).toBe(true);
    const wrong = new PayintakeClient({ baseUrl: server.url, apiKey: firm.apiKey, secretKey: "sk_wrong" });
    expect(await wrong.getTransaction(1)).toEqual({
      ok: false,
      error: { code: "authentication", message: "Invalid signature", status: 401 },
    });
    const dead = new PayintakeClient({ baseUrl: "http://127.0.0.1:9", apiKey: "k", secretKey: "s" });
    const down = await dead.getTransaction(1);
    expect(down.ok === false && down.error.code).toBe("network");
  });

  it("verifies a real callback (signature, hashcode, amount in kuruş) and refuses tampering and old ones", async () => {
    const p = payer();
    await client.createDeposit({ ...p, amount: "99.90" });
    const tx = await client.getTransactionByReference(p.reference);
    if (!tx.ok) throw new Error(tx.error.message);
    await server.admin("POST", `/admin/v1/transactions/${tx.value.id}/approve`, {
      actor: "cli:test",
      amount: "99.50",
    });
    const got = await eventually(async () =>
      receiver.received.find((r) => JSON.parse(r.body).id === tx.value.id),
    );
    const check = verifyCallback({ secret: firm.secret, rawBody: got.body, headers: got.headers });
    expect(check).toMatchObject({
      ok: true,
      event: { event: "deposit.approved", reference: p.reference, amount: "99.50", amountMinor: 9950 },
    });
    const tampered = got.body.replace('"amount":99.50', '"amount":995.00');
    expect(verifyCallback({ secret: firm.secret, rawBody: tampered, headers: got.headers })).toEqual({
      ok: false,
      reason: "signature",
    });
    expect(verifyCallback({ secret: "sk_other", rawBody: got.body, headers: got.headers }).ok).toBe(false);
    const late = Number(got.headers["x-timestamp"]) * 1000 + 301_000;
    expect(
      verifyCallback({ secret: firm.secret, rawBody: got.body, headers: got.headers, nowMs: late }),
    ).toEqual({
      ok: false,
      reason: "timestamp",
    });
  });

  it("sandbox helpers: a test firm approves, rejects and resends; a live firm gets not_found", async () => {
    const test = await createFirm(server, { webhook_url: receiver.url, sandbox: true });
    const sandboxClient = new PayintakeClient({
      baseUrl: server.url,
      apiKey: test.apiKey,
      secretKey: test.secret,
    });
    const ids: number[] = [];
    for (let i = 0; i < 2; i++) {
      const p = payer();
      expect((await sandboxClient.createDeposit({ ...p, amount: "20.00" })).ok).toBe(true);
      const tx = await sandboxClient.getTransactionByReference(p.reference);
      if (!tx.ok) throw new Error(tx.error.message);
      ids.push(tx.value.id);
    }
    const [a = 0, b = 0] = ids;
    const approved = await sandboxClient.sandbox.approve(a, { amount: "19.50" });
    expect(approved).toMatchObject({ ok: true, value: { status: "approved", amount: "19.50" } });
    const rejected = await sandboxClient.sandbox.reject(b, { note: "no transfer" });
    expect(rejected).toMatchObject({ ok: true, value: { status: "rejected" } });
    expect((await sandboxClient.sandbox.resendCallback(a)).ok).toBe(true);
    expect(await sandboxClient.sandbox.approve(a)).toMatchObject({
      ok: false,
      error: { code: "conflict", status: 409 },
    });
    expect(await client.sandbox.approve(a)).toEqual({
      ok: false,
      error: { code: "not_found", message: "Not found", status: 404 },
    });
  });

  it("reads the firm's balance and a day's movements page by page; bad input and its own rate limit are typed failures", async () => {
    const own = await createFirm(server, { webhook_url: receiver.url });
    const set = await server.admin("PATCH", `/admin/v1/firms/${own.id}`, { commission_deposit: "1.00" });
    expect(set.status).toBe(200);
    const ownClient = new PayintakeClient({ baseUrl: server.url, apiKey: own.apiKey, secretKey: own.secret });
    const references: string[] = [];
    for (const amount of ["100.00", "50.00"]) {
      const p = payer();
      expect((await ownClient.createDeposit({ ...p, amount })).ok).toBe(true);
      const tx = await ownClient.getTransactionByReference(p.reference);
      if (!tx.ok) throw new Error(tx.error.message);
      const approved = await server.admin("POST", `/admin/v1/transactions/${tx.value.id}/approve`, {
        actor: "cli:test",
      });
      expect(approved.status).toBe(200);
      references.push(p.reference);
    }
    // The server's clock stands still while the balance bucket is counted (bursts of 10).
    server.clock.frozenAtMs = Date.now();
    try {
      expect(await ownClient.getBalance()).toEqual({
        ok: true,
        value: {
          balance: "148.50",
          in_transit: "0.00",
          available: "148.50",
          currency: "TRY",
          as_of: expect.any(String),
        },
      });
      const today = new Date(server.clock.now());
      const movements: { reference: string | null; amount: string; fee: string; net: string }[] = [];
      let after: string | undefined;
      do {
        const page = await ownClient.getBalanceDay(today, { after, limit: 1 });
        if (!page.ok) throw new Error(page.error.message);
        expect(page.value).toMatchObject({ deposits: "150.00", commissions: "-1.50", closing: "148.50" });
        movements.push(...page.value.movements);
        after = page.value.next ?? undefined;
      } while (after !== undefined);
      expect(movements.map((m) => [m.reference, m.amount, m.fee, m.net])).toEqual([
        [references[0], "100.00", "1.00", "99.00"],
        [references[1], "50.00", "0.50", "49.50"],
      ]);
      expect(await ownClient.getBalanceDay("2026-02-30")).toEqual({
        ok: false,
        error: {
          code: "validation",
          message: "Validation failed: date: not a day (YYYY-MM-DD)",
          status: 400,
        },
      });
      const later = await ownClient.getBalance({ at: new Date(server.clock.now() + 3_600_000) });
      expect(later.ok || later.error.code).toBe("validation");
      // 5 of the burst's 10 are spent: the sixth after them is the first refused.
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await ownClient.getBalance());
      expect(answers.map((a) => a.ok)).toEqual([true, true, true, true, true, false]);
      expect(answers[5]).toEqual({
        ok: false,
        error: { code: "rate_limited", message: "Too many requests", status: 429 },
      });
      // The firm's own limit is untouched: a deposit still goes through.
      expect((await ownClient.createDeposit({ ...payer(), amount: "10.00" })).ok).toBe(true);
    } finally {
      server.clock.frozenAtMs = undefined;
    }
  });

  it("a withdrawal whose answer was lost is found by its reference, not reported as a duplicate", async () => {
    // The first answer is lost after the server made the withdrawal (a connection cut on the way back).
    let cut = true;
    const lossy: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      if (cut && String(input).endsWith("/withdrawals")) {
        cut = false;
        await res.arrayBuffer();
        throw new TypeError("fetch failed: socket hang up");
      }
      return res;
    };
    const flaky = new PayintakeClient({
      baseUrl: server.url,
      apiKey: firm.apiKey,
      secretKey: firm.secret,
      fetch: lossy,
    });
    const w = withdrawalBody() as Record<string, string>;
    const input = {
      bank_code: w.bank_code as string,
      amount: "80.00",
      first_name: w.first_name as string,
      last_name: w.last_name as string,
      username: w.username as string,
      user_id: w.user_id as string,
      reference: w.reference as string,
    };
    expect(await flaky.createWithdrawal(input)).toEqual({
      ok: true,
      value: { accepted: true, recovered: true },
    });
    const list = (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&limit=1000`)).json;
    expect(list.filter((t: { reference: string }) => t.reference === input.reference)).toHaveLength(1);
    // Another user's withdrawal under that reference is not "ours": a plain duplicate.
    expect(await client.createWithdrawal({ ...input, user_id: "someone-else" })).toEqual({
      ok: false,
      error: { code: "duplicate_reference", message: "Bu islem numarasi zaten kullanilmis", status: 409 },
    });
  });

  describe("after a timeout: query by reference, then resend with the same reference", () => {
    let sim: ChannelSim;
    let slowAccount: number;
    beforeAll(async () => {
      sim = await startChannelSim({ kind: "accept", delayMs: 1_200 });
      await server.admin("POST", "/admin/v1/channels", {
        code: `SLOW${kind}`,
        kind: "http",
        url: sim.url,
        timeout_ms: 5_000,
      });
      slowAccount = (
        await server.admin("POST", "/admin/v1/accounts", {
          bank_name: "Slow Bank",
          holder_name: "Slow",
          iban: "TR900000000000000000000099",
          channel: `SLOW${kind}`,
          bank_code: "SLOWBANK",
        })
      ).json.id;
    });
    afterAll(async () => {
      await sim?.close();
    });

    it("recovers the deposit the lost answer created: one transaction, one reservation", async () => {
      const impatient = new PayintakeClient({
        baseUrl: server.url,
        apiKey: firm.apiKey,
        secretKey: firm.secret,
        timeoutMs: 300,
        recoveryAttempts: 10,
      });
      const p = { ...payer(), bank_code: "SLOWBANK" };
      const result = await impatient.createDeposit({ ...p, amount: "75.00" });
      expect(result).toEqual({
        ok: true,
        value: {
          assigned_bank_name: "Slow Bank",
          assigned_holder_name: "Slow",
          assigned_iban: "TR900000000000000000000099",
          recovered: true,
        },
      });
      const found = await client.getTransactionByReference(p.reference);
      expect(found.ok && found.value.assigned_iban).toBe("TR900000000000000000000099");
      const list = (await server.admin("GET", `/admin/v1/transactions?firm=${firm.id}&limit=1000`)).json;
      expect(list.filter((t: { reference: string }) => t.reference === p.reference)).toHaveLength(1);
      expect(sim.reservations.get(`${firm.id}:${p.reference}:${slowAccount}:7500`)).toBe(1);
    });

    it("without recovery attempts a timeout is a typed timeout, never a guess", async () => {
      const once = new PayintakeClient({
        baseUrl: server.url,
        apiKey: firm.apiKey,
        secretKey: firm.secret,
        timeoutMs: 200,
        recoveryAttempts: 0,
      });
      const result = await once.createDeposit({ ...payer(), bank_code: "SLOWBANK", amount: "75.00" });
      expect(result).toEqual({
        ok: false,
        error: { code: "timeout", message: "no answer within 200 ms", status: 0 },
      });
    });
  });
});

describe("packages/client/README.md", () => {
  it("names every method of the client, the sandbox helpers and callbackUrl", () => {
    const readme = readFileSync(new URL("../../packages/client/README.md", import.meta.url), "utf8");
    const client = new PayintakeClient({ baseUrl: "http://127.0.0.1:9", apiKey: "pk_x", secretKey: "sk_x" });
    const methods = Object.getOwnPropertyNames(PayintakeClient.prototype).filter((m) => m !== "constructor");
    for (const m of methods) expect(readme).toContain(`\`${m}(`);
    for (const m of Object.keys(client.sandbox)) expect(readme).toContain(`\`sandbox.${m}(`);
    expect(readme).toContain("`callbackUrl`");
  });
});
