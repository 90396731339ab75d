/**
 * A firm's share of a payment account's daily cap: the most of the account's day (pending and
 * approved deposits) that one firm's deposits may take, so that one firm cannot fill the accounts
 * every firm shares (docs/adr/0014-default-cap-share.md).
 *
 * Every live firm (active, not a test firm, deposits open) routes to every account of the live
 * pool, so an account is shared exactly when another live firm exists besides the depositing one.
 */

/**
 * The share that holds for one deposit, percent; null: the whole cap.
 * - `own`: the firm's `max_cap_share` as the admin set it (1 to 100; 100 is the whole cap, "no
 *   limit" said explicitly); it wins over the default whether or not the account is shared.
 * - `fallback`: the service's default share (PAYINTAKE_DEFAULT_CAP_SHARE; 100 turns it off).
 * - `shared`: another live firm routes to the account; alone, a firm's share is the whole cap.
 */
export function capShareFor(own: number | null, fallback: number, shared: boolean): number | null {
  if (own !== null) return own;
  return shared ? fallback : null;
}

/** Whether firms other than `firmId` are among the live firms: then they share every account. */
export function sharedWithOthers(liveFirms: ReadonlySet<number>, firmId: number): boolean {
  return liveFirms.size > (liveFirms.has(firmId) ? 1 : 0);
}

/** A share of a cap in whole minor units (rounded down); null share: the whole cap. */
export function shareOf(cap: number, percent: number | null): number {
  return percent === null ? cap : Math.floor((cap * percent) / 100);
}
