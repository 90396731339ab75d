/**
 * Amounts this instance has routed to accounts with a daily cap and not yet written. A cap is
 * judged on what the database says each account took today plus these: deposits routed at the same
 * moment (through a slow channel, say) then cannot all pass it, as they did when only the database's
 * figure counted (review: 20 deposits of 150 TL at once took 1,500 TL against a 1,000 TL cap).
 * Other instances' deposits in flight are not seen here (docs/operations.md).
 */
export interface CapLedger {
  /** The database's figures with this instance's held amounts added. */
  withHeld(taken: ReadonlyMap<number, number>): Map<number, number>;
  held(accountId: number): number;
  /** Holds `amountMinor` on the account until the returned function is called (once is enough). */
  hold(accountId: number, amountMinor: number): () => void;
}

export function createCapLedger(): CapLedger {
  const holding = new Map<number, number>();
  return {
    withHeld(taken) {
      const total = new Map(taken);
      for (const [id, n] of holding) total.set(id, (total.get(id) ?? 0) + n);
      return total;
    },
    held: (accountId) => holding.get(accountId) ?? 0,
    hold(accountId, amountMinor) {
      holding.set(accountId, (holding.get(accountId) ?? 0) + amountMinor);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const left = (holding.get(accountId) ?? 0) - amountMinor;
        if (left > 0) holding.set(accountId, left);
        else holding.delete(accountId);
      };
    },
  };
}
