/**
 * A payment channel partner for development, demos and tests: a small HTTP server that speaks
 * docs/channels.md and can be told to accept, decline, hang, be slow or fail. It plays the external
 * partner; the routing under test is the real code. `payintake channel-sim` runs one.
 *
 * Like a real partner it reserves once per ask_id: a repeated accepted ask is answered "accept"
 * again without a second reservation, and a release frees it.
 */
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type SimBehaviour =
  | { kind: "accept"; delayMs?: number }
  | { kind: "decline"; reason?: string }
  | { kind: "hang" }
  | { kind: "fail"; status?: number; body?: string };

export interface SimAsk {
  body: { action?: string; ask_id?: string; [key: string]: unknown };
  raw: string;
  headers: Record<string, string | string[] | undefined>;
  at: number;
}

export interface ChannelSimulator {
  url: string;
  /** Asks and releases, in the order received. */
  asks: SimAsk[];
  /** Background probes (`{"action":"probe"}`), kept apart from the asks. */
  probes: SimAsk[];
  /** ask_id → times reserved (never more than 1 while it holds). */
  reservations: Map<string, number>;
  behave(b: SimBehaviour): void;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

export async function startChannelSimulator(
  opts: { port?: number; host?: string; behaviour?: SimBehaviour; onAsk?: (ask: SimAsk) => void } = {},
): Promise<ChannelSimulator> {
  let behaviour: SimBehaviour = opts.behaviour ?? { kind: "accept" };
  const asks: SimAsk[] = [];
  const probes: SimAsk[] = [];
  const reservations = new Map<string, number>();
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on("end", () => {
      const json = (status: number, body: string) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(body);
      };
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: SimAsk["body"];
      try {
        body = JSON.parse(raw);
      } catch {
        return json(400, '{"error":"not JSON"}');
      }
      const ask: SimAsk = { body, raw, headers: req.headers, at: Date.now() };
      const probe = body.action === "probe";
      (probe ? probes : asks).push(ask);
      opts.onAsk?.(ask);
      const id = String(body.ask_id ?? "");
      if (body.action === "release") {
        reservations.delete(id);
        return json(200, '{"released":true}');
      }
      const b = behaviour;
      if (b.kind === "hang") {
        hanging.add(res);
        return;
      }
      if (b.kind === "fail") return json(b.status ?? 500, b.body ?? '{"error":"down"}');
      // Up: a probe is answered as an ask would be, as quickly.
      if (probe)
        return void setTimeout(() => json(200, '{"ok":true}'), b.kind === "accept" ? (b.delayMs ?? 0) : 0);
      if (b.kind === "decline")
        return json(200, JSON.stringify({ decision: "decline", reason: b.reason ?? "payer refused" }));
      // Accept: reserve once per ask_id, however often it is asked.
      if (!reservations.has(id)) reservations.set(id, 1);
      setTimeout(() => json(200, '{"decision":"accept"}'), b.delayMs ?? 0);
    });
  });
  server.requestTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  const host = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}/asks`,
    asks,
    probes,
    reservations,
    behave(b) {
      behaviour = b;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Parses --behaviour for the CLI. */
export function behaviourFrom(name: string | undefined, delayMs: number | undefined): SimBehaviour {
  switch (name ?? "accept") {
    case "accept":
      return { kind: "accept", delayMs };
    case "slow":
      return { kind: "accept", delayMs: delayMs ?? 3_000 };
    case "decline":
      return { kind: "decline" };
    case "hang":
      return { kind: "hang" };
    case "fail":
      return { kind: "fail" };
    default:
      throw new Error(`--behaviour must be accept, slow, decline, hang or fail, not "${name}"`);
  }
}
