import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createChannelClient } from "../../src/channels/http-channel.js";
import type { ChannelInfo } from "../../src/domain/routing.js";
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
        const released = await client.release(channelAt(url), request.askId);
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
