/**
 * The channel simulator's payout side (docs/channels.md, "Payouts by API"): a partner that pays by
 * API, told at start or at run time how to behave. Like a real partner it takes each payment_id
 * once: the first payout decides its fate, and every repeat, whatever it says, is answered with that
 * payout's state and never pays again. Its states move on a clock that tests may inject, so "paid a
 * second later" or "returned an hour later" is a clock's step, not a wait.
 */
import { formatMinor, parseAmount } from "../../domain/money.js";

export type SimPayoutBehaviour =
  /** Accepted; paid `delayMs` later (default 1 s). */
  | { kind: "payout-accept"; delayMs?: number }
  /** Paid at once, as FAST is. */
  | { kind: "payout-paid" }
  /** Refused, nothing paid (default reason "AC01 wrong IBAN"). */
  | { kind: "payout-refuse"; reason?: string }
  /** Pays, and answers no payout request (payouts nor status queries) while in force. */
  | { kind: "payout-hang" }
  /** Pays, and its first answer to each payment_id is lost (the connection drops): only a repeat learns "paid". */
  | { kind: "payout-twice" }
  /** Paid at once; `delayMs` later (default an hour) the payee's bank sends it back. */
  | { kind: "payout-return"; delayMs?: number; reason?: string }
  /** Answers every payout request with this HTTP status and body, taking nothing (default 500). */
  | { kind: "payout-fail"; status?: number; body?: string };

export type SimPayoutStatus = "accepted" | "paid" | "refused" | "returned";

/** One payment_id as the partner holds it. */
export interface SimPayout {
  readonly amountMinor: number;
  /** The first payout's body, as received. */
  readonly order: Readonly<Record<string, unknown>>;
  /** Payout requests received with this payment_id, the first included. */
  sends: number;
  /** How many times its money left: 0 or 1, however often it is sent. */
  readonly paid: number;
  readonly status: SimPayoutStatus;
  readonly reason?: string;
}

/** A payout request's answer: an HTTP status and JSON body, or none at all (hang, lost answer). */
export type SimPayoutReply = { status: number; body: string } | { hang: true } | { drop: true };

export const PAYOUT_ACCEPT_DELAY_MS = 1_000;
export const PAYOUT_RETURN_DELAY_MS = 60 * 60 * 1_000;

export function isPayoutAction(action: unknown): boolean {
  return action === "payout" || action === "payout_status";
}

/** When each of a payout's moves happens, fixed by the behaviour in force at its first send. */
interface Fate {
  paysAt?: number;
  returnsAt?: number;
  reason?: string;
}

function fateOf(b: SimPayoutBehaviour, now: number): Fate {
  switch (b.kind) {
    case "payout-accept":
      return { paysAt: now + (b.delayMs ?? PAYOUT_ACCEPT_DELAY_MS) };
    case "payout-refuse":
      return { reason: b.reason ?? "AC01 wrong IBAN" };
    case "payout-return":
      return {
        paysAt: now,
        returnsAt: now + (b.delayMs ?? PAYOUT_RETURN_DELAY_MS),
        reason: b.reason ?? "AC04 closed account",
      };
    default:
      return { paysAt: now };
  }
}

/** A payout whose state is read off the clock: it moves without timers, and a test steps the clock. */
function heldPayout(order: Record<string, unknown>, amountMinor: number, fate: Fate, clock: () => number) {
  const statusAt = (now: number): SimPayoutStatus => {
    if (fate.paysAt === undefined) return "refused";
    if (fate.returnsAt !== undefined && now >= fate.returnsAt) return "returned";
    return now >= fate.paysAt ? "paid" : "accepted";
  };
  const payout: SimPayout = {
    amountMinor,
    order,
    sends: 1,
    get paid() {
      return fate.paysAt !== undefined && clock() >= fate.paysAt ? 1 : 0;
    },
    get status() {
      return statusAt(clock());
    },
    get reason() {
      const status = statusAt(clock());
      return status === "refused" || status === "returned" ? fate.reason : undefined;
    },
  };
  return payout;
}

/** The payouts a simulator holds, and its answer to each payout request. */
export function createPayoutBook(clock: () => number) {
  const payouts = new Map<string, SimPayout>();
  const stateOf = (id: string, p: SimPayout) =>
    JSON.stringify({
      status: p.status,
      payment_id: id,
      amount: formatMinor(p.amountMinor),
      reason: p.reason,
    });
  const bad = (error: string): SimPayoutReply => ({ status: 400, body: JSON.stringify({ error }) });

  function answer(body: Record<string, unknown>, behaviour: SimPayoutBehaviour): SimPayoutReply {
    const id = body.payment_id;
    if (typeof id !== "string" || id === "") return bad("no payment_id");
    if (behaviour.kind === "payout-hang" && body.action === "payout_status") return { hang: true };
    if (behaviour.kind === "payout-fail")
      return { status: behaviour.status ?? 500, body: behaviour.body ?? '{"error":"down"}' };
    const held = payouts.get(id);
    if (body.action === "payout_status") {
      const state = held ? stateOf(id, held) : JSON.stringify({ status: "unknown", payment_id: id });
      return { status: 200, body: state };
    }
    if (held) {
      // A repeat: the same payout, answered with its state now, never paid again.
      held.sends += 1;
      return behaviour.kind === "payout-hang" ? { hang: true } : { status: 200, body: stateOf(id, held) };
    }
    const amount = typeof body.amount === "string" ? parseAmount(body.amount) : undefined;
    if (!amount?.ok) return bad("amount must be a positive amount with at most 2 decimals");
    const payout = heldPayout(body, amount.minor, fateOf(behaviour, clock()), clock);
    payouts.set(id, payout);
    if (behaviour.kind === "payout-hang") return { hang: true };
    if (behaviour.kind === "payout-twice") return { drop: true };
    return { status: 200, body: stateOf(id, payout) };
  }

  return { payouts, answer };
}

/** Parses --payout-behaviour for the CLI (default accept, as for asks). */
export function payoutBehaviourFrom(
  name: string | undefined,
  delayMs: number | undefined,
): SimPayoutBehaviour {
  if (delayMs !== undefined && (!Number.isInteger(delayMs) || delayMs < 0))
    throw new Error("--payout-delay-ms must be a whole number of milliseconds");
  switch (name ?? "accept") {
    case "accept":
      return { kind: "payout-accept", delayMs };
    case "paid":
      return { kind: "payout-paid" };
    case "refuse":
      return { kind: "payout-refuse" };
    case "hang":
      return { kind: "payout-hang" };
    case "twice":
      return { kind: "payout-twice" };
    case "return":
      return { kind: "payout-return", delayMs };
    default:
      throw new Error(
        `--payout-behaviour must be accept, paid, refuse, hang, twice or return, not "${name}"`,
      );
  }
}
