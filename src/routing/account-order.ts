/**
 * Which payment account a deposit goes to. Pure: it sees candidates, never the database.
 * The pool is rotated fairly by sending each deposit to the eligible account that was assigned least
 * recently (ties broken by id), so equal accounts take turns.
 */
import { shareOf } from "../domain/cap-share.js";

export interface AccountCandidate {
  id: number;
  bankName: string;
  holderName: string;
  iban: string;
  minAmount: number | null;
  maxAmount: number | null;
  active: boolean;
  lastAssignedAt: number;
  /** The channel that must accept (null: the account itself, manual). */
  channelId?: number | null;
  /** Upper-cased code of the account's bank (or its channel's code) for bank_code preference. */
  preferFor?: readonly string[];
  /** The most the account may take per day, minor units; null or absent: no cap. */
  dailyCap?: number | null;
}

/**
 * Drops accounts whose daily cap this deposit would exceed, given what each took today, or whose
 * share of it the firm's own deposits would (`capShare`, percent, as domain/cap-share.ts capShareFor
 * gives it; null: the whole cap). Two deposits checked at the same moment can both pass here: the
 * hold (store/routing/cap-holds.ts) judges them again.
 */
export function withinDailyCap(
  order: readonly AccountCandidate[],
  takenToday: ReadonlyMap<number, { total: number; firm: number }>,
  amountMinor: number,
  capShare: number | null = null,
): AccountCandidate[] {
  return order.filter((a) => {
    if (a.dailyCap == null) return true;
    const taken = takenToday.get(a.id);
    if ((taken?.total ?? 0) + amountMinor > a.dailyCap) return false;
    return capShare === null || (taken?.firm ?? 0) + amountMinor <= shareOf(a.dailyCap, capShare);
  });
}

/** A payment channel as routing sees it (the secret already opened). */
export interface ChannelInfo {
  id: number;
  code: string;
  kind: "manual" | "http";
  url: string | null;
  secret: string | null;
  timeoutMs: number;
}

export function isEligible(account: AccountCandidate, amountMinor: number): boolean {
  if (!account.active) return false;
  if (account.minAmount !== null && amountMinor < account.minAmount) return false;
  if (account.maxAmount !== null && amountMinor > account.maxAmount) return false;
  return true;
}

export function pickAccount(
  candidates: readonly AccountCandidate[],
  amountMinor: number,
): AccountCandidate | null {
  let best: AccountCandidate | null = null;
  for (const c of candidates) {
    if (!isEligible(c, amountMinor)) continue;
    if (
      best === null ||
      c.lastAssignedAt < best.lastAssignedAt ||
      (c.lastAssignedAt === best.lastAssignedAt && c.id < best.id)
    ) {
      best = c;
    }
  }
  return best;
}

/**
 * Every eligible account, in the order routing tries them: accounts whose bank or channel matches
 * the request's bank_code first, then the rest; within each group the least recently assigned first
 * (ties by id). Pure and total: the router walks this list until a channel accepts.
 */
export function routeOrder(
  candidates: readonly AccountCandidate[],
  amountMinor: number,
  bankCode: string,
): AccountCandidate[] {
  const code = bankCode.trim().toUpperCase();
  const preferred = (c: AccountCandidate) => (c.preferFor?.includes(code) ? 0 : 1);
  return candidates
    .filter((c) => isEligible(c, amountMinor))
    .sort((a, b) => preferred(a) - preferred(b) || a.lastAssignedAt - b.lastAssignedAt || a.id - b.id);
}

/**
 * The stamp an account gets when a deposit is routed to it: the current time, but always past every
 * candidate's stamp, so that deposits within one millisecond still rotate instead of piling onto the
 * lowest id.
 */
export function rotationStamp(candidates: readonly AccountCandidate[], now: number): number {
  let latest = 0;
  for (const c of candidates) if (c.lastAssignedAt > latest) latest = c.lastAssignedAt;
  return Math.max(now, latest + 1);
}
