import { afterEach, describe, expect, it } from "vitest";
import { turkishIbanFor } from "../../src/domain/iban.js";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import {
  type Answer,
  addAccount,
  createFirm,
  depositBody,
  type FirmOptions,
  send,
  type TestFirm,
} from "../support/merchant.js";

const NO_ACCOUNT = '{"success":false,"message":"Bu tutar icin uygun hesap yok"}';
const IBANS = [turkishIbanFor("0006100519786457841301"), turkishIbanFor("0006100519786457841302")];

/**
 * Fair shares of the accounts' daily caps (issue 45, docs/adr/0014-default-cap-share.md): a firm
 * without its own `max_cap_share` takes at most the service's default share of each capped account's
 * day while other live firms share the pool; a firm alone on it has the whole cap.
 */
describe.each(STORES)("default share of each account's daily cap (%s)", (kind) => {
  const servers: TestServer[] = [];

  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  /** A server with two accounts, each capped at `cap` a day. */
  async function pool(cap: string, env: Record<string, string> = {}) {
    const started = await startTestServer(kind, { LOG_LEVEL: "warn", ...env });
    servers.push(started);
    for (const iban of IBANS) await addAccount(started, { iban, daily_cap: cap });
    return started;
  }
  /**
   * `count` deposits of the firm, `together` at a time: one at a time the accounts take turns, so
   * each takes half; together, the caps' holds judge those in flight against each other.
   */
  async function deposits(s: TestServer, firm: TestFirm, count: number, amount: string, together = 1) {
    const answers: Answer[] = [];
    for (let i = 0; i < count; i += together) {
      const batch = Array.from({ length: Math.min(together, count - i) }, () =>
        send(s, firm, { path: "/paymentapi/v1/deposits", body: depositBody({ amount }) }),
      );
      answers.push(...(await Promise.all(batch)));
    }
    for (const r of answers) if (r.status !== 200) expect(r.text).toBe(NO_ACCOUNT);
    const ok = answers.filter((r) => r.status === 200);
    return {
      accepted: ok.length,
      perAccount: IBANS.map((iban) => ok.filter((r) => r.json.assigned_iban === iban).length),
    };
  }
  const firmOf = (s: TestServer, opts: FirmOptions = {}) => createFirm(s, opts);

  it("stops one firm's 1,000 TL deposits at half of each 50,000 TL account; another firm's 10 TL deposit still gets one", async () => {
    const s = await pool("50000.00");
    const a = await firmOf(s);
    const b = await firmOf(s);
    // Before: 100 of the 110 went through, and firm B's deposit had no account.
    const taken = await deposits(s, a, 110, "1000.00", 10);
    expect(taken).toEqual({ accepted: 50, perAccount: [25, 25] });
    const other = await send(s, b, {
      path: "/paymentapi/v1/deposits",
      body: depositBody({ amount: "10.00" }),
    });
    expect(other.status).toBe(200);
    expect(IBANS).toContain(other.json.assigned_iban);
  });

  it("leaves a single firm's deployment the whole of each cap", async () => {
    const s = await pool("10000.00");
    const only = await firmOf(s);
    expect(await deposits(s, only, 22, "1000.00", 5)).toEqual({ accepted: 20, perAccount: [10, 10] });
  });

  it("leaves a firm alone on the pool the whole cap; a test firm or one closed to deposits does not share it; a new live firm does at once", async () => {
    const s = await pool("10000.00");
    const a = await firmOf(s);
    await firmOf(s, { sandbox: true });
    const closed = await firmOf(s);
    expect((await s.admin("PATCH", `/admin/v1/firms/${closed.id}`, { deposits: "closed" })).status).toBe(200);
    expect(await deposits(s, a, 14, "1000.00")).toEqual({ accepted: 14, perAccount: [7, 7] });
    // A second live firm: firm A, past half of each account already, takes nothing more of them.
    const b = await firmOf(s);
    expect((await deposits(s, a, 2, "1000.00")).accepted).toBe(0);
    expect(await deposits(s, b, 4, "1000.00")).toEqual({ accepted: 4, perAccount: [2, 2] });
    // Closed again for B: A is alone once more and fills the rest.
    expect((await s.admin("PATCH", `/admin/v1/firms/${b.id}`, { deposits: "closed" })).status).toBe(200);
    expect((await deposits(s, a, 4, "1000.00")).accepted).toBe(2);
  });

  it("gives a firm its own max_cap_share over the default: a smaller or larger share, and 100 for the whole cap", async () => {
    const s = await pool("10000.00");
    const larger = await firmOf(s, { max_cap_share: 80 });
    const others = await firmOf(s);
    expect(await deposits(s, larger, 20, "1000.00")).toEqual({ accepted: 16, perAccount: [8, 8] });
    expect(await deposits(s, others, 6, "1000.00")).toEqual({ accepted: 4, perAccount: [2, 2] });

    const t = await pool("10000.00");
    const whole = await firmOf(t, { max_cap_share: 100 });
    const smaller = await firmOf(t, { max_cap_share: 20 });
    expect(await deposits(t, smaller, 6, "1000.00")).toEqual({ accepted: 4, perAccount: [2, 2] });
    expect(await deposits(t, whole, 20, "1000.00")).toEqual({ accepted: 16, perAccount: [8, 8] });
  });

  it("takes the admin's default share from PAYINTAKE_DEFAULT_CAP_SHARE, and tells the console; 100 turns it off", async () => {
    const s = await pool("10000.00", { PAYINTAKE_DEFAULT_CAP_SHARE: "30" });
    const a = await firmOf(s);
    await firmOf(s);
    expect(await deposits(s, a, 10, "1000.00")).toEqual({ accepted: 6, perAccount: [3, 3] });
    // The firm form says what an empty share means with the console's other settings.
    const email = "share@ops.example";
    await s.admin("POST", "/admin/v1/operators", { email, role: "admin", password: "share-password-123" });
    const signedIn = await consoleLogin(s, email, "share-password-123");
    expect(signedIn.res.json.default_cap_share).toBe(30);
    const me = await consoleCall(s, "GET", "/ops/api/me", signedIn);
    expect(me.json.default_cap_share).toBe(30);

    const t = await pool("10000.00", { PAYINTAKE_DEFAULT_CAP_SHARE: "100" });
    const first = await firmOf(t);
    await firmOf(t);
    expect(await deposits(t, first, 22, "1000.00")).toEqual({ accepted: 20, perAccount: [10, 10] });
  });
});
