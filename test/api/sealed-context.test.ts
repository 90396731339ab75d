import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fromBase32, totpCode, totpStep } from "../../src/operators/totp.js";
import { type ChannelSim, startChannelSim } from "../support/channel-sim.js";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, storeEnv, type TestServer } from "../support/harness.js";
import { sealV1 } from "../support/legacy-seal.js";
import {
  addAccount,
  createFirm,
  depositBody,
  pendingDeposit,
  send,
  type TestFirm,
} from "../support/merchant.js";
import { withStore } from "../support/stored.js";

/**
 * Someone who can write the database but not read the master key moves sealed values between rows
 * (docs/adr/0009-sealed-value-context.md): firm A's secret, which A knows, into firm B's row, to
 * sign as B; one transaction's national id into another's; one operator's authenticator secret into
 * another's. None of them opens in its new row: B's requests get the contract's 401, the detail
 * shows no full national id, the code is wrong, the channel is not routed to; no 500, and nobody
 * else's value is shown. Values written by versions before contexts (v1) still open.
 */
const DEPOSITS = "/paymentapi/v1/deposits";
const PASSWORD = "a-long-password-1";
const ID_OF_A = "11111111111";
const ID_OF_B = "22222222222";

describe.each(STORES)("sealed values moved between rows (%s)", (kind) => {
  let own: Awaited<ReturnType<typeof storeEnv>>;
  let server: TestServer;
  let a: TestFirm;
  let b: TestFirm;
  let legacy: TestFirm;
  let depositOfA: number;
  let depositOfB: number;
  let legacyDeposit: number;
  const totp: Record<string, { id: number; secret: string }> = {};

  const start = () => startTestServer(kind, { ...own.env, LOG_LEVEL: "warn" });
  const codeOf = (secret: string) => totpCode(fromBase32(secret), totpStep(server.clock.now()));

  async function withSecondFactor(email: string) {
    const made = await server.admin("POST", "/admin/v1/operators", {
      email,
      role: "viewer",
      password: PASSWORD,
    });
    expect(made.status).toBe(201);
    const s = await consoleLogin(server, email, PASSWORD);
    const started = await consoleCall(server, "POST", "/ops/api/second-factor", {
      cookie: s.cookie,
      csrf: s.csrf,
    });
    const secret = started.json.secret as string;
    const confirmed = await consoleCall(server, "POST", "/ops/api/second-factor/confirm", {
      cookie: s.cookie,
      csrf: s.csrf,
      body: { password: PASSWORD, code: codeOf(secret) },
    });
    expect(confirmed.status).toBe(200);
    totp[email] = { id: made.json.id as number, secret };
  }

  beforeAll(async () => {
    own = await storeEnv(kind);
    server = await start();
    await addAccount(server);
    a = await createFirm(server);
    b = await createFirm(server);
    legacy = await createFirm(server);
    depositOfA = await pendingDeposit(server, a, { national_id: ID_OF_A });
    depositOfB = await pendingDeposit(server, b, { national_id: ID_OF_B });
    legacyDeposit = await pendingDeposit(server, legacy, { national_id: "33333333333" });
    const admin = await server.admin("POST", "/admin/v1/operators", {
      email: "admin@ops.example",
      role: "admin",
      password: PASSWORD,
    });
    expect(admin.status).toBe(201);
    await withSecondFactor("a@ops.example");
    await withSecondFactor("b@ops.example");
    await server.close();

    // The moves, with SQL, while no server runs (the embedded store admits one process).
    const key = Buffer.from(own.env.PAYINTAKE_MASTER_KEY as string, "hex");
    await withStore(own.env, async (store) => {
      const sealedOf = async (table: "firms" | "operators" | "transactions", column: string, id: number) =>
        (
          (await store.db
            .selectFrom(table)
            .select(column as "id")
            .where("id", "=", id)
            .executeTakeFirstOrThrow()) as unknown as Record<string, string>
        )[column] as string;
      const firmSecretOfA = await sealedOf("firms", "secret_sealed", a.id);
      expect(firmSecretOfA.startsWith("v2:")).toBe(true);
      await store.db
        .updateTable("firms")
        .set({ secret_sealed: firmSecretOfA })
        .where("id", "=", b.id)
        .execute();
      await store.db
        .updateTable("transactions")
        .set({ national_id_sealed: await sealedOf("transactions", "national_id_sealed", depositOfB) })
        .where("id", "=", depositOfA)
        .execute();
      const opA = totp["a@ops.example"]?.id as number;
      const opB = totp["b@ops.example"]?.id as number;
      await store.db
        .updateTable("operators")
        .set({ totp_sealed: await sealedOf("operators", "totp_sealed", opA) })
        .where("id", "=", opB)
        .execute();
      // As a version before sealing contexts wrote them: still to open.
      await store.db
        .updateTable("firms")
        .set({ secret_sealed: sealV1(key, legacy.secret) })
        .where("id", "=", legacy.id)
        .execute();
      await store.db
        .updateTable("transactions")
        .set({ national_id_sealed: sealV1(key, "33333333333") })
        .where("id", "=", legacyDeposit)
        .execute();
    });
    server = await start();
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await own?.cleanup();
  });

  it("firm A's secret copied into firm B's row does not sign as B: 401 Invalid signature, every time, logged once", async () => {
    const asBWithSecretOfA = { ...b, secret: a.secret };
    for (const firm of [asBWithSecretOfA, asBWithSecretOfA, b]) {
      const res = await send(server, firm, { path: DEPOSITS, body: depositBody() });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ success: false, message: "Invalid signature" });
    }
    expect((await server.admin("GET", `/admin/v1/transactions?firm=${b.id}`)).json).toHaveLength(1);
    // A is untouched.
    expect((await send(server, a, { path: DEPOSITS, body: depositBody() })).status).toBe(200);
    const told = server.logs.filter((l) => l.includes("sealed secret key does not open"));
    expect(told).toHaveLength(1);
    expect(JSON.parse(told[0] as string)).toMatchObject({ firmId: b.id });
    for (const secret of [a.secret, b.secret]) expect(server.logs.join("\n")).not.toContain(secret);

    // An operator's way out: a new secret for B, sealed for B's row.
    const rotated = await server.admin("POST", `/admin/v1/firms/${b.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    const renewed = { ...b, secret: rotated.json.secret_key as string };
    expect((await send(server, renewed, { path: DEPOSITS, body: depositBody() })).status).toBe(200);
  });

  it("a national id copied into another transaction is not shown there: the masked one, never the other's, no 500", async () => {
    const admin = await consoleLogin(server, "admin@ops.example", PASSWORD);
    expect(admin.res.status).toBe(200);
    const reveal = (id: number) =>
      consoleCall(server, "POST", `/ops/api/transactions/${id}/national-id`, {
        cookie: admin.cookie,
        csrf: admin.csrf,
      });
    const moved = await reveal(depositOfA);
    expect(moved.status).toBe(200);
    expect(moved.json).toEqual({ national_id_full: null });
    const detail = await consoleCall(server, "GET", `/ops/api/transactions/${depositOfA}`, {
      cookie: admin.cookie,
    });
    expect(detail.json).toMatchObject({ id: depositOfA, national_id: "11***11" });
    expect(JSON.stringify(detail.json)).not.toContain(ID_OF_B);
    // Its own row still shows it; so does one an older version sealed (v1).
    expect((await reveal(depositOfB)).json.national_id_full).toBe(ID_OF_B);
    expect((await reveal(legacyDeposit)).json.national_id_full).toBe("33333333333");
  });

  it("an operator's authenticator secret copied into another's row: no code from it signs in there", async () => {
    const opA = totp["a@ops.example"] as { secret: string };
    // A step no code was taken at yet (each is taken once): only the moved secret is in the way.
    server.clock.advance(30_000);
    const wrong = await consoleLogin(server, "b@ops.example", PASSWORD, codeOf(opA.secret));
    expect(wrong.res.status).toBe(401);
    expect(wrong.res.json).toMatchObject({ message: "Wrong or already used code" });
    expect((await consoleLogin(server, "a@ops.example", PASSWORD, codeOf(opA.secret))).res.status).toBe(200);
  });

  it("a firm secret written before contexts (v1) still signs", async () => {
    const res = await send(server, legacy, { path: DEPOSITS, body: depositBody() });
    expect(res.status).toBe(200);
  });
});

describe.each(STORES)("a channel secret moved to another channel's row (%s)", (kind) => {
  let own: Awaited<ReturnType<typeof storeEnv>>;
  let server: TestServer;
  const sims: ChannelSim[] = [];
  const secrets: Record<string, string> = {};
  const channelIds: Record<string, number> = {};

  const start = () => startTestServer(kind, { ...own.env, LOG_LEVEL: "warn" });

  beforeAll(async () => {
    own = await storeEnv(kind);
    server = await start();
    for (const [code, iban] of [
      ["CHA", "TR200000000000000000000001"],
      ["CHB", "TR900000000000000000000002"],
    ] as const) {
      const sim = await startChannelSim({ kind: "accept" });
      sims.push(sim);
      const made = await server.admin("POST", "/admin/v1/channels", {
        code,
        kind: "http",
        url: sim.url,
        timeout_ms: 400,
      });
      expect(made.status).toBe(201);
      secrets[code] = made.json.secret as string;
      channelIds[code] = made.json.id as number;
      const account = await server.admin("POST", "/admin/v1/accounts", {
        bank_name: `Bank ${code}`,
        holder_name: "Holder",
        iban,
        channel: code,
      });
      expect(account.status).toBe(201);
    }
    await server.close();
    await withStore(own.env, async (store) => {
      const ofA = await store.db
        .selectFrom("channels")
        .select("secret_sealed")
        .where("id", "=", channelIds.CHA as number)
        .executeTakeFirstOrThrow();
      await store.db
        .updateTable("channels")
        .set({ secret_sealed: ofA.secret_sealed })
        .where("id", "=", channelIds.CHB as number)
        .execute();
    });
    server = await start();
  }, 60_000);
  afterAll(async () => {
    for (const s of sims.splice(0)) await s.close();
    await server?.close();
    await own?.cleanup();
  });

  it("is left out of routing: deposits go to the other channel's account, never a 500; logged once", async () => {
    const firm = await createFirm(server);
    const [simA, simB] = sims as [ChannelSim, ChannelSim];
    for (let i = 0; i < 4; i++) {
      const res = await send(server, firm, { path: DEPOSITS, body: depositBody() });
      expect(res.status).toBe(200);
      expect(res.json.assigned_iban).toBe("TR200000000000000000000001");
    }
    expect(simB.asks).toHaveLength(0);
    expect(simA.asks).toHaveLength(4);
    expect(simA.asks.every((ask) => simA.verify(ask, secrets.CHA as string))).toBe(true);
    expect(server.logs.filter((l) => l.includes("channel's sealed secret does not open"))).toHaveLength(1);
  });
});
