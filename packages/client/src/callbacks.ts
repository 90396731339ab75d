import { hmacHex, sameHex } from "./signing.js";

/** A verified callback: the decided transaction, amounts also as integer kuruş. */
export interface CallbackEvent {
  event: "deposit.approved" | "deposit.rejected" | "withdrawal.approved" | "withdrawal.rejected";
  id: number;
  reference: string;
  type: "deposit" | "withdrawal";
  status: "approved" | "rejected";
  /** The amount exactly as sent, two decimals: "149.50". */
  amount: string;
  /** The same in kuruş (minor units): 14950. Use this for money, never a float. */
  amountMinor: number;
  /** Always sent, except in withdrawal callbacks stored before withdrawals carried a method. */
  method?: "fast" | "eft" | "havale";
  full_name: string;
  username: string;
  user_id: string;
  middle_name?: string;
  created_at: string;
  updated_at: string;
}

export type CallbackCheck =
  | { ok: true; event: CallbackEvent }
  | { ok: false; reason: "signature" | "timestamp" | "hashcode" | "body" };

/**
 * Verifies a callback as docs/callbacks.md says: X-Signature over `X-Timestamp LF raw body`, the
 * timestamp within `toleranceS` of now, and the contract's hashcode over
 * `reference|type|status|amount`. Give it the body exactly as received, before any JSON parsing.
 */
export function verifyCallback(input: {
  secret: string;
  rawBody: string | Uint8Array;
  /** Header names in any case (Node lower-cases them). */
  headers: Record<string, string | string[] | undefined>;
  toleranceS?: number;
  nowMs?: number;
}): CallbackCheck {
  const raw = typeof input.rawBody === "string" ? input.rawBody : Buffer.from(input.rawBody).toString("utf8");
  const header = (name: string) => {
    for (const [k, v] of Object.entries(input.headers))
      if (k.toLowerCase() === name) return Array.isArray(v) ? v[0] : v;
    return undefined;
  };
  const timestamp = header("x-timestamp");
  if (!timestamp || !/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: "timestamp" };
  if (!sameHex(header("x-signature"), hmacHex(input.secret, `${timestamp}\n${raw}`))) {
    return { ok: false, reason: "signature" };
  }
  const now = Math.floor((input.nowMs ?? Date.now()) / 1000);
  if (Math.abs(now - Number(timestamp)) > (input.toleranceS ?? 300))
    return { ok: false, reason: "timestamp" };
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return { ok: false, reason: "body" };
  }
  // The amount's own text (a JSON number with two decimals), never a float round trip.
  const amount = /"amount":(\d+\.\d{2})[,}]/.exec(raw)?.[1];
  if (!amount || typeof body.reference !== "string") return { ok: false, reason: "body" };
  const expected = hmacHex(input.secret, `${body.reference}|${body.type}|${body.status}|${amount}`);
  if (!sameHex(body.hashcode, expected)) return { ok: false, reason: "hashcode" };
  const [whole = "0", kurus = "00"] = amount.split(".");
  const { hashcode: _, ...fields } = body;
  return {
    ok: true,
    event: {
      ...(fields as unknown as CallbackEvent),
      amount,
      amountMinor: Number(whole) * 100 + Number(kurus),
    },
  };
}
