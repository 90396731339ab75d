import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  createFirm,
  depositBody,
  newNonce,
  send,
  type TestFirm,
  withdrawalBody,
} from "../support/merchant.js";

const DEPOSITS = "/paymentapi/v1/deposits";

describe.each(STORES)("authentication on %s", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  let other: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind);
    firm = await createFirm(server);
    other = await createFirm(server);
    await addAccount(server);
  });
  afterAll(() => server?.close());

  async function count(f: TestFirm): Promise<number> {
    const res = await server.admin("GET", `/admin/v1/transactions?firm=${f.id}`);
    return res.json.length;
  }

  /** Sends a tampered request and proves it was refused with the message and wrote nothing. */
  async function refused(opts: Parameters<typeof send>[2], status: number, message: string, who = firm) {
    const before = await count(who);
    const res = await send(server, who, opts);
    expect(res.status).toBe(status);
    expect(res.json).toEqual({ success: false, message });
    expect(await count(who)).toBe(before);
  }

  it("accepts a correctly signed request", async () => {
    const res = await send(server, firm, { path: DEPOSITS, body: depositBody() });
    expect(res.status).toBe(200);
    expect(res.json.success).toBe(true);
  });

  it("refuses a missing or unknown API key with 401 Invalid API key", async () => {
    await refused(
      { path: DEPOSITS, body: depositBody(), headers: { "x-api-key": undefined } },
      401,
      "Invalid API key",
    );
    await refused(
      { path: DEPOSITS, body: depositBody(), headers: { "x-api-key": "pk_unknown" } },
      401,
      "Invalid API key",
    );
  });

  it("refuses a deactivated firm with 403 API key is inactive, and takes it back when reactivated", async () => {
    const f = await createFirm(server);
    expect((await server.admin("PATCH", `/admin/v1/firms/${f.id}`, { active: false })).status).toBe(200);
    await refused({ path: DEPOSITS, body: depositBody() }, 403, "API key is inactive", f);
    await server.admin("PATCH", `/admin/v1/firms/${f.id}`, { active: true });
    expect((await send(server, f, { path: DEPOSITS, body: depositBody() })).status).toBe(200);
  });

  it.each(["x-signature", "x-timestamp", "x-nonce"])("refuses a request without %s", async (h) => {
    await refused(
      { path: DEPOSITS, body: depositBody(), headers: { [h]: undefined } },
      401,
      "Missing authentication headers",
    );
  });

  it("accepts timestamps 299 s away and refuses 301 s, milliseconds and non-integers", async () => {
    // The server's clock stands still meanwhile: a second ticking over between here and a request
    // would turn 301 s into 300 s (seen on a slow machine).
    server.clock.frozenAtMs = Date.now();
    onTestFinished(() => {
      server.clock.frozenAtMs = undefined;
    });
    const now = Math.floor(server.clock.now() / 1000);
    for (const skew of [-299, 299]) {
      const res = await send(server, firm, {
        path: DEPOSITS,
        body: depositBody(),
        timestamp: String(now + skew),
      });
      expect(res.status).toBe(200);
    }
    for (const ts of [
      String(now - 301),
      String(now + 301),
      String(now * 1000),
      `${now}.5`,
      "abc",
      `-${now}`,
    ]) {
      await refused(
        { path: DEPOSITS, body: depositBody(), timestamp: ts },
        401,
        "Request timestamp out of range",
      );
    }
  });

  it("refuses nonces shorter than 8 or longer than 64 characters", async () => {
    await refused({ path: DEPOSITS, body: depositBody(), nonce: "1234567" }, 401, "Invalid nonce");
    await refused({ path: DEPOSITS, body: depositBody(), nonce: "n".repeat(65) }, 401, "Invalid nonce");
    for (const nonce of ["12345678", "n".repeat(64)]) {
      expect((await send(server, firm, { path: DEPOSITS, body: depositBody(), nonce })).status).toBe(200);
    }
  });

  it("refuses a replayed nonce with 401 Nonce already used, even with a new body", async () => {
    const nonce = newNonce();
    expect((await send(server, firm, { path: DEPOSITS, body: depositBody(), nonce })).status).toBe(200);
    await refused({ path: DEPOSITS, body: depositBody(), nonce }, 401, "Nonce already used");
  });

  it("keeps nonces per firm: another firm may use the same nonce", async () => {
    const nonce = newNonce();
    expect((await send(server, firm, { path: DEPOSITS, body: depositBody(), nonce })).status).toBe(200);
    expect((await send(server, other, { path: DEPOSITS, body: depositBody(), nonce })).status).toBe(200);
  });

  it("does not use up a nonce on a request that fails authentication", async () => {
    const nonce = newNonce();
    await refused(
      { path: DEPOSITS, body: depositBody(), nonce, signSecret: "wrong" },
      401,
      "Invalid signature",
    );
    expect((await send(server, firm, { path: DEPOSITS, body: depositBody(), nonce })).status).toBe(200);
  });

  it("uses up the nonce of a signed request that then fails validation", async () => {
    const nonce = newNonce();
    const bad = await send(server, firm, { path: DEPOSITS, body: depositBody({ bank_code: "" }), nonce });
    expect(bad.status).toBe(400);
    await refused({ path: DEPOSITS, body: depositBody(), nonce }, 401, "Nonce already used");
  });

  it("uses up the nonce whatever comes after authentication: callback URL, JSON, hosted mode, rejections, withdrawals", async () => {
    const first = depositBody();
    expect((await send(server, firm, { path: DEPOSITS, body: first })).status).toBe(200);
    const cases: { label: string; opts: Parameters<typeof send>[2]; status: number }[] = [
      {
        label: "callback URL refused",
        opts: {
          path: DEPOSITS,
          body: depositBody(),
          headers: { "x-callback-url": "https://elsewhere.example/cb" },
        },
        status: 400,
      },
      { label: "not JSON", opts: { path: DEPOSITS, body: "{nope" }, status: 400 },
      {
        label: "hosted mode",
        opts: { path: DEPOSITS, body: depositBody({ redirect: true, amount: undefined }) },
        status: 200,
      },
      {
        label: "duplicate reference",
        opts: { path: DEPOSITS, body: depositBody({ reference: first.reference }) },
        status: 409,
      },
      {
        label: "withdrawal",
        opts: { path: "/paymentapi/v1/withdrawals", body: withdrawalBody() },
        status: 200,
      },
      {
        label: "withdrawal, invalid",
        opts: { path: "/paymentapi/v1/withdrawals", body: withdrawalBody({ reference: "" }) },
        status: 400,
      },
    ];
    for (const c of cases) {
      const nonce = newNonce();
      const answer = await send(server, firm, { ...c.opts, nonce });
      expect(answer.status, c.label).toBe(c.status);
      const replay = await send(server, firm, { path: DEPOSITS, body: depositBody(), nonce });
      expect(replay.status, c.label).toBe(401);
      expect(replay.json?.message, c.label).toBe("Nonce already used");
    }
  });

  describe("tampering: one changed byte is refused with 401 Invalid signature and writes nothing", () => {
    it("in the body", async () => {
      const body = JSON.stringify(depositBody({ amount: "150.00" }));
      await refused(
        { path: DEPOSITS, body: body.replace("150.00", "950.00"), signBody: body },
        401,
        "Invalid signature",
      );
    });
    it("in the path, including the unversioned and unprefixed paths", async () => {
      for (const signPath of [
        "/paymentapi/v1/deposit",
        "/deposits",
        "/paymentapi/deposits",
        "/paymentapi/v1/deposits/",
      ]) {
        await refused({ path: DEPOSITS, body: depositBody(), signPath }, 401, "Invalid signature");
      }
    });
    it("in the timestamp and the nonce", async () => {
      const body = depositBody();
      const ts = String(Math.floor(server.clock.now() / 1000));
      const signed = await import("../../src/crypto/signature.js");
      const nonce = newNonce();
      const signature = signed.signRequest(firm.secret, {
        method: "POST",
        path: DEPOSITS,
        body: Buffer.from(JSON.stringify(body)),
        timestamp: ts,
        nonce,
      });
      await refused(
        {
          path: DEPOSITS,
          body,
          timestamp: String(Number(ts) - 1),
          nonce,
          headers: { "x-signature": signature },
        },
        401,
        "Invalid signature",
      );
      await refused(
        { path: DEPOSITS, body, timestamp: ts, nonce: `${nonce}x`, headers: { "x-signature": signature } },
        401,
        "Invalid signature",
      );
    });
    it("with another firm's key", async () => {
      // Signed with this firm's secret, sent under the other firm's key.
      await refused(
        { path: DEPOSITS, body: depositBody(), signSecret: firm.secret },
        401,
        "Invalid signature",
        other,
      );
    });
    it("with a re-serialized body (whitespace changed)", async () => {
      const body = depositBody();
      await refused(
        { path: DEPOSITS, body: JSON.stringify(body, null, 1), signBody: JSON.stringify(body) },
        401,
        "Invalid signature",
      );
    });
  });

  it("never throws on odd signature headers", async () => {
    for (const sig of [
      "",
      "zz",
      "abc",
      "A".repeat(64),
      "g".repeat(64),
      "é".repeat(32),
      "0".repeat(63),
      "0".repeat(65),
      "0".repeat(4096),
    ]) {
      const res = await send(server, firm, {
        path: DEPOSITS,
        body: depositBody(),
        headers: { "x-signature": sig },
      });
      expect([401]).toContain(res.status);
      expect(res.json.success).toBe(false);
    }
  });

  it("refuses a secret-rotated firm's old secret at once and accepts the new one", async () => {
    const f = await createFirm(server);
    const rotated = await server.admin("POST", `/admin/v1/firms/${f.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    await refused({ path: DEPOSITS, body: depositBody() }, 401, "Invalid signature", f);
    const res = await send(
      server,
      { ...f, secret: rotated.json.secret_key },
      { path: DEPOSITS, body: depositBody() },
    );
    expect(res.status).toBe(200);
  });

  it("signs GET queries over an empty body", async () => {
    const res = await send(server, firm, { path: "/paymentapi/v1/transactions/by-reference/nothing-here" });
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ success: false, message: "transaction not found" });
  });

  it("limits requests per API key with 429 Too many requests and Retry-After", async () => {
    const f = await createFirm(server, { rate_limit_per_second: 2 });
    // Sent at once, so that they fall in one window of the limit (one by one on a slow machine they
    // could straddle two, on PostgreSQL's fixed 2 s windows); a burst that still straddles is tried again.
    let limited: Awaited<ReturnType<typeof send>>[] = [];
    for (let attempt = 0; attempt < 3 && limited.length === 0; attempt++) {
      const answers = await Promise.all(
        Array.from({ length: 8 }, () =>
          send(server, f, { path: "/paymentapi/v1/transactions/by-reference/none" }),
        ),
      );
      limited = answers.filter((a) => a.status === 429);
    }
    expect(limited.length).toBeGreaterThan(0);
    expect(limited[0]?.json).toEqual({ success: false, message: "Too many requests" });
    expect(Number(limited[0]?.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });
});
