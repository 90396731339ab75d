import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/harness.js";

/**
 * Idle keep-alive connections, as a load balancer in front keeps them: the server must not close
 * one before the balancer's own idle timeout (60 s on AWS ALB and nginx upstreams), or a request the
 * balancer sends on it as it closes fails (a 502 for a deposit). The HTTP server is the same on
 * both stores, so the embedded one is enough.
 */
function openConnection(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Sends one GET on the socket and resolves with the status line, or "closed" if the server hung up. */
function probe(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    if (socket.destroyed || socket.readableEnded) return resolve("closed");
    const onData = (chunk: Buffer) => {
      socket.off("close", onClose);
      resolve(chunk.toString("latin1").split("\r\n")[0] ?? "");
    };
    const onClose = () => {
      socket.off("data", onData);
      resolve("closed");
    };
    socket.once("data", onData);
    socket.once("close", onClose);
    socket.write("GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n");
  });
}

const idle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("idle keep-alive connections", () => {
  let byDefault: TestServer;
  let short: TestServer;
  beforeAll(async () => {
    byDefault = await startTestServer("sqlite", { LOG_LEVEL: "warn" });
    short = await startTestServer("sqlite", { LOG_LEVEL: "warn", PAYINTAKE_KEEP_ALIVE_TIMEOUT_MS: "1000" });
  });
  afterAll(async () => {
    await byDefault?.close();
    await short?.close();
  });

  it("stay open by default well past the 5 s that closed them before; PAYINTAKE_KEEP_ALIVE_TIMEOUT_MS sets it", async () => {
    const kept = await openConnection(byDefault.url);
    const cut = await openConnection(short.url);
    try {
      expect(await probe(kept)).toBe("HTTP/1.1 200 OK");
      expect(await probe(cut)).toBe("HTTP/1.1 200 OK");
      await idle(8_000);
      expect(await probe(kept)).toBe("HTTP/1.1 200 OK");
      expect(await probe(cut)).toBe("closed");
    } finally {
      kept.destroy();
      cut.destroy();
    }
  }, 20_000);
});
