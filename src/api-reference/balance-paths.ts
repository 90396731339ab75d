import { BALANCE_PAGE, BALANCE_QUERY_RULES, BALANCE_REQUESTS_PER_SECOND } from "../intake/http/balance.js";
import { MERCHANT_PATHS } from "../intake/http/paths.js";
import { AUTH_ERRORS, errors, headers, type Schema } from "./openapi-parts.js";

/**
 * The balance operations: a firm's own ledger figures (intake/http/balance.ts). Their refusals of
 * the date and the moment are the ledger's own words (ledger/service.ts), said as the contract's
 * validation failures; test/api/merchant-balance.test.ts checks every answer it meets is here.
 */
const UNKNOWN_PARAMETER = "Validation failed: unknown query parameter: <name>";
const rule = (name: string) => `Validation failed: ${BALANCE_QUERY_RULES[name]}`;

const LIMITED = `Counted against a rate limit of their own, ${BALANCE_REQUESTS_PER_SECOND} requests a second per firm with bursts of ${BALANCE_REQUESTS_PER_SECOND * 2}, never against the firm's: polling a balance never takes a deposit's place. Past it: 429 \`Too many requests\` with \`Retry-After\`.`;

const found = (schema: string, description: string) => ({
  description,
  content: { "application/json": { schema: { $ref: `#/components/schemas/${schema}` } } },
});

export function balancePaths(path: (p: string) => string) {
  return {
    [path(MERCHANT_PATHS.balance)]: {
      get: {
        tags: ["Balance"],
        operationId: "getBalance",
        summary: `The calling firm's balance now, or as of a past moment. ${LIMITED}`,
        parameters: [
          {
            name: "at",
            in: "query",
            required: false,
            schema: { type: "string", format: "date-time" },
            description:
              "A past moment, ISO 8601 with its offset (2026-12-07T09:30:00+03:00); the figures as they stood then (`available` is then the balance). Left out: now.",
          },
          ...headers,
        ],
        responses: {
          "200": found("BalanceFound", "The firm's balance"),
          ...errors(
            {
              "400": [
                UNKNOWN_PARAMETER,
                rule("at"),
                "Validation failed: at: a moment still to come; a balance is known up to now",
                "Validation failed: at: before the ledger's first posting; no balance was kept then",
              ],
            },
            AUTH_ERRORS,
          ),
        },
      },
    },
    [path(MERCHANT_PATHS.balanceDay)]: {
      get: {
        tags: ["Balance"],
        operationId: "getBalanceDay",
        summary: `One Türkiye day of the calling firm's balance: its totals and its movements, a page at a time. ${LIMITED}`,
        parameters: [
          {
            name: "date",
            in: "path",
            required: true,
            schema: { type: "string", format: "date", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" },
            description: "The day in Türkiye (UTC+03:00), YYYY-MM-DD; today at the latest.",
          },
          {
            name: "after",
            in: "query",
            required: false,
            schema: { type: "string" },
            description: "The `next` of the page before, as it came; left out: the day's first page.",
          },
          {
            name: "limit",
            in: "query",
            required: false,
            schema: { type: "integer", minimum: 1, maximum: BALANCE_PAGE.max, default: BALANCE_PAGE.default },
            description: "The most movements on a page.",
          },
          ...headers,
        ],
        responses: {
          "200": found("BalanceDayFound", "The firm's day"),
          ...errors(
            {
              "400": [
                UNKNOWN_PARAMETER,
                "Validation failed: date: not a day (YYYY-MM-DD)",
                "Validation failed: date: a day still to come; figures are known up to today",
                rule("after"),
                rule("limit"),
              ],
            },
            AUTH_ERRORS,
          ),
        },
      },
    },
  };
}

/** Money in the contract's form, as text: lira with two decimals, signed. */
const lira = (description: string): Schema => ({
  type: "string",
  pattern: "^-?[0-9]+\\.[0-9]{2}$",
  description,
});

/** What a day's totals name, each as it moved the balance (so `opening` plus them is `closing`). */
const DAY_TOTALS: Record<string, string> = {
  opening: "The balance at the day's start.",
  deposits: "Deposits approved, at their final amounts.",
  withdrawals: "Withdrawals paid or sent (negative).",
  commissions: "Commissions taken (negative; positive where one was given back).",
  returns: "Payouts that came back.",
  settlements: "Money the company sent the firm (negative).",
  adjustments: "Corrections by the company, either way.",
  opening_balance: "The balance the firm's ledger started with, on the day it was set.",
  other: "Present only when not zero: movements none of the above names.",
  closing: "The balance at the day's end (now, for today).",
};

export function balanceSchemas(): Record<string, Schema> {
  const envelope = (data: string) => ({
    type: "object",
    required: ["success", "data"],
    properties: { success: { const: true }, data: { $ref: `#/components/schemas/${data}` } },
  });
  return {
    BalanceFound: envelope("Balance"),
    Balance: {
      type: "object",
      required: ["balance", "in_transit", "available", "currency", "as_of"],
      properties: {
        balance: lira(
          "What the service owes the firm: deposits less commissions, less withdrawals paid or on their way; may be negative.",
        ),
        in_transit: lira("Withdrawals that left the balance and are not yet seen leaving the bank."),
        available: lira("The balance less what payouts in batches not yet sent hold back."),
        currency: { const: "TRY" },
        as_of: { type: "string", format: "date-time", description: "The moment the figures are of." },
      },
    },
    BalanceDayFound: envelope("BalanceDay"),
    BalanceDay: {
      type: "object",
      required: [
        "date",
        ...Object.keys(DAY_TOTALS).filter((k) => k !== "other"),
        "currency",
        "in_transit",
        "movements",
        "next",
      ],
      properties: {
        date: { type: "string", format: "date", description: "The Türkiye day, YYYY-MM-DD." },
        ...Object.fromEntries(Object.entries(DAY_TOTALS).map(([k, d]) => [k, lira(d)])),
        currency: { const: "TRY" },
        in_transit: {
          type: "object",
          required: ["opening", "closing"],
          properties: { opening: lira("At the day's start."), closing: lira("At the day's end.") },
          description: "Withdrawals in transit at the day's start and end (`opening`, `closing`).",
        },
        movements: {
          type: "array",
          items: { $ref: "#/components/schemas/BalanceMovement" },
          description: "This page's movements, oldest first.",
        },
        next: {
          type: ["string", "null"],
          description: "Where the next page starts (send it as `after`); null on the day's last page.",
        },
      },
    },
    BalanceMovement: {
      type: "object",
      description: "One movement of the firm's balance, as it moved it: `net` = `amount` − `fee`.",
      required: ["id", "type", "transaction_id", "reference", "amount", "fee", "net", "at"],
      properties: {
        id: { type: "integer", description: "The movement's own id: stable and unique." },
        type: {
          enum: [
            "deposit",
            "withdrawal_sent",
            "withdrawal_paid",
            "withdrawal_returned",
            "settlement",
            "adjustment",
            "opening_balance",
            "correction",
            "other",
          ],
          description:
            "`withdrawal_sent`: a payout left the balance for the bank; `withdrawal_paid`: a withdrawal paid (by hand: the amount and the commission; after `withdrawal_sent`: the commission alone); `withdrawal_returned`: a payout came back.",
        },
        transaction_id: {
          type: ["integer", "null"],
          description:
            "The firm's transaction it belongs to; null for a settlement, an adjustment, an opening balance.",
        },
        reference: {
          type: ["string", "null"],
          description: "That transaction's reference, the one the firm sent; null with `transaction_id`.",
        },
        amount: lira("Gross: what moved the balance before the commission (a withdrawal negative)."),
        fee: lira("The commission taken (negative when one was given back)."),
        net: lira("What moved the balance: `amount` − `fee`."),
        at: { type: "string", format: "date-time" },
      },
    },
  };
}
