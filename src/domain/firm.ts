/** A firm as the request path sees it: settings plus the opened secret key. */
export interface Firm {
  id: number;
  name: string;
  /**
   * Null when the sealed secret does not open for this firm (altered, or copied from another row,
   * in the database): no signature verifies and no callback is signed until a new one is issued.
   */
  secret: string | null;
  active: boolean;
  webhookUrl: string | null;
  /** Central callback URL of the firm's platform or aggregator provider, if it registered one. */
  providerCallbackUrl: string | null;
  legacyHttp: boolean;
  callbackMiddleName: boolean;
  /** Direct-mode answers and queries of deposits add `payment_code` (an opt-in: docs/reconciliation.md). */
  answerPaymentCode: boolean;
  depositMin: number | null;
  depositMax: number | null;
  /** The most deposits the firm may have pending at once; null: no bound. */
  maxPendingCount: number | null;
  /** The most its pending deposits may add up to, minor units; null: no bound. */
  maxPendingAmount: number | null;
  /**
   * The most of each capped account's day its deposits may take, percent (100: the whole cap); null:
   * the service's default share while other live firms share the account (domain/cap-share.ts).
   */
  maxCapShare: number | null;
  depositsOpen: boolean;
  withdrawalsOpen: boolean;
  rateLimitPerSecond: number;
  /** A test firm: deposits get the sandbox account; the sandbox helpers answer it. */
  sandbox: boolean;
}

/**
 * A live firm's webhook over plain http: the contract allows it, but its callbacks carry payers'
 * names (`full_name`) across the network in clear, so operators are told where they set it (the
 * admin API's and CLI's answers, the console's firm screen). A test firm's payers are not real.
 */
export function isPlainHttpLiveWebhook(sandbox: boolean, webhookUrl: string | null): boolean {
  return !sandbox && webhookUrl !== null && webhookUrl.slice(0, 7).toLowerCase() === "http://";
}

export const PLAIN_HTTP_WEBHOOK_WARNING =
  "webhook_url is plain http: this live firm's callbacks carry payers' names unencrypted; use an https URL";
