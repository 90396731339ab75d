import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleCall, consoleLogin } from "../support/console.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";

/**
 * Sign-in attempts from many addresses at once (each address may try twenty in 15 minutes; an IPv6
 * /48 holds 65,536 /64s), as an attacker without any account sends them. Each checks a password
 * (scrypt); before, all of them queued, each holding its connection, and an operator's own sign-in
 * waited behind every one.
 */
describe.each(STORES)("console sign-in under a flood of attempts (%s)", (kind) => {
  let server: TestServer;

  beforeAll(async () => {
    // Addresses as a reverse proxy on loopback passes them, so each attempt comes from its own.
    // At the service's scrypt cost: the flood is made of password checks' time.
    server = await startTestServer(
      kind,
      { LOG_LEVEL: "warn", PAYINTAKE_TRUST_PROXY: "127.0.0.1" },
      { fullPasswordCost: true },
    );
    await server.admin("POST", "/admin/v1/operators", {
      email: "desk@flood.example",
      role: "operator",
      password: "desk-password-123",
    });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("past 32 sign-ins under way, one is refused at once (503, Retry-After); the operator signs in after", async () => {
    const answers = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        consoleCall(server, "POST", "/ops/api/login", {
          body: { email: `nobody${i}@flood.example`, password: "Password123!" },
          headers: { "x-forwarded-for": `198.51.${Math.floor(i / 250)}.${(i % 250) + 1}` },
        }),
      ),
    );
    const busy = answers.filter((a) => a.status === 503);
    expect(answers.filter((a) => a.status !== 503 && a.status !== 401)).toEqual([]);
    expect(busy.length).toBeGreaterThan(0);
    expect(busy[0]?.json.message).toBe("Sign-in is busy; try again in a few seconds");
    expect(busy[0]?.headers["retry-after"]).toBe("2");
    expect((await consoleLogin(server, "desk@flood.example", "desk-password-123")).res.status).toBe(200);
  });

  it("during such a flood an operator at a browser they signed in from before still gets in; a stranger's browser is refused", async () => {
    const before = await consoleLogin(server, "desk@flood.example", "desk-password-123");
    expect(before.res.status).toBe(200);
    let full: () => void = () => {};
    const capFull = new Promise<void>((resolve) => {
      full = resolve;
    });
    const flood = Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        consoleCall(server, "POST", "/ops/api/login", {
          body: { email: `stranger${i}@flood.example`, password: "Password123!" },
          headers: { "x-forwarded-for": `203.0.${Math.floor(i / 250)}.${(i % 250) + 1}` },
        }).then((answer) => {
          if (answer.status === 503) full();
          return answer;
        }),
      ),
    );
    // The first refusal: every place is taken, and the checks under way last a second or more.
    await capFull;
    const [known, stranger, forged] = await Promise.all([
      consoleLogin(server, "desk@flood.example", "desk-password-123", undefined, before.device),
      consoleLogin(server, "desk@flood.example", "desk-password-123"),
      // A cookie of the right shape that no operator signed in with opens no place either.
      consoleLogin(
        server,
        "desk@flood.example",
        "desk-password-123",
        undefined,
        `payintake_device=${"A".repeat(43)}`,
      ),
    ]);
    expect(known.res.status).toBe(200);
    expect(stranger.res.status).toBe(503);
    expect(forged.res.status).toBe(503);
    expect((await flood).filter((a) => a.status !== 503 && a.status !== 401)).toEqual([]);
  });
});
