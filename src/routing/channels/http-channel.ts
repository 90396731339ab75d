/**
 * The http channel protocol (docs/channels.md): one signed POST per ask, answered with a decision.
 * Anything but a well-formed decision within the timeout is a channel failure, never a decline.
 * Asks carry payers' names and accounts' IBANs, so they go through the same SSRF guard as
 * callbacks: the address actually connected to must be public (net/guarded-agent.ts).
 */
import { randomBytes } from "node:crypto";
import { request } from "undici";
import { signCallback } from "../../crypto/signature.js";
import { formatMinor } from "../../domain/money.js";
import { createGuardedAgent, refusalOf } from "../../net/guarded-agent.js";
import type { AccountCandidate } from "../account-order.js";
import type { ProbeResult } from "../breaker.js";
import type { AskResult, ChannelInfo, RouteRequest } from "../router.js";

/**
 * An ask's id names what is asked: the deposit (firm and reference), the account and the amount.
 * A retry of the same deposit asking the same account for the same amount repeats it (the channel
 * answers as before, never reserving twice); an ask about another account or amount is a new one,
 * so an answer to one can never be taken for an answer to another. Unambiguous: the firm id and
 * the last two parts are digits, whatever the reference holds.
 */
export function askIdOf(req: Pick<RouteRequest, "askId" | "amountMinor">, account: { id: number }): string {
  return `${req.askId}:${account.id}:${req.amountMinor}`;
}

/** The most of a channel's answer read: a decision is a few dozen bytes. */
export const ANSWER_LIMIT_BYTES = 16 * 1024;

/**
 * A partner's reason for operators: no control or direction characters, whole characters only.
 * `fallback` stands in for a missing or empty one (a payout's refusal is not a "decline").
 */
export function cleanReason(reason: unknown, fallback = "declined"): string {
  if (typeof reason !== "string") return fallback;
  const clean = reason
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
  const cut = [...clean].slice(0, 200).join("");
  return cut === "" ? fallback : cut;
}

/**
 * The headers of every request of the protocol (asks, releases, probes, payouts): the partner
 * verifies X-Signature over X-Timestamp LF the raw body, and refuses stale timestamps.
 */
export function signedHeaders(secret: string, body: string, idempotencyKey: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return {
    "content-type": "application/json; charset=utf-8",
    "idempotency-key": idempotencyKey,
    "x-timestamp": timestamp,
    "x-signature": signCallback(secret, timestamp, body),
  };
}

/** Reads at most `limit` bytes; undefined when the answer is longer (it is dropped unread). */
export async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): unknown },
  limit: number,
): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += chunk.length;
      if (size > limit) return undefined;
      chunks.push(chunk);
    }
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).toString("utf8");
}

export function createChannelClient(opts: { allowPrivate: boolean }): {
  ask(
    channel: ChannelInfo,
    req: RouteRequest,
    account: AccountCandidate,
    timeoutMs: number,
  ): Promise<AskResult>;
  /**
   * Lets an ask go (best effort): an accepted one whose deposit was not written, or one that failed
   * (timed out, say) after the channel may have reserved.
   */
  release(
    channel: ChannelInfo,
    req: Pick<RouteRequest, "askId" | "amountMinor">,
    account: { id: number },
  ): Promise<{ ok: true } | { ok: false; reason: string }>;
  /**
   * Asks a channel whose breaker is open whether it is back: `{"action":"probe"}`, signed like an
   * ask, carrying no payer and no account. 200 is up; 4xx is a partner that is there but does not
   * know probes; anything else (5xx, no answer within the channel's timeout, refused) is down.
   */
  probe(channel: ChannelInfo): Promise<ProbeResult>;
  close(): Promise<void>;
} {
  /** One signed request of the protocol: an ask, a release or a probe. */
  const post = (url: string, secret: string, body: string, idempotencyKey: string, signal: AbortSignal) =>
    request(url, {
      method: "POST",
      dispatcher: agent,
      headers: signedHeaders(secret, body, idempotencyKey),
      body,
      signal,
    });
  /** Probes in flight, cut short when the server stops (no one waits for their answer). */
  const probes = new Set<AbortController>();
  let closing: Promise<void> | undefined;
  // Each ask has its own deadline (AbortSignal below); the connect timeout only bounds a dead host.
  const agent = createGuardedAgent({
    allowPrivate: opts.allowPrivate,
    connectTimeoutMs: 10_000,
    connections: 32,
  });
  return {
    async ask(channel, req, account, timeoutMs) {
      if (!channel.url || !channel.secret) return { outcome: "fail", reason: "channel has no URL or secret" };
      const askId = askIdOf(req, account);
      const body = JSON.stringify({
        action: "ask",
        ask_id: askId,
        amount: formatMinor(req.amountMinor),
        currency: "TRY",
        bank_code: req.bankCode,
        method: req.method,
        account: {
          id: account.id,
          bank_name: account.bankName,
          holder_name: account.holderName,
          iban: account.iban,
        },
        payer: { user_id: req.userId, full_name: req.fullName },
      });
      try {
        const res = await post(channel.url, channel.secret, body, askId, AbortSignal.timeout(timeoutMs));
        if (res.statusCode !== 200) {
          await res.body.dump();
          return { outcome: "fail", reason: `HTTP ${res.statusCode}` };
        }
        // A huge answer is not read into memory: it is not a decision.
        const text = await readCapped(res.body, ANSWER_LIMIT_BYTES);
        if (text === undefined) return { outcome: "fail", reason: "answer too large" };
        let answer: { decision?: unknown; reason?: unknown };
        try {
          answer = JSON.parse(text);
        } catch {
          return { outcome: "fail", reason: "malformed answer" };
        }
        if (answer?.decision === "accept") return { outcome: "accept" };
        if (answer?.decision === "decline") {
          return {
            outcome: "decline",
            reason: cleanReason(answer.reason),
          };
        }
        return { outcome: "fail", reason: "malformed answer" };
      } catch (err) {
        const e = err as { name?: string; code?: string; message?: string };
        if (e?.name === "TimeoutError" || e?.name === "AbortError")
          return { outcome: "fail", reason: `timed out after ${timeoutMs} ms` };
        const refused = refusalOf(err);
        if (refused) return { outcome: "fail", reason: refused };
        return { outcome: "fail", reason: (e?.code ?? e?.message ?? "request failed").slice(0, 200) };
      }
    },
    async release(channel, req, account) {
      if (!channel.url || !channel.secret) return { ok: false, reason: "channel has no URL or secret" };
      const askId = askIdOf(req, account);
      const body = JSON.stringify({ action: "release", ask_id: askId });
      try {
        // Its own namespace: no ask's key can equal a release's.
        const res = await post(
          channel.url,
          channel.secret,
          body,
          `release:${askId}`,
          AbortSignal.timeout(Math.min(channel.timeoutMs, 5_000)),
        );
        await res.body.dump();
        return res.statusCode === 200 ? { ok: true } : { ok: false, reason: `HTTP ${res.statusCode}` };
      } catch (err) {
        return {
          ok: false,
          reason: (refusalOf(err) ?? (err as Error).message ?? "request failed").slice(0, 200),
        };
      }
    },
    async probe(channel) {
      if (!channel.url || !channel.secret) return "down";
      const stop = new AbortController();
      probes.add(stop);
      try {
        const res = await post(
          channel.url,
          channel.secret,
          JSON.stringify({ action: "probe" }),
          `probe:${randomBytes(8).toString("hex")}`,
          AbortSignal.any([stop.signal, AbortSignal.timeout(channel.timeoutMs)]),
        );
        await res.body.dump();
        if (res.statusCode === 200) return "up";
        return res.statusCode >= 400 && res.statusCode < 500 ? "unsure" : "down";
      } catch {
        return "down";
      } finally {
        probes.delete(stop);
      }
    },
    close() {
      for (const stop of probes) stop.abort();
      closing ??= agent.close();
      return closing;
    },
  };
}
