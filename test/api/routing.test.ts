import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { turkishIbanFor } from "../../src/domain/iban.js";
import { startOfTurkeyDay } from "../../src/domain/turkey-time.js";
import { type ChannelSim, startChannelSim } from "../support/channel-sim.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { createFirm, depositBody, send, type TestFirm } from "../support/merchant.js";

const DECLINED = '{"success":false,"message":"Ödeme kanalı talebi kabul etmedi"}';
const NO_ACCOUNT = '{"success":false,"message":"Bu tutar icin uygun hesap yok"}';

describe.each(STORES)("routing across payment channels (%s)", (kind) => {
  let server: TestServer;
  let firm: TestFirm;
  const sims: ChannelSim[] = [];

  beforeEach(async () => {
    server = await startTestServer(kind, { LOG_LEVEL: "warn", PAYINTAKE_ROUTING_DEADLINE_MS: "2000" });
    firm = await createFirm(server);
  });
  afterEach(async () => {
    for (const s of sims.splice(0)) await s.close();
    await server?.close();
  });

  async function channel(code: string, behaviour: Parameters<typeof startChannelSim>[0], timeoutMs = 400) {
    const sim = await startChannelSim(behaviour);
    sims.push(sim);
    const res = await server.admin("POST", "/admin/v1/channels", {
      code,
      kind: "http",
      url: sim.url,
      timeout_ms: timeoutMs,
    });
    expect(res.status).toBe(201);
    return { sim, secret: res.json.secret as string, id: res.json.id as number };
  }
  async function account(channelCode: string | null, iban: string, extra: Record<string, unknown> = {}) {
    const res = await server.admin("POST", "/admin/v1/accounts", {
      bank_name: `Bank ${iban.slice(-2)}`,
      holder_name: "Holder",
      iban,
      channel: channelCode,
      ...extra,
    });
    expect(res.status).toBe(201);
    return res.json.id as number;
  }
  async function deposit(overrides: Record<string, unknown> = {}) {
    const body = depositBody(overrides);
    const t0 = Date.now();
    const res = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    return { res, ms: Date.now() - t0, body };
  }
  async function routingOf(reference: string) {
    const q = await send(server, firm, { path: `/paymentapi/v1/transactions/by-reference/${reference}` });
    expect(q.status).toBe(200);
    expect(q.text).not.toContain("routing");
    return (await server.admin("GET", `/admin/v1/transactions/${q.json.data.id}`)).json.routing;
  }

  it("asks the channel, signed, with an idempotency key per reference, account and amount; an accepting channel serves", async () => {
    const a = await channel("CHA", { kind: "accept" });
    const acc = await account("CHA", "TR200000000000000000000001");
    const { res, body } = await deposit();
    expect(res.status).toBe(200);
    expect(res.json.assigned_iban).toBe("TR200000000000000000000001");
    const [ask] = a.sim.asks;
    expect(a.sim.verify(ask as never, a.secret)).toBe(true);
    // The deposit, the account and the amount (in kuruş): an answer fits only the ask it answers.
    expect(ask?.headers["idempotency-key"]).toBe(`${firm.id}:${body.reference}:${acc}:15000`);
    expect(ask?.body).toMatchObject({
      ask_id: `${firm.id}:${body.reference}:${acc}:15000`,
      amount: "150.00",
      bank_code: "AKBANK",
    });
    expect(await routingOf(body.reference as string)).toEqual([
      expect.objectContaining({ channel: "CHA", outcome: "accepted" }),
    ]);
  });

  it("a rotated channel secret signs the next ask at once; the old one no longer does; audited, shown once", async () => {
    const a = await channel("ROT", { kind: "accept" });
    await account("ROT", "TR630000000000000000000003", { bank_code: "ROTBANK" });
    expect((await deposit({ bank_code: "ROTBANK" })).res.status).toBe(200);
    const rotated = await server.admin("POST", "/admin/v1/channels/ROT/rotate-secret");
    expect(rotated.status).toBe(200);
    const fresh = rotated.json.secret as string;
    expect(fresh).toMatch(/^sk_/);
    expect(fresh).not.toBe(a.secret);
    expect((await deposit({ bank_code: "ROTBANK" })).res.status).toBe(200);
    const last = a.sim.asks.at(-1);
    expect(a.sim.verify(last as never, fresh)).toBe(true);
    expect(a.sim.verify(last as never, a.secret)).toBe(false);
    // Never shown again, nor in the audit log.
    expect(JSON.stringify((await server.admin("GET", "/admin/v1/channels")).json)).not.toContain(fresh);
    const audit = (await server.admin("GET", "/admin/v1/audit?action=channel.rotate_secret")).json;
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(fresh);
    // A manual channel has no secret to rotate.
    await server.admin("POST", "/admin/v1/channels", { code: "MANROT", kind: "manual" });
    const manual = await server.admin("POST", "/admin/v1/channels/MANROT/rotate-secret");
    expect(manual.status).toBe(400);
    expect(manual.json.message).toBe("only an http channel has a secret");
  });

  it("names the payer to the channel as first + middle + last when a valid middle name came", async () => {
    const a = await channel("NAME", { kind: "accept" });
    await account("NAME", "TR900000000000000000000002");
    const cases = [
      { middle_name: "  Nur ", full: "Ayşe Nur Yılmaz" },
      { middle_name: "yok", full: "Ayşe Yılmaz" },
      { middle_name: undefined, full: "Ayşe Yılmaz" },
    ];
    for (const c of cases) {
      const { res } = await deposit({ first_name: "Ayşe", last_name: "Yılmaz", middle_name: c.middle_name });
      expect(res.status).toBe(200);
      const ask = a.sim.asks.filter((x) => x.body.action === "ask").at(-1);
      expect(ask?.body.payer).toMatchObject({ full_name: c.full });
    }
  });

  it("first channel hangs: the second serves it after the first one's timeout; then the breaker skips the dead one", async () => {
    const deadSim = (await channel("DEAD", { kind: "hang" }, 300)).sim;
    await channel("LIVE", { kind: "accept" });
    await account("DEAD", "TR410000000000000000000011", { bank_code: "AKBANK" });
    await account("LIVE", "TR140000000000000000000012");
    // bank_code AKBANK prefers the DEAD channel's account: it is always tried first.
    for (let i = 0; i < 3; i++) {
      const { res, ms, body } = await deposit();
      expect(res.status).toBe(200);
      expect(res.json.assigned_iban).toBe("TR140000000000000000000012");
      expect(ms).toBeGreaterThanOrEqual(280);
      expect(ms).toBeLessThan(1_500);
      const log = await routingOf(body.reference as string);
      expect(log.map((s: { outcome: string }) => s.outcome)).toEqual(["failed", "accepted"]);
      expect(log[0].reason).toBe("timed out after 300 ms");
    }
    // Each ask that timed out is let go: the channel may have reserved it all the same.
    await vi.waitFor(() => {
      const asked = deadSim.asks.filter((x) => x.body.action === "ask").map((x) => x.body.ask_id);
      const released = deadSim.asks.filter((x) => x.body.action === "release").map((x) => x.body.ask_id);
      expect(asked).toHaveLength(3);
      expect(released.sort()).toEqual(asked.sort());
    });
    // Three failures in a row opened the breaker: no more waiting for the dead channel.
    const { res, ms, body } = await deposit();
    expect(res.status).toBe(200);
    expect(ms).toBeLessThan(250);
    const log = await routingOf(body.reference as string);
    expect(log[0]).toMatchObject({ channel: "DEAD", outcome: "skipped", reason: "channel breaker open" });
    const channels = (await server.admin("GET", "/admin/v1/channels")).json;
    const dead = channels.find((c: { code: string }) => c.code === "DEAD");
    expect(dead.breaker).toBe("open");
    // The opening is in the audit log, by the service, once (the skips after it are not news).
    await vi.waitFor(async () => {
      const audit = (await server.admin("GET", "/admin/v1/audit?action=channel.breaker_open")).json;
      expect(audit).toEqual([
        expect.objectContaining({
          actor: "service:breaker",
          entity_type: "channel",
          entity_id: String(dead.id),
          before: { breaker: "closed", code: "DEAD" },
          after: { breaker: "open", code: "DEAD" },
        }),
      ]);
    });
  });

  it("a channel that is back is found by a probe in the background after the cool-down; no payer waits for it meanwhile", async () => {
    // A timeout well above a deposit's own time on a loaded machine, so that a deposit that waited
    // for this channel stands out from one that did not (with 300 ms, a busy suite ran a plain
    // deposit in 302 ms).
    const back = await channel("BACK", { kind: "hang" }, 1_500);
    await channel("SPARE", { kind: "accept" });
    await account("BACK", "TR830000000000000000000031", { bank_code: "AKBANK" });
    await account("SPARE", "TR560000000000000000000032");
    for (let i = 0; i < 3; i++) expect((await deposit()).res.status).toBe(200);
    const openedAt = Date.now();
    back.sim.behave({ kind: "accept" });
    // Every deposit until the probe skips the channel without waiting, those after the cool-down
    // too (before, the first one after each cool-down was the probe and waited for the channel).
    const waits: number[] = [];
    let servedByBack = 0;
    while (back.sim.probes.length === 0) {
      expect(Date.now() - openedAt).toBeLessThan(15_000);
      const { res, ms } = await deposit();
      expect(res.status).toBe(200);
      waits.push(ms);
      // The probe may go out (and close the breaker) while a deposit is being routed: only then may
      // a deposit reach the channel again.
      if (res.json.assigned_iban === "TR830000000000000000000031") {
        expect(back.sim.probes.length).toBeGreaterThan(0);
        servedByBack = 1;
        break;
      }
      expect(res.json.assigned_iban).toBe("TR560000000000000000000032");
      // Deposits paced through the cool-down, which the router times by the monotonic clock.
      await new Promise((resolve) => setTimeout(resolve, 400));
    }
    expect(Date.now() - openedAt).toBeGreaterThanOrEqual(9_500);
    expect(Math.max(...waits)).toBeLessThan(1_000);
    // The three that opened the breaker, and the deposit the probe's closing let through, if any.
    expect(back.sim.asks.filter((a) => a.body.action === "ask")).toHaveLength(3 + servedByBack);
    // The probe is signed like an ask and carries no payer and no account.
    const [probe] = back.sim.probes;
    expect(probe?.body).toEqual({ action: "probe" });
    expect(back.sim.verify(probe as never, back.secret)).toBe(true);
    expect(probe?.headers["idempotency-key"]).toMatch(/^probe:[0-9a-f]{16}$/);
    await vi.waitFor(async () => {
      const channels = (await server.admin("GET", "/admin/v1/channels")).json;
      expect(channels.find((c: { code: string }) => c.code === "BACK").breaker).toBe("closed");
    });
    const { res } = await deposit();
    expect(res.json.assigned_iban).toBe("TR830000000000000000000031");
    await vi.waitFor(async () => {
      const audit = (await server.admin("GET", "/admin/v1/audit?action=channel.breaker_close")).json;
      expect(audit).toEqual([
        expect.objectContaining({ actor: "service:breaker", after: { breaker: "closed", code: "BACK" } }),
      ]);
    });
  }, 30_000);

  it.runIf(kind === "postgres")(
    "a breaker that opens on one instance opens on the others on one PostgreSQL: their payers do not wait to learn it",
    async () => {
      const second = await startTestServer(
        kind,
        { LOG_LEVEL: "warn", PAYINTAKE_ROUTING_DEADLINE_MS: "2000" },
        { shareStoreOf: server },
      );
      try {
        const down = await channel("DOWN", { kind: "hang" }, 300);
        await channel("UP", { kind: "accept" });
        await account("DOWN", "TR070000000000000000000041", { bank_code: "AKBANK" });
        await account("UP", "TR770000000000000000000042");
        for (let i = 0; i < 3; i++) expect((await deposit()).ms).toBeGreaterThanOrEqual(280);
        await vi.waitFor(async () => {
          const channels = (await second.admin("GET", "/admin/v1/channels")).json;
          expect(channels.find((c: { code: string }) => c.code === "DOWN").breaker).toBe("open");
        });
        const res = await send(second, firm, { path: "/paymentapi/v1/deposits", body: depositBody() });
        expect(res.status).toBe(200);
        expect(res.json.assigned_iban).toBe("TR770000000000000000000042");
        // The payer did not wait to learn it: the second instance never asked the hanging channel
        // (an ask would be the fourth, and wait out its 300 ms). Counted, not timed: a busy machine
        // answers a deposit in more than the 250 ms this once measured.
        expect(down.sim.asks.filter((a) => a.body.action === "ask")).toHaveLength(3);
        // Opened once, audited once: by the instance whose asks failed.
        const audit = (await server.admin("GET", "/admin/v1/audit?action=channel.breaker_open")).json;
        expect(audit).toHaveLength(1);
      } finally {
        await second.close();
      }
    },
  );

  it("a decline with no other account: 422 with the contract's text, no transaction, the reference free to retry", async () => {
    const a = await channel("DECL", { kind: "decline", reason: "payer over limit" });
    const acc = await account("DECL", "TR620000000000000000000021");
    const { res, body } = await deposit();
    expect(res.status).toBe(422);
    expect(res.text).toBe(DECLINED);
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${body.reference}`,
    });
    expect(q.status).toBe(404);
    a.sim.behave({ kind: "accept" });
    const again = await send(server, firm, { path: "/paymentapi/v1/deposits", body });
    expect(again.status).toBe(200);
    expect(a.sim.asks.map((x) => x.headers["idempotency-key"])).toEqual([
      `${firm.id}:${body.reference}:${acc}:15000`,
      `${firm.id}:${body.reference}:${acc}:15000`,
    ]);
  });

  it("a decline is answered 200 in legacy mode; a decline then another account serves normally", async () => {
    const legacy = await createFirm(server, { legacy_http: true });
    await channel("DECL2", { kind: "decline" });
    await account("DECL2", "TR830000000000000000000031");
    const body = depositBody();
    const res = await send(server, legacy, { path: "/paymentapi/v1/deposits", body });
    expect(res.status).toBe(200);
    expect(res.text).toBe(DECLINED);
    await account(null, "TR560000000000000000000032");
    const served = await deposit();
    expect(served.res.status).toBe(200);
  });

  it("channels that fail (5xx, malformed) with no other account: 422 no account, no transaction", async () => {
    await channel("FAIL", { kind: "fail", status: 503 });
    await account("FAIL", "TR070000000000000000000041");
    const { res } = await deposit();
    expect(res.status).toBe(422);
    expect(res.text).toBe(NO_ACCOUNT);
  });

  it("a daily cap takes the account out of routing once this deposit would exceed it; rejected deposits do not count", async () => {
    const capped = await account(null, "TR280000000000000000000051", {
      bank_code: "AKBANK",
      daily_cap: "200.00",
    });
    await account(null, "TR980000000000000000000052");
    const first = await deposit();
    expect(first.res.json.assigned_iban).toBe("TR280000000000000000000051");
    const second = await deposit();
    expect(second.res.json.assigned_iban).toBe("TR980000000000000000000052");
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${first.body.reference}`,
    });
    expect(
      (await server.admin("POST", `/admin/v1/transactions/${q.json.data.id}/reject`, { actor: "operator:t" }))
        .status,
    ).toBe(200);
    const third = await deposit({ amount: "200.00" });
    expect(third.res.json.assigned_iban).toBe("TR280000000000000000000051");
    const accounts = (await server.admin("GET", "/admin/v1/accounts")).json;
    expect(accounts.find((a: { id: number }) => a.id === capped).daily_cap).toBe("200.00");
  });

  it("deposits routed at the same moment through a slow channel cannot all pass a daily cap; the ones over it are released", async () => {
    const slow = await channel("CAPSLOW", { kind: "accept", delayMs: 300 });
    await account("CAPSLOW", "TR910000000000000000000081", { bank_code: "CAPBANK", daily_cap: "300.00" });
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => deposit({ bank_code: "CAPBANK", amount: "150.00" })),
    );
    // Before: all five (750.00 against 300.00): each saw the account's total before any was written.
    expect(answers.filter((a) => a.res.status === 200)).toHaveLength(2);
    const refused = answers.filter((a) => a.res.status !== 200);
    expect(refused.every((a) => a.res.status === 422 && a.res.text === NO_ACCOUNT)).toBe(true);
    // The asks of the refused ones were let go, and their routing says why.
    await vi.waitFor(() => {
      expect(slow.sim.asks.filter((x) => x.body.action === "release")).toHaveLength(3);
    });
    expect([...slow.sim.reservations.values()].reduce((n, v) => n + v, 0)).toBe(2);
  });

  it("a deposit whose ask runs past Istanbul midnight counts against the new day's cap, not the old one's", async () => {
    await channel("MIDNIGHT", { kind: "accept", delayMs: 800 }, 1_500);
    await account("MIDNIGHT", "TR150000000000000000000091", { bank_code: "MIDBANK", daily_cap: "250.00" });
    const midnight = (at: number) => startOfTurkeyDay(at) + 86_400_000;
    // Yesterday (Istanbul): 150.00 of the 250.00 taken.
    server.clock.advance(midnight(server.clock.now()) - 3_000 - server.clock.now());
    expect((await deposit({ bank_code: "MIDBANK", amount: "150.00" })).res.status).toBe(200);
    // Two more of 100.00 arrive 0.4 s before midnight; each passes the first look (150 + 100 of 250),
    // and the channel answers after midnight. Judged against yesterday, the second was refused.
    server.clock.advance(midnight(server.clock.now()) - 400 - server.clock.now());
    const late = await Promise.all([
      deposit({ bank_code: "MIDBANK", amount: "100.00" }),
      deposit({ bank_code: "MIDBANK", amount: "100.00" }),
    ]);
    expect(late.map((d) => d.res.status)).toEqual([200, 200]);
    for (const d of late) {
      const q = await send(server, firm, {
        path: `/paymentapi/v1/transactions/by-reference/${d.body.reference}`,
      });
      expect(startOfTurkeyDay(Date.parse(q.json.data.created_at))).toBe(startOfTurkeyDay(server.clock.now()));
    }
  });

  it("an accepted ask whose deposit loses the one-pending race is released; the winner's is kept", async () => {
    const a = await channel("RACE", { kind: "accept", delayMs: 30 });
    await account("RACE", "TR490000000000000000000061");
    const userId = "racer-1";
    const answers = await Promise.all(
      Array.from({ length: 12 }, () =>
        send(server, firm, { path: "/paymentapi/v1/deposits", body: depositBody({ user_id: userId }) }),
      ),
    );
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    const asked = a.sim.asks.filter((x) => x.body.action === "ask").map((x) => x.body.ask_id);
    const released = a.sim.asks.filter((x) => x.body.action === "release").map((x) => x.body.ask_id);
    expect(asked.length).toBeGreaterThan(1);
    expect(released).toHaveLength(asked.length - 1);
    const winner = asked.find((id) => !released.includes(id));
    const q = await send(server, firm, {
      path: `/paymentapi/v1/transactions/by-reference/${winner?.split(":")[1]}`,
    });
    expect(q.status).toBe(200);
    for (const r of a.sim.asks.filter((x) => x.body.action === "release"))
      expect(a.sim.verify(r, a.secret)).toBe(true);
  });

  it("ten concurrent deposits with one reference: one transaction, one reservation at the channel, nothing released", async () => {
    const a = await channel("ONCE", { kind: "accept", delayMs: 20 });
    const acc = await account("ONCE", "TR700000000000000000000071");
    const body = depositBody();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => send(server, firm, { path: "/paymentapi/v1/deposits", body })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect(answers.filter((r) => r.status !== 200).every((r) => r.status === 409)).toBe(true);
    expect([...a.sim.reservations.entries()]).toEqual([[`${firm.id}:${body.reference}:${acc}:15000`, 1]]);
    expect(a.sim.asks.filter((x) => x.body.action === "release")).toHaveLength(0);
  });

  it("never takes longer than the routing deadline, however many channels hang", async () => {
    for (const code of ["H1", "H2", "H3", "H4"]) {
      await channel(code, { kind: "hang" }, 900);
      await account(code, turkishIbanFor(`0000000000000000000${code.slice(1)}5`.padStart(22, "0")));
    }
    const { res, ms } = await deposit();
    expect(res.status).toBe(422);
    expect(ms).toBeLessThan(2_600);
    expect(ms).toBeGreaterThanOrEqual(1_900);
  });
});
