import { middleNameDoc, withdrawalMethodDoc } from "../intake/fields.js";
import { DEPOSIT_FIELDS, WITHDRAWAL_FIELDS } from "../intake/requests.js";
import { balanceSchemas } from "./balance-paths.js";
import { jsonOf, objectOf } from "./openapi-parts.js";

/** The document's named schemas: the two requests, built from the field tables, and the answers. */
export function componentSchemas() {
  const deposit = objectOf(DEPOSIT_FIELDS.rest, {
    amount: {
      ...jsonOf(DEPOSIT_FIELDS.amount),
      description: `${jsonOf(DEPOSIT_FIELDS.amount).description} Required when redirect is false; must not be sent when redirect is true.`,
    },
    redirect: jsonOf(DEPOSIT_FIELDS.redirect),
    middle_name: middleNameDoc,
  });
  const withdrawal = objectOf(
    [WITHDRAWAL_FIELDS.bankCode, WITHDRAWAL_FIELDS.amount, ...WITHDRAWAL_FIELDS.rest],
    { middle_name: middleNameDoc, method: withdrawalMethodDoc },
    ["amount"],
  );
  return {
    DepositRequest: deposit,
    WithdrawalRequest: withdrawal,
    Error: {
      type: "object",
      required: ["success", "message"],
      properties: { success: { const: false }, message: { type: "string" } },
    },
    DepositAccepted: {
      type: "object",
      required: ["success", "message", "assigned_bank_name", "assigned_holder_name", "assigned_iban"],
      properties: {
        success: { const: true },
        message: { const: "Yatırım talebiniz alındı" },
        assigned_bank_name: { type: "string" },
        assigned_holder_name: { type: "string" },
        assigned_iban: { type: "string" },
        payment_code: {
          type: "string",
          description:
            "Only for a firm that opted in (answer_payment_code): the code the payer writes in the transfer's description, which lets the bank statement approve the deposit.",
        },
      },
    },
    HostedDepositAccepted: {
      type: "object",
      required: ["success", "message", "payment_url"],
      properties: {
        success: { const: true },
        message: { const: "Ödeme sayfasına yönlendiriniz" },
        payment_url: {
          type: "string",
          format: "uri-reference",
          description:
            "Send the payer here; valid 30 minutes until an amount is entered. Absolute when the server has PAYMENT_PAGE_URL set (production); otherwise a path on this server (`/t/…`): resolve it against the API's base URL before redirecting.",
        },
      },
    },
    WithdrawalAccepted: {
      type: "object",
      required: ["success", "message"],
      properties: { success: { const: true }, message: { const: "Çekim talebiniz alındı" } },
    },
    TransactionFound: {
      type: "object",
      required: ["success", "status", "data"],
      properties: {
        success: { const: true },
        status: { enum: ["pending", "approved", "rejected"] },
        data: { $ref: "#/components/schemas/Transaction" },
      },
    },
    Transaction: {
      type: "object",
      required: [
        "id",
        "reference",
        "type",
        "status",
        "amount",
        "method",
        "first_name",
        "last_name",
        "username",
        "user_id",
        "national_id",
        "bank_code",
        "created_at",
        "updated_at",
      ],
      properties: {
        id: { type: "integer" },
        reference: { type: "string" },
        type: { enum: ["deposit", "withdrawal"] },
        status: { enum: ["pending", "approved", "rejected"] },
        amount: { type: "number", description: "Written with two decimals, e.g. 150.00." },
        method: { enum: ["fast", "eft", "havale"] },
        first_name: { type: "string" },
        last_name: { type: "string" },
        middle_name: { type: "string" },
        username: { type: "string" },
        user_id: { type: "string" },
        national_id: {
          type: "string",
          description:
            'Masked: the first two and last two characters around "***" ("12***01"); "***" when shorter than 6 or when none was sent.',
        },
        bank_code: { type: "string" },
        assigned_bank_name: { type: "string", description: "Deposits only." },
        assigned_holder_name: { type: "string", description: "Deposits only." },
        assigned_iban: { type: "string", description: "Deposits only." },
        payment_code: {
          type: "string",
          description: "Deposits of a firm that opted in (answer_payment_code) only.",
        },
        iban: { type: "string", description: "Withdrawals only." },
        created_at: { type: "string", format: "date-time" },
        updated_at: { type: "string", format: "date-time" },
      },
    },
    ...balanceSchemas(),
  };
}
