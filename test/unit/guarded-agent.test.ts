import { createServer, type Server } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedAgent, refusalOf } from "../../src/net/guarded-agent.js";

/**
 * The SSRF guard refuses before connecting: an internal host never sees a TCP handshake, nor (for
 * https) a TLS ClientHello. A plain TCP server on loopback counts every connection it is offered.
 */
describe("guarded agent", () => {
  let server: Server;
  let port: number;
  let connections = 0;
  let bytes = 0;

  beforeAll(async () => {
    server = createServer((socket) => {
      connections++;
      socket.on("data", (d) => {
        bytes += d.length;
      });
      socket.on("error", () => {});
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const agent = createGuardedAgent({ allowPrivate: false, connectTimeoutMs: 1_000, connections: 2 });

  it.each([
    ["https, a name resolving to loopback", "https://localhost:PORT/cb"],
    ["https, a loopback literal", "https://127.0.0.1:PORT/cb"],
    ["http, a name resolving to loopback", "http://localhost:PORT/cb"],
    ["http, a loopback literal", "http://127.0.0.1:PORT/cb"],
    ["an IPv4-mapped loopback literal", "http://[::ffff:127.0.0.1]:PORT/cb"],
  ])("%s: refused, and the internal host saw nothing", async (_label, url) => {
    const before = connections;
    const err = await request(url.replace("PORT", String(port)), {
      method: "POST",
      body: "{}",
      dispatcher: agent,
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refusalOf(err)).toMatch(/^address not allowed: /);
    // Before: the connection was made (and for https the TLS handshake sent), then refused.
    expect(connections - before).toBe(0);
    expect(bytes).toBe(0);
  });

  it("with private targets allowed (development, tests) the same host is reached", async () => {
    const open = createGuardedAgent({ allowPrivate: true, connectTimeoutMs: 1_000, connections: 1 });
    const before = connections;
    await request(`http://localhost:${port}/cb`, {
      method: "POST",
      body: "{}",
      dispatcher: open,
      headersTimeout: 200,
    }).catch(() => undefined);
    expect(connections - before).toBe(1);
    await open.close();
  });
});
