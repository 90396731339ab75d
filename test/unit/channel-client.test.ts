import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChannelInfo } from "../../src/routing/account-order.js";
import { askIdOf, cleanReason, createChannelClient } from "../../src/routing/channels/http-channel.js";
import { startChannelSimulator } from "../../src/routing/channels/simulator.js";
import { accountCandidate } from "../support/accounts.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

/** Asks go through the same connect-time SSRF guard as callbacks, against a real local server. */
describe("http channel client", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const account = accountCandidate();
  const request = {
    askId: "1:ORD-1",
    amountMinor: 15_000,
    bankCode: "AKBANK",
    method: "fast",
    userId: "U-1",
    fullName: "Ayşe Yılmaz",
  };
  const channelAt = (url: string): ChannelInfo => ({
    id: 1,
    code: "CH",
    kind: "http",
    url,
    secret: "s".repeat(32),
    timeoutMs: 1_000,
  });

  it("never connects to a private address when private targets are not allowed: asks and releases fail", async () => {
    const port = new URL(receiver.url).port;
    const client = createChannelClient({ allowPrivate: false });
    try {
      const before = receiver.received.length;
      for (const url of [
        `http://127.0.0.1:${port}/ask`,
        `http://localhost:${port}/ask`,
        `http://[::ffff:127.0.0.1]:${port}/ask`,
      ]) {
        const asked = await client.ask(channelAt(url), request, account, 1_000);
        expect(asked, url).toMatchObject({ outcome: "fail" });
        expect(asked.outcome === "fail" && asked.reason, url).toMatch(/^address not allowed: /);
        const released = await client.release(channelAt(url), request, account);
        expect(released, url).toMatchObject({
          ok: false,
          reason: expect.stringMatching(/^address not allowed: /),
        });
      }
      expect(receiver.received.length).toBe(before);
    } finally {
      await client.close();
    }
  });

  it("a probe: 200 is up, 4xx unsure (a partner that does not know probes), 5xx, silence or refusal down", async () => {
    const sim = await startChannelSimulator({ behaviour: { kind: "accept" } });
    const client = createChannelClient({ allowPrivate: true });
    const blocked = createChannelClient({ allowPrivate: false });
    try {
      const at = { ...channelAt(sim.url), timeoutMs: 300 };
      expect(await client.probe(at)).toBe("up");
      sim.behave({ kind: "decline" });
      expect(await client.probe(at)).toBe("up");
      sim.behave({ kind: "fail", status: 400 });
      expect(await client.probe(at)).toBe("unsure");
      sim.behave({ kind: "fail", status: 503 });
      expect(await client.probe(at)).toBe("down");
      sim.behave({ kind: "hang" });
      const t0 = Date.now();
      expect(await client.probe(at)).toBe("down");
      expect(Date.now() - t0).toBeLessThan(1_000);
      // A private address, not allowed: refused before connecting, never reaching the partner.
      expect(await blocked.probe(at)).toBe("down");
      expect(sim.probes).toHaveLength(5);
      expect(sim.asks).toHaveLength(0);
      // Stopping the server does not wait for a probe to a channel that hangs.
      const slow = client.probe({ ...at, timeoutMs: 10_000 });
      await expect.poll(() => sim.probes.length).toBe(6);
      const t1 = Date.now();
      await client.close();
      expect(await slow).toBe("down");
      expect(Date.now() - t1).toBeLessThan(1_000);
    } finally {
      await client.close();
      await blocked.close();
      await sim.close();
    }
    const gone = createChannelClient({ allowPrivate: true });
    try {
      expect(await gone.probe(channelAt(sim.url))).toBe("down");
    } finally {
      await gone.close();
    }
  });

  it("each ask's id names the deposit, the account and the amount; a release has its own key", async () => {
    receiver.behave(() => ({ status: 200, body: '{"decision":"accept"}' }));
    const client = createChannelClient({ allowPrivate: true });
    try {
      const before = receiver.received.length;
      const other = accountCandidate(2);
      await client.ask(channelAt(`${receiver.url}/ask`), request, account, 1_000);
      await client.ask(channelAt(`${receiver.url}/ask`), request, other, 1_000);
      await client.ask(channelAt(`${receiver.url}/ask`), { ...request, amountMinor: 25_000 }, account, 1_000);
      await client.release(channelAt(`${receiver.url}/ask`), request, other);
      const sent = receiver.received.slice(before);
      expect(sent.map((r) => JSON.parse(r.body).ask_id)).toEqual([
        `1:ORD-1:${account.id}:15000`,
        "1:ORD-1:2:15000",
        `1:ORD-1:${account.id}:25000`,
        "1:ORD-1:2:15000",
      ]);
      expect(sent.map((r) => r.headers["idempotency-key"])).toEqual([
        `1:ORD-1:${account.id}:15000`,
        "1:ORD-1:2:15000",
        `1:ORD-1:${account.id}:25000`,
        "release:1:ORD-1:2:15000",
      ]);
      expect(askIdOf({ askId: "1:A:2", amountMinor: 3 }, { id: 4 })).not.toBe(
        askIdOf({ askId: "1:A", amountMinor: 4 }, { id: 2 }),
      );
    } finally {
      await client.close();
    }
  });

  it("an answer over 16 KiB is a failure, never read whole; an error status is not read at all", async () => {
    const client = createChannelClient({ allowPrivate: true });
    try {
      receiver.behave(() => ({ status: 200, body: `${" ".repeat(5 * 1024 * 1024)}{"decision":"accept"}` }));
      expect(await client.ask(channelAt(`${receiver.url}/ask`), request, account, 5_000)).toEqual({
        outcome: "fail",
        reason: "answer too large",
      });
      receiver.behave(() => ({ status: 503, body: "x".repeat(1024 * 1024) }));
      expect(await client.ask(channelAt(`${receiver.url}/ask`), request, account, 5_000)).toEqual({
        outcome: "fail",
        reason: "HTTP 503",
      });
    } finally {
      await client.close();
    }
  });

  it("a decline's reason loses control and direction characters and is cut on whole characters", () => {
    expect(cleanReason("limit\u0000 exceeded\u001b[31m \u202Eevil")).toBe("limit exceeded [31m evil");
    const cut = cleanReason(`${"a".repeat(199)}😀😀`);
    expect([...cut]).toHaveLength(200);
    expect(cut.endsWith("😀")).toBe(true);
    expect(cleanReason(42)).toBe("declined");
    expect(cleanReason("\u0000\u0007")).toBe("declined");
  });

  it("asks a private address when allowed (development and tests)", async () => {
    receiver.behave(() => ({ status: 200, body: '{"decision":"accept"}' }));
    const client = createChannelClient({ allowPrivate: true });
    try {
      const asked = await client.ask(channelAt(`${receiver.url}/ask`), request, account, 1_000);
      expect(asked).toEqual({ outcome: "accept" });
    } finally {
      await client.close();
    }
  });
});
