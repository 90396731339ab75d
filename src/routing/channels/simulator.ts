/**
 * A payment channel partner for development, demos and tests: a small HTTP server that speaks
 * docs/channels.md and can be told to accept, decline, hang, be slow or fail. It plays the external
 * partner; the routing under test is the real code. `payintake channel-sim` runs one.
 *
 * Like a real partner it reserves once per ask_id: a repeated accepted ask is answered "accept"
 * again without a second reservation, and a release frees it. Payouts (payout-simulation.ts) have
 * their own behaviour beside the deposits' one, so one channel can do both.
 */
import { timingSafeEqual } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { signCallback } from "../../crypto/signature.js";
import {
  createPayoutBook,
  isPayoutAction,
  type SimPayout,
  type SimPayoutBehaviour,
} from "./payout-simulation.js";

export type { SimPayout, SimPayoutBehaviour, SimPayoutStatus } from "./payout-simulation.js";
export { payoutBehaviourFrom } from "./payout-simulation.js";

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
  /** Payouts and payout status queries, in the order received, kept apart from the asks. */
  payoutAsks: SimAsk[];
  /** payment_id → the payout as this partner holds it (`paid` never more than 1). */
  payouts: Map<string, SimPayout>;
  /** Background probes (`{"action":"probe"}`), kept apart from the asks. */
  probes: SimAsk[];
  /** ask_id → times reserved (never more than 1 while it holds). */
  reservations: Map<string, number>;
  /** Sets the deposits' behaviour, or the payouts' one for a `payout-…` kind; the other stays. */
  behave(b: SimBehaviour | SimPayoutBehaviour): void;
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

export interface ChannelSimulatorOptions {
  port?: number;
  host?: string;
  behaviour?: SimBehaviour;
  /** How payouts are answered (default payout-accept). */
  payoutBehaviour?: SimPayoutBehaviour;
  /** The payouts' clock (default Date.now): tests step it to pay or return a payout. */
  clock?: () => number;
  /** When set, every request's X-Signature is verified as a partner does; a bad one is answered 401. */
  secret?: string;
  onAsk?: (ask: SimAsk) => void;
}

export async function startChannelSimulator(opts: ChannelSimulatorOptions = {}): Promise<ChannelSimulator> {
  let behaviour: SimBehaviour = opts.behaviour ?? { kind: "accept" };
  let payoutBehaviour: SimPayoutBehaviour = opts.payoutBehaviour ?? { kind: "payout-accept" };
  const book = createPayoutBook(opts.clock ?? Date.now);
  const payoutAsks: SimAsk[] = [];
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
      const bytes = Buffer.concat(chunks);
      if (opts.secret !== undefined && !signedWith(opts.secret, req.headers, bytes))
        return json(401, '{"error":"bad signature or stale timestamp"}');
      const raw = bytes.toString("utf8");
      let body: SimAsk["body"];
      try {
        body = JSON.parse(raw);
      } catch {
        return json(400, '{"error":"not JSON"}');
      }
      const ask: SimAsk = { body, raw, headers: req.headers, at: Date.now() };
      const probe = body.action === "probe";
      const payout = isPayoutAction(body.action);
      (probe ? probes : payout ? payoutAsks : asks).push(ask);
      opts.onAsk?.(ask);
      if (payout) {
        const reply = book.answer(body, payoutBehaviour);
        if ("hang" in reply) hanging.add(res);
        else if ("drop" in reply) res.destroy();
        else json(reply.status, reply.body);
        return;
      }
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
    payoutAsks,
    payouts: book.payouts,
    probes,
    reservations,
    behave(b) {
      if (b.kind.startsWith("payout-")) payoutBehaviour = b as SimPayoutBehaviour;
      else behaviour = b as SimBehaviour;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * A request signed with `secret` as docs/channels.md says: HMAC-SHA256 over X-Timestamp LF the raw
 * body bytes, the timestamp within five minutes of this clock. Constant-time.
 */
function signedWith(secret: string, headers: SimAsk["headers"], body: Buffer): boolean {
  const timestamp = headers["x-timestamp"];
  const signature = headers["x-signature"];
  if (typeof timestamp !== "string" || typeof signature !== "string") return false;
  if (!/^\d{1,12}$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = Buffer.from(signCallback(secret, timestamp, body), "utf8");
  const given = Buffer.from(signature, "utf8");
  return expected.length === given.length && timingSafeEqual(expected, given);
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
