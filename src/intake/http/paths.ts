/**
 * The merchant API's routes: registered from here and documented from here (src/api-reference/), so a
 * route cannot exist without its entry in /openapi.json.
 */
export const MERCHANT_PATHS = {
  deposits: "/paymentapi/v1/deposits",
  withdrawals: "/paymentapi/v1/withdrawals",
  byReference: "/paymentapi/v1/transactions/by-reference/:reference",
  byId: "/paymentapi/v1/transactions/:id",
  /** The firm's own ledger figures (docs/api.md, "Balance"), with a rate limit of their own. */
  balance: "/paymentapi/v1/balance",
  balanceDay: "/paymentapi/v1/balance/days/:date",
  /** Test helpers, for sandbox firms only (docs/sandbox.md). */
  sandboxApprove: "/paymentapi/v1/sandbox/transactions/:id/approve",
  sandboxReject: "/paymentapi/v1/sandbox/transactions/:id/reject",
  sandboxCallback: "/paymentapi/v1/sandbox/transactions/:id/callback",
} as const;
