import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCallbackSender } from "../../src/callbacks/sender.js";
import { type Receiver, startReceiver } from "../support/receiver.js";

/** The send-time SSRF guard and the limits of one attempt, against a real local receiver. */
describe("callback sender", () => {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver.close();
  });

  const guarded = () =>
    createCallbackSender({ allowPrivate: false, timeoutMs: 1_000, perOrigin: 8, now: Date.now });
  const open = (timeoutMs = 1_000) =>
    createCallbackSender({ allowPrivate: true, timeoutMs, perOrigin: 8, now: Date.now });

  it("refuses the address actually connected to when it is not public: literal, name, IPv4-mapped IPv6", async () => {
    const port = new URL(receiver.url).port;
    const sender = guarded();
    try {
      const before = receiver.received.length;
      for (const url of [
        `http://127.0.0.1:${port}/cb`,
        `http://localhost:${port}/cb`,
        `http://[::ffff:127.0.0.1]:${port}/cb`,
        `http://2130706433:${port}/cb`,
      ]) {
        const r = await sender.send(url, "{}", { "content-type": "application/json" });
        expect(r.status, url).toBeUndefined();
        // A literal is named as the URL writes it; a name by every address it resolved to.
        expect(r.error, url).toMatch(
          /^address not allowed: (127\.0\.0\.1|::1|::ffff:7f00:1)(, (127\.0\.0\.1|::1))*$/,
        );
      }
      expect(receiver.received.length).toBe(before);
    } finally {
      await sender.close();
    }
  });

  it("sends when private targets are allowed (development and tests), without following redirects", async () => {
    const sender = open();
    try {
      receiver.behave((_r, n) =>
        n % 2 === 0 ? { status: 200, body: "thanks" } : { status: 307, headers: { location: "/elsewhere" } },
      );
      const before = receiver.received.length;
      const ok = await sender.send(receiver.url, '{"a":1}', { "x-test": "1" });
      expect(ok).toMatchObject({ status: 200, excerpt: "thanks" });
      const redirect = await sender.send(receiver.url, '{"a":1}', {});
      expect(redirect.status).toBe(307);
      expect(receiver.received.length).toBe(before + 2);
      expect(receiver.received.at(-1)?.path).toBe("/callbacks");
    } finally {
      receiver.behave(() => ({ status: 200, body: "ok" }));
      await sender.close();
    }
  });

  it("a hanging receiver costs one timeout; a huge answer costs a 500-character excerpt", async () => {
    const sender = open(300);
    try {
      receiver.behave(() => ({ hang: true }));
      const t0 = Date.now();
      const hung = await sender.send(receiver.url, "{}", {});
      expect(hung.error).toBe("timed out after 300 ms");
      expect(Date.now() - t0).toBeLessThan(1_500);

      receiver.behave(() => ({ status: 200, body: "é".repeat(4_000_000) }));
      const t1 = Date.now();
      const huge = await sender.send(receiver.url, "{}", {});
      expect(huge.status).toBe(200);
      expect(huge.excerpt?.length).toBeLessThanOrEqual(500);
      expect(Date.now() - t1).toBeLessThan(1_500);
    } finally {
      receiver.behave(() => ({ status: 200, body: "ok" }));
      await sender.close();
    }
  });

  it("a refused connection is an error, not a throw", async () => {
    const sender = open();
    try {
      const r = await sender.send("http://127.0.0.1:9/cb", "{}", {});
      expect(r.status).toBeUndefined();
      expect(r.error).toMatch(/ECONNREFUSED/);
    } finally {
      await sender.close();
    }
  });
});
