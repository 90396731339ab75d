import { createHmac } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A payment channel partner, played by a small local server that speaks docs/channels.md. Tell it
 * how to answer: accept, decline, hang, be slow, or fail.
 */
export type SimBehaviour =
  | { kind: "accept"; delayMs?: number }
  | { kind: "decline"; reason?: string }
  | { kind: "hang" }
  | { kind: "fail"; status?: number; body?: string };

export interface Ask {
  body: any;
  raw: string;
  headers: Record<string, string | string[] | undefined>;
  at: number;
}

export interface ChannelSim {
  url: string;
  asks: Ask[];
  behave(b: SimBehaviour): void;
  /** True when the ask's X-Signature verifies with this secret over timestamp LF body. */
  verify(ask: Ask, secret: string): boolean;
  close(): Promise<void>;
}

export async function startChannelSim(initial: SimBehaviour = { kind: "accept" }): Promise<ChannelSim> {
  let behaviour = initial;
  const asks: Ask[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      asks.push({ body: JSON.parse(raw), raw, headers: req.headers, at: Date.now() });
      const b = behaviour;
      const json = (status: number, body: string) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(body);
      };
      if (asks.at(-1)?.body.action === "release") return json(200, '{"released":true}');
      if (b.kind === "hang") hanging.add(res);
      else if (b.kind === "fail") json(b.status ?? 500, b.body ?? '{"error":"down"}');
      else if (b.kind === "decline")
        json(200, JSON.stringify({ decision: "decline", reason: b.reason ?? "payer refused" }));
      else setTimeout(() => json(200, '{"decision":"accept"}'), b.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/asks`,
    asks,
    behave(b) {
      behaviour = b;
    },
    verify(ask, secret) {
      const expected = createHmac("sha256", secret)
        .update(`${ask.headers["x-timestamp"]}\n${ask.raw}`)
        .digest("hex");
      return ask.headers["x-signature"] === expected;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
