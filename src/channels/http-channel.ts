import { request } from "undici";
import { signCallback } from "../auth/signature.js";
import { formatMinor } from "../domain/money.js";
import type { AccountCandidate } from "../domain/routing.js";
import { createGuardedAgent, refusalOf } from "../net/guarded-agent.js";
import type { AskResult, ChannelInfo, RouteRequest } from "../routing/router.js";

/**
 * The http channel protocol (docs/channels.md): one signed POST per ask, answered with a decision.
 * Anything but a well-formed decision within the timeout is a channel failure, never a decline.
 * Asks carry payers' names and accounts' IBANs, so they go through the same SSRF guard as
 * callbacks: the address actually connected to must be public (net/guarded-agent.ts).
 */
export function createChannelClient(opts: { allowPrivate: boolean }): {
  ask(
    channel: ChannelInfo,
    req: RouteRequest,
    account: AccountCandidate,
    timeoutMs: number,
  ): Promise<AskResult>;
  /** Lets an accepted ask go, when its deposit was not written; best effort. */
  release(channel: ChannelInfo, askId: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  close(): Promise<void>;
} {
  // Each ask has its own deadline (AbortSignal below); the connect timeout only bounds a dead host.
  const agent = createGuardedAgent({
    allowPrivate: opts.allowPrivate,
    connectTimeoutMs: 10_000,
    connections: 32,
  });
  return {
    async ask(channel, req, account, timeoutMs) {
      if (!channel.url || !channel.secret) return { outcome: "fail", reason: "channel has no URL or secret" };
      const body = JSON.stringify({
        action: "ask",
        ask_id: req.askId,
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
      const timestamp = String(Math.floor(Date.now() / 1000));
      try {
        const res = await request(channel.url, {
          method: "POST",
          dispatcher: agent,
          headers: {
            "content-type": "application/json; charset=utf-8",
            "idempotency-key": req.askId,
            "x-timestamp": timestamp,
            "x-signature": signCallback(channel.secret, timestamp, body),
          },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.body.text();
        if (res.statusCode !== 200) return { outcome: "fail", reason: `HTTP ${res.statusCode}` };
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
            reason: typeof answer.reason === "string" ? answer.reason.slice(0, 200) : "declined",
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
    async release(channel, askId) {
      if (!channel.url || !channel.secret) return { ok: false, reason: "channel has no URL or secret" };
      const body = JSON.stringify({ action: "release", ask_id: askId });
      const timestamp = String(Math.floor(Date.now() / 1000));
      try {
        const res = await request(channel.url, {
          method: "POST",
          dispatcher: agent,
          headers: {
            "content-type": "application/json; charset=utf-8",
            "idempotency-key": `${askId}:release`,
            "x-timestamp": timestamp,
            "x-signature": signCallback(channel.secret, timestamp, body),
          },
          body,
          signal: AbortSignal.timeout(Math.min(channel.timeoutMs, 5_000)),
        });
        await res.body.dump();
        return res.statusCode === 200 ? { ok: true } : { ok: false, reason: `HTTP ${res.statusCode}` };
      } catch (err) {
        return {
          ok: false,
          reason: (refusalOf(err) ?? (err as Error).message ?? "request failed").slice(0, 200),
        };
      }
    },
    close: () => agent.close(),
  };
}
