/**
 * The payout side of the http channel protocol (docs/channels.md, "Payouts by API"): one signed
 * POST per payout, its payment id the idempotency key, and a status query for an outcome not known.
 * Requests carry payees' names and IBANs, so they go through the same SSRF guard as asks and
 * callbacks: the address actually connected to must be public (net/guarded-agent.ts).
 *
 * The client never retries and never invents a payment id: an unknown outcome is handed back as
 * such, and only the caller decides to ask the status (or, the partner being idempotent by payment
 * id, to repeat the same order). A payout is never sent twice under two ids by this module.
 */
import { request } from "undici";
import { formatMinor } from "../../domain/money.js";
import { createGuardedAgent, refusalOf } from "../../net/guarded-agent.js";
import { ANSWER_LIMIT_BYTES, readCapped, signedHeaders } from "../../routing/channels/http-channel.js";
import { type PayoutAnswer, type PayoutOrder, readPayoutAnswer } from "./payout-answer.js";

export type { PayoutAnswer, PayoutOrder, PayoutUnknownCause } from "./payout-answer.js";

/** The channel a payout goes by: its URL and secret as the channel's row holds them. */
export interface PayoutChannelInfo {
  id: number;
  code: string;
  url: string;
  secret: string;
  /** The most a send or a status query waits for its answer. */
  timeoutMs: number;
}

export interface PayoutChannelClient {
  /** Sends the order once: `{"action":"payout",…}` with Idempotency-Key = the payment id. */
  send(channel: PayoutChannelInfo, order: PayoutOrder): Promise<PayoutAnswer>;
  /** Asks what became of the order: `{"action":"payout_status",…}`; sends no money. */
  status(channel: PayoutChannelInfo, order: PayoutOrder): Promise<PayoutAnswer>;
  /** Cuts requests in flight short (their outcome stays unknown) and closes the connections. */
  close(): Promise<void>;
}

/** The body of a payout: the only request of the protocol that moves money. */
export function payoutBody(order: PayoutOrder): string {
  return JSON.stringify({
    action: "payout",
    payment_id: order.paymentId,
    amount: formatMinor(order.amountMinor),
    currency: "TRY",
    iban: order.iban,
    name: order.name,
    description: order.description,
    method: order.method,
  });
}

/** Connection errors that happen before a byte of the request can have left. */
const NOT_SENT_CODES = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "UND_ERR_CONNECT_TIMEOUT"]);

/** An exception of the request as an unknown outcome, with the cause a caller may branch on. */
function unknownFrom(err: unknown, timeoutMs: number): PayoutAnswer {
  const e = err as { name?: string; code?: string; message?: string };
  if (e?.name === "TimeoutError")
    return { outcome: "unknown", cause: "timeout", why: `no answer in ${timeoutMs} ms` };
  if (e?.name === "AbortError")
    return { outcome: "unknown", cause: "network", why: "cut short: client closing" };
  const refused = refusalOf(err);
  if (refused) return { outcome: "unknown", cause: "not_sent", why: refused };
  const why = (e?.code ?? e?.message ?? "request failed").slice(0, 200);
  return { outcome: "unknown", cause: NOT_SENT_CODES.has(e?.code ?? "") ? "not_sent" : "network", why };
}

export function createPayoutChannelClient(opts: { allowPrivate: boolean }): PayoutChannelClient {
  // Each request has its own deadline (the channel's timeout); the connect timeout bounds a dead host.
  const agent = createGuardedAgent({
    allowPrivate: opts.allowPrivate,
    connectTimeoutMs: 10_000,
    connections: 16,
  });
  const inFlight = new Set<AbortController>();
  let closing: Promise<void> | undefined;

  /** One signed request; its 200 answer read (capped) and judged against the order. */
  async function exchange(
    channel: PayoutChannelInfo,
    order: PayoutOrder,
    question: "payout" | "status",
    body: string,
    idempotencyKey: string,
  ): Promise<PayoutAnswer> {
    if (!channel.url || !channel.secret)
      return { outcome: "unknown", cause: "not_sent", why: "channel has no URL or secret" };
    if (closing) return { outcome: "unknown", cause: "not_sent", why: "client closed" };
    const stop = new AbortController();
    inFlight.add(stop);
    try {
      const res = await request(channel.url, {
        method: "POST",
        dispatcher: agent,
        headers: signedHeaders(channel.secret, body, idempotencyKey),
        body,
        signal: AbortSignal.any([stop.signal, AbortSignal.timeout(channel.timeoutMs)]),
      });
      if (res.statusCode !== 200) {
        await res.body.dump();
        return { outcome: "unknown", cause: "http_status", why: `HTTP ${res.statusCode}` };
      }
      // A huge answer is not read into memory: it is not an answer of this protocol.
      const text = await readCapped(res.body, ANSWER_LIMIT_BYTES);
      if (text === undefined) return { outcome: "unknown", cause: "malformed", why: "answer too large" };
      return readPayoutAnswer(text, order, question);
    } catch (err) {
      return unknownFrom(err, channel.timeoutMs);
    } finally {
      inFlight.delete(stop);
    }
  }

  return {
    send(channel, order) {
      // The payment id alone: letters and digits, so no ask's, release's or status key can equal it.
      return exchange(channel, order, "payout", payoutBody(order), order.paymentId);
    },
    status(channel, order) {
      const body = JSON.stringify({ action: "payout_status", payment_id: order.paymentId });
      // Its own namespace: a partner that replays answers by key never answers a query with the payout's.
      return exchange(channel, order, "status", body, `payout_status:${order.paymentId}`);
    },
    close() {
      for (const stop of inFlight) stop.abort();
      closing ??= agent.close();
      return closing;
    },
  };
}
