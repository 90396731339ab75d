/**
 * The ledger as operators and merchants read it (docs/ledger.md, "Reports"): a firm's balance now
 * or as of a past moment, in the contract's money form. `available` is the balance less what its
 * payouts in live batches, not yet sent, hold back: what a new payout may still take.
 */
import { firmAccount, inTransitAccount } from "../domain/ledger.js";
import { formatMinor } from "../domain/money.js";
import { type Outcome, refusal } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";

export interface FirmBalanceView {
  firm: number;
  balance: string;
  in_transit: string;
  available: string;
  /** The moment asked for; absent for now. */
  at?: string;
}

export function createLedgerService(deps: { repos: Pick<Repositories, "ledger" | "firms">; now(): number }) {
  const { ledger, firms } = deps.repos;
  return {
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

export type LedgerService = ReturnType<typeof createLedgerService>;

const view = (firm: number, balance: number, transit: number, available: number): FirmBalanceView => ({
  firm,
  balance: formatMinor(balance),
  in_transit: formatMinor(transit),
  available: formatMinor(available),
});
