/**
 * The ledger as operators and merchants read it (docs/ledger.md, "Reports"): a firm's balance now
 * or as of a past moment, in the contract's money form. `available` is the balance less what its
 * payouts in live batches, not yet sent, hold back: what a new payout may still take.
 */
import { firmAccount, inTransitAccount } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import { type Outcome, refusal } from "../domain/refusal.js";
import { turkeyDayStart } from "../domain/turkey-time.js";
import type { Repositories } from "../store/index.js";
import type { EntryView } from "../store/ledger/ledger.js";
import { MAX_DAYS } from "../store/ledger/ledger-reads.js";
import { accountBalance, accountCheck } from "./accounts.js";
import { companyBalances } from "./company.js";
import { type DayPosting, type DayTotals, dayTotals, postingsOf } from "./day-report.js";
import { adjust, openingProposal, setOpening, settle } from "./manual.js";

/** A firm's day: its balance's totals, its transit's opening and closing, and a page of its postings. */
export interface FirmDayView extends DayTotals {
  firm: number;
  in_transit: { opening: string; closing: string };
  postings: DayPosting[];
  /** Where the next page of postings starts (`after`); null on the day's last page. */
  next: string | null;
}

/** A page of a day's postings: at most this many of the firm's entries (postings.ts: one or two a posting). */
export const DAY_PAGE = { default: 1_000, max: 5_000 } as const;

export interface FirmBalanceView {
  firm: number;
  balance: string;
  in_transit: string;
  available: string;
  /** The moment asked for; absent for now. */
  at?: string;
}

export function createLedgerService(deps: {
  repos: Pick<Repositories, "ledger" | "firms" | "accounts" | "bankChecks" | "statements">;
  now(): number;
}) {
  const { ledger, firms } = deps.repos;
  return {
    accountBalance: (accountId: number, at: number | undefined) => accountBalance(deps, accountId, at),
    companyBalances: (at: number | undefined) => companyBalances(deps, at),
    adjust: (firmId: number, body: Parameters<typeof adjust>[2], actor: string) =>
      adjust(deps, firmId, body, actor),
    settle: (firmId: number, body: Parameters<typeof settle>[2], actor: string) =>
      settle(deps, firmId, body, actor),
    setOpening: (body: Parameters<typeof setOpening>[1], actor: string) => setOpening(deps, body, actor),
    openingProposal: () => openingProposal(deps),
    accountCheck: (accountId: number, at: number | undefined) => accountCheck(deps, accountId, at),

    firmDay: (firmId: number, date: string, page: { after?: string; limit?: number } = {}) =>
      firmDay(deps, firmId, date, page),

    /** A firm's balance for each day from `from` to `to` (YYYY-MM-DD, both included): the CSV's rows. */
    async firmDays(firmId: number, from: string, to: string): Promise<Outcome<DayTotals[]>> {
      if (!(await firms.get(firmId))) return refusal("firm_not_found", "firm not found");
      const read = await ledger.accountDays(firmAccount(firmId), from, to, deps.now());
      if (!read.ok) return dayRefusal(read.reason, "from, to");
      return { ok: true, value: read.days.map(dayTotals) };
    },

    async firmBalance(firmId: number, at: number | undefined): Promise<Outcome<FirmBalanceView>> {
      if (!(await firms.get(firmId))) return refusal("firm_not_found", "firm not found");
      if (at === undefined) {
        const [balance, transit, held] = await Promise.all([
          ledger.balance(firmAccount(firmId)),
          ledger.balance(inTransitAccount(firmId)),
          ledger.heldInBatches(firmId),
        ]);
        return { ok: true, value: view(firmId, balance, transit, balance - held) };
      }
      const now = deps.now();
      const [balance, transit] = await Promise.all([
        ledger.balanceAt(firmAccount(firmId), at, now),
        ledger.balanceAt(inTransitAccount(firmId), at, now),
      ]);
      if (!balance.ok || !transit.ok) {
        const reason = !balance.ok ? balance.reason : transit.ok ? "future" : transit.reason;
        return refusal(
          "invalid_input",
          reason === "future"
            ? "at: a moment still to come; a balance is known up to now"
            : "at: before the ledger's first posting; no balance was kept then",
        );
      }
      // Batches held back then are not kept: as of a past moment, what was available is the balance.
      return {
        ok: true,
        value: {
          ...view(firmId, balance.balance, transit.balance, balance.balance),
          at: new Date(at).toISOString(),
        },
      };
    },
  };
}

type Deps = Parameters<typeof createLedgerService>[0];

async function firmDay(
  deps: Deps,
  firmId: number,
  date: string,
  page: { after?: string; limit?: number },
): Promise<Outcome<FirmDayView>> {
  const { ledger, firms } = deps.repos;
  if (!(await firms.get(firmId))) return refusal("firm_not_found", "firm not found");
  const after = page.after === undefined ? undefined : cursorOf(page.after);
  if (after === null) return refusal("invalid_input", "after: not a page's end this report gave");
  const now = deps.now();
  const [balance, transit] = await Promise.all([
    ledger.accountDays(firmAccount(firmId), date, date, now),
    ledger.accountDays(inTransitAccount(firmId), date, date, now),
  ]);
  if (!balance.ok) return dayRefusal(balance.reason);
  if (!transit.ok) return dayRefusal(transit.reason);
  const [day, transitDay] = [balance.days[0], transit.days[0]];
  if (!day || !transitDay) return dayRefusal("bad_day");
  const limit = Math.min(page.limit ?? DAY_PAGE.default, DAY_PAGE.max);
  const start = turkeyDayStart(date);
  const { postings, next } = await postingsPage(
    deps,
    firmId,
    { from: start, to: start + 86_400_000 },
    limit,
    after,
  );
  return {
    ok: true,
    value: {
      firm: firmId,
      ...dayTotals(day),
      in_transit: { opening: formatMinor(transitDay.opening), closing: formatMinor(transitDay.closing) },
      postings,
      next,
    },
  };
}

/**
 * The postings of the firm's balance in the span held by at most `limit` of its entries (so at most
 * `limit` postings, fewer where a posting holds several, as a deposit and its commission do), each
 * whole, and where the next page starts. One entry more is read than the page holds: where it
 * belongs to the page's last posting, that posting waits whole for the next page.
 */
async function postingsPage(
  deps: Deps,
  firmId: number,
  span: { from: number; to: number },
  limit: number,
  after: { at: number; id: number } | undefined,
): Promise<{ postings: DayPosting[]; next: string | null }> {
  const read = (from: { at: number; id: number } | undefined) =>
    deps.repos.ledger.entries(firmAccount(firmId), span.from, span.to, limit + 1, from);
  const cursor = (e: EntryView | undefined) => (e ? `${e.at}.${e.id}` : null);
  let entries = await read(after);
  if (entries.length <= limit) return { postings: postingsOf(entries), next: null };
  const groups = postingsOf(entries);
  if (groups.length > 1) {
    // The read's last posting may go on past it: it waits whole for the next page.
    const kept = groups.slice(0, Math.min(groups.length - 1, limit));
    const lastId = kept.at(-1)?.id;
    return { postings: kept, next: cursor(entries.filter((e) => e.postingId === lastId).at(-1)) };
  }
  // One posting fills the read: read on to its end, and learn whether another follows.
  const id = entries[0]?.postingId;
  for (;;) {
    const more = await read(entries.at(-1));
    const own = more.filter((e) => e.postingId === id);
    entries = entries.concat(own);
    if (own.length < more.length) return { postings: postingsOf(entries), next: cursor(entries.at(-1)) };
    if (more.length <= limit) return { postings: postingsOf(entries), next: null };
  }
}

/** A page's end as `next` wrote it (`<at>.<entry id>`), or null when it is not one. */
function cursorOf(text: string): { at: number; id: number } | null {
  const m = /^(\d{1,15})\.(\d{1,15})$/.exec(text);
  return m ? { at: Number(m[1]), id: Number(m[2]) } : null;
}

function dayRefusal(reason: "bad_day" | "future" | "too_long", field = "date") {
  return refusal(
    "invalid_input",
    reason === "future"
      ? `${field}: a day still to come; figures are known up to today`
      : reason === "too_long"
        ? `${field}: at most ${MAX_DAYS} days at once`
        : `${field}: not a day (YYYY-MM-DD)${field === "date" ? "" : ", or to before from"}`,
  );
}

export type LedgerService = ReturnType<typeof createLedgerService>;

const view = (firm: number, balance: number, transit: number, available: number): FirmBalanceView => ({
  firm,
  balance: formatMinor(balance),
  in_transit: formatMinor(transit),
  available: formatMinor(available),
});
