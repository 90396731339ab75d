import { createHash, createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  addAccount,
  bodyBytes,
  createFirm,
  depositBody,
  newNonce,
  type SendOptions,
  send,
  type TestFirm,
} from "../support/merchant.js";

const DEPOSITS = "/paymentapi/v1/deposits";

/** The signature a developer made in base64 instead of hex, over the right message. */
function base64Signature(secret: string, body: Buffer, timestamp: string, nonce: string): string {
  return createHmac("sha256", secret)
    .update(`POST\n${DEPOSITS}\n`)
    .update(body)
    .update(`\n${timestamp}\n${nonce}`)
    .digest("base64");
}

/** The hint header read back as its items (docs/sandbox.md, "Why a signature fails"). */
function hintOf(value: unknown): Record<string, string> {
  expect(typeof value).toBe("string");
  return Object.fromEntries(
    String(value)
      .split("; ")
      .map((item) => {
        const at = item.indexOf("=");
        return [item.slice(0, at), decodeURIComponent(item.slice(at + 1))];
      }),
  );
}

/**
 * A signature failure tells who can act on it: the operator's log names the check for every firm, a
 * test firm's answer carries X-Signature-Hint with what the server signed, a live firm's answer is
 * the contract's text and nothing more.
 */
describe.each(STORES)("signature hints (%s)", (kind) => {
  let server: TestServer;
  let sandbox: TestFirm;
  let live: TestFirm;

  beforeAll(async () => {
    server = await startTestServer(kind);
    await addAccount(server, { iban: "TR330006100519786457841326" });
    sandbox = await createFirm(server, { sandbox: true });
    live = await createFirm(server);
  });
  afterAll(async () => {
    await server?.close();
  });

  /** Each way of getting it wrong, the contract's exact answer, and the hint's reason. */
  function cases(): { name: string; opts: () => SendOptions; text: string; reason: string }[] {
    const body = () => depositBody();
    return [
      {
        name: "a missing header",
        opts: () => ({ path: DEPOSITS, body: body(), headers: { "x-nonce": undefined } }),
        text: '{"success":false,"message":"Missing authentication headers"}',
        reason: "missing_headers",
      },
      {
        name: "a timestamp outside the window",
        opts: () => ({
          path: DEPOSITS,
          body: body(),
          timestamp: String(Math.floor(server.clock.now() / 1000) - 301),
        }),
        text: '{"success":false,"message":"Request timestamp out of range"}',
        reason: "timestamp_outside_window",
      },
      {
        name: "a timestamp in milliseconds",
        opts: () => ({ path: DEPOSITS, body: body(), timestamp: String(server.clock.now()) }),
        text: '{"success":false,"message":"Request timestamp out of range"}',
        reason: "timestamp_malformed",
      },
      {
        name: "a wrong secret",
        opts: () => ({ path: DEPOSITS, body: body(), signSecret: "not-the-secret" }),
        text: '{"success":false,"message":"Invalid signature"}',
        reason: "signature_mismatch",
      },
      {
        name: "a re-serialised body",
        opts: () => {
          const b = body();
          return { path: DEPOSITS, body: JSON.stringify(b, null, 2), signBody: JSON.stringify(b) };
        },
        text: '{"success":false,"message":"Invalid signature"}',
        reason: "signature_mismatch",
      },
      {
        name: "uppercase hex",
        opts: () => ({ path: DEPOSITS, body: body(), headers: { "x-signature": "AB".repeat(32) } }),
        text: '{"success":false,"message":"Invalid signature"}',
        reason: "signature_uppercase_hex",
      },
      {
        name: "a hex signature of the wrong length",
        opts: () => ({ path: DEPOSITS, body: body(), headers: { "x-signature": "ab".repeat(20) } }),
        text: '{"success":false,"message":"Invalid signature"}',
        reason: "signature_wrong_length",
      },
    ];
  }

  for (const c of cases()) {
    it(`${c.name}: the test firm is told why, the live firm only the contract's text`, async () => {
      const toTest = await send(server, sandbox, c.opts());
      expect(toTest.status).toBe(401);
      expect(toTest.text).toBe(c.text);
      expect(hintOf(toTest.headers["x-signature-hint"]).reason).toBe(c.reason);

      const toLive = await send(server, live, c.opts());
      expect(toLive.status).toBe(401);
      expect(toLive.text).toBe(c.text);
      expect(toLive.headers).not.toHaveProperty("x-signature-hint");
      await expect.poll(() => loggedChecks(live.id)).toContain(c.reason);
    });
  }

  it("a signature in base64 is named as such", async () => {
    const timestamp = String(Math.floor(server.clock.now() / 1000));
    const nonce = newNonce();
    const body = bodyBytes(depositBody());
    const signature = base64Signature(sandbox.secret, body, timestamp, nonce);
    const res = await send(server, sandbox, {
      path: DEPOSITS,
      body,
      timestamp,
      nonce,
      headers: { "x-signature": signature },
    });
    expect(res.text).toBe('{"success":false,"message":"Invalid signature"}');
    expect(hintOf(res.headers["x-signature-hint"]).reason).toBe("signature_base64");
  });

  it("a mismatch's hint is the message the server signed, the body by its hash; never the secret", async () => {
    const timestamp = String(Math.floor(server.clock.now() / 1000));
    const nonce = newNonce();
    const sent = Buffer.from(JSON.stringify(depositBody()), "utf8");
    const res = await send(server, sandbox, {
      path: `${DEPOSITS}?x=1`,
      body: sent,
      timestamp,
      nonce,
      signSecret: "wrong",
    });
    const hint = hintOf(res.headers["x-signature-hint"]);
    expect(hint).toEqual({
      reason: "signature_mismatch",
      method: "POST",
      path: DEPOSITS,
      body_sha256: createHash("sha256").update(sent).digest("hex"),
      body_bytes: String(sent.byteLength),
      timestamp,
      nonce,
    });
    expect(String(res.headers["x-signature-hint"])).not.toContain(sandbox.secret);
  });

  it("names the missing headers, the server's time, the nonce's length", async () => {
    const missing = await send(server, sandbox, {
      path: DEPOSITS,
      body: depositBody(),
      headers: { "x-signature": undefined, "x-timestamp": undefined },
    });
    expect(hintOf(missing.headers["x-signature-hint"])).toEqual({
      reason: "missing_headers",
      missing: "X-Signature,X-Timestamp",
    });
    const now = Math.floor(server.clock.now() / 1000);
    const late = await send(server, sandbox, {
      path: DEPOSITS,
      body: depositBody(),
      timestamp: String(now - 400),
    });
    const hint = hintOf(late.headers["x-signature-hint"]);
    expect(hint).toMatchObject({
      reason: "timestamp_outside_window",
      timestamp: String(now - 400),
      window_s: "300",
    });
    expect(Math.abs(Number(hint.server_time) - now)).toBeLessThanOrEqual(2);
    const short = await send(server, sandbox, { path: DEPOSITS, body: depositBody(), nonce: "abc" });
    expect(short.text).toBe('{"success":false,"message":"Invalid nonce"}');
    expect(hintOf(short.headers["x-signature-hint"])).toEqual({ reason: "nonce_length", length: "3" });
  });

  it("a reused nonce: on the intake routes and the queries alike", async () => {
    const nonce = newNonce();
    expect((await send(server, sandbox, { path: DEPOSITS, body: depositBody(), nonce })).status).toBe(200);
    for (const opts of [
      { path: DEPOSITS, body: depositBody(), nonce },
      { path: "/paymentapi/v1/transactions/by-reference/none", nonce },
    ]) {
      const again = await send(server, sandbox, opts);
      expect(again.text).toBe('{"success":false,"message":"Nonce already used"}');
      expect(hintOf(again.headers["x-signature-hint"])).toEqual({ reason: "nonce_reused" });
      const live1 = await send(server, live, { ...opts, nonce: `${nonce}-live` });
      expect(live1.headers).not.toHaveProperty("x-signature-hint");
    }
  });

  it("a nonce or path that a header cannot carry as such is percent-encoded", async () => {
    const res = await send(server, sandbox, {
      path: DEPOSITS,
      body: depositBody(),
      nonce: "nonce; x=1 ok",
      signSecret: "wrong",
    });
    const raw = String(res.headers["x-signature-hint"]);
    expect(raw).toContain("nonce=nonce%3B%20x%3D1%20ok");
    expect(hintOf(raw).nonce).toBe("nonce; x=1 ok");
  });

  it("the log names the check for the operator, without the signature or the secret", async () => {
    const signature = "CD".repeat(32);
    await send(server, live, { path: DEPOSITS, body: depositBody(), headers: { "x-signature": signature } });
    await expect.poll(() => loggedChecks(live.id)).toContain("signature_uppercase_hex");
    const lines = server.logs.filter((l) => l.includes("merchant request refused"));
    for (const line of lines) {
      expect(line).not.toContain(signature);
      expect(line).not.toContain(live.secret);
      expect(line).not.toContain(sandbox.secret);
    }
  });

  function loggedChecks(firmId: number): string[] {
    return server.logs
      .filter((l) => l.includes("merchant request refused"))
      .map((l) => JSON.parse(l))
      .filter((e) => e.firm_id === firmId)
      .map((e) => e.check as string);
  }
});
