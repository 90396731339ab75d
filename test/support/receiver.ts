import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A merchant's callback receiver, played by a real local HTTP server. */
export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Behaviour = (
  r: Received,
  n: number,
) => {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
  hang?: boolean;
  delayMs?: number;
  /** Answers the status at once, then its body one byte every 100 ms, never ending it. */
  trickle?: boolean;
  /** Closes the connection without answering, or in the middle of the answer's body. */
  cut?: "before-answer" | "mid-body";
};

export interface Receiver {
  url: string;
  origin: string;
  received: Received[];
  /** How to answer the n-th request (0-based); 200 "ok" by default. */
  behave(b: Behaviour): void;
  waitFor(count: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(path = "/callbacks"): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  let behaviour: Behaviour = () => ({ status: 200, body: "ok" });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r: Received = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      const n = received.length;
      received.push(r);
      const b = behaviour(r, n);
      if (b.hang) {
        hanging.add(res);
        return;
      }
      if (b.cut === "before-answer") return void req.socket.destroy();
      if (b.cut === "mid-body") {
        res.writeHead(b.status ?? 200, { "content-type": "text/plain", "content-length": "1000" });
        res.write("stored, thank");
        setTimeout(() => req.socket.destroy(), 20);
        return;
      }
      if (b.trickle) {
        hanging.add(res);
        res.writeHead(b.status ?? 200, { "content-type": "text/plain" });
        const drip = setInterval(() => res.write("."), 100);
        res.on("close", () => clearInterval(drip));
        return;
      }
      const answer = () => {
        res.writeHead(b.status ?? 200, { "content-type": "text/plain", ...b.headers });
        res.end(b.body ?? "");
      };
      if (b.delayMs) setTimeout(answer, b.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}${path}`,
    origin,
    received,
    behave(b) {
      behaviour = b;
    },
    async waitFor(count, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(
            `receiver got ${received.length} callbacks, expected ${count} within ${timeoutMs} ms`,
          );
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      return received;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Polls until the check returns something other than undefined. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`condition not met within ${timeoutMs} ms${last ? `: ${last}` : ""}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
