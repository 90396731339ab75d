import { MERCHANT_PATHS } from "../intake/http/paths.js";
import { balancePaths } from "./balance-paths.js";
import {
  AMOUNT_ERRORS,
  AUTH_ERRORS,
  BODY_ERRORS,
  businessErrors,
  CALLBACK_URL_ERRORS,
  callbackHeader,
  error,
  errors,
  headers,
  ignoredFieldsHeaders,
  type Schema,
  VALIDATION,
} from "./openapi-parts.js";

/** The merchant operations of /paymentapi/v1, by their OpenAPI path (`:id` written `{id}`). */
export function merchantPaths() {
  const path = (p: string) => p.replace(/:([a-z_]+)/g, "{$1}");
  const transactionResponses = {
    "200": {
      description: "Found",
      content: { "application/json": { schema: { $ref: "#/components/schemas/TransactionFound" } } },
    },
    ...errors({ "404": ["transaction not found"] }, AUTH_ERRORS),
  };
  return {
    [path(MERCHANT_PATHS.deposits)]: depositOperation(),
    [path(MERCHANT_PATHS.withdrawals)]: {
      post: {
        tags: ["Withdrawals"],
        operationId: "createWithdrawal",
        summary: "Create a withdrawal request; operators decide it",
        parameters: [...headers, callbackHeader],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { $ref: "#/components/schemas/WithdrawalRequest" },
              example: EXAMPLE_WITHDRAWAL,
            },
          },
        },
        responses: {
          "200": {
            description: "Accepted",
            headers: ignoredFieldsHeaders,
            content: {
              "application/json": { schema: { $ref: "#/components/schemas/WithdrawalAccepted" } },
            },
          },
          ...errors(
            { "400": [VALIDATION, "Validation failed: Amount is required", ...AMOUNT_ERRORS] },
            BODY_ERRORS,
            CALLBACK_URL_ERRORS,
            businessErrors(["duplicate_reference", "pending_exists", "withdrawals_closed", "user_banned"]),
            AUTH_ERRORS,
          ),
        },
      },
    },
    [path(MERCHANT_PATHS.byId)]: {
      get: {
        tags: ["Transactions"],
        operationId: "getTransaction",
        summary: "A transaction of the calling firm by its id",
        parameters: [
          { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
          ...headers,
        ],
        responses: { ...transactionResponses, "400": error(["invalid id"]) },
      },
    },
    [path(MERCHANT_PATHS.byReference)]: {
      get: {
        tags: ["Transactions"],
        operationId: "getTransactionByReference",
        summary: "A transaction of the calling firm by its reference (the safe-retry check)",
        parameters: [
          { name: "reference", in: "path", required: true, schema: { type: "string", maxLength: 100 } },
          ...headers,
        ],
        responses: transactionResponses,
      },
    },
    ...balancePaths(path),
    ...sandboxPaths(
      path(MERCHANT_PATHS.sandboxApprove),
      path(MERCHANT_PATHS.sandboxReject),
      path(MERCHANT_PATHS.sandboxCallback),
    ),
  };
}

function depositOperation() {
  return {
    post: {
      tags: ["Deposits"],
      operationId: "createDeposit",
      summary: "Create a deposit (direct: the account in the answer; hosted: a payment page URL)",
      parameters: [...headers, callbackHeader],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: { $ref: "#/components/schemas/DepositRequest" },
            examples: {
              direct: { summary: "Direct mode", value: EXAMPLE_DEPOSIT },
              hosted: {
                summary: "Hosted mode",
                value: {
                  ...EXAMPLE_DEPOSIT,
                  amount: undefined,
                  redirect: true,
                  return_url: "https://shop.example/return",
                },
              },
            },
          },
        },
      },
      responses: {
        "200": {
          description: "Accepted (legacy firms also get business rejections with 200 and success false)",
          headers: ignoredFieldsHeaders,
          content: {
            "application/json": {
              schema: {
                oneOf: [
                  { $ref: "#/components/schemas/DepositAccepted" },
                  { $ref: "#/components/schemas/HostedDepositAccepted" },
                  { $ref: "#/components/schemas/Error" },
                ],
              },
            },
          },
        },
        ...errors(
          {
            "400": [
              VALIDATION,
              "Validation failed: Amount is required when Redirect is false",
              "Validation failed: Amount must not be sent when Redirect is true",
              ...AMOUNT_ERRORS,
              "Validation failed: Redirect must be a boolean",
              "Validation failed: Method must be one of fast, eft, havale",
              "return_url ayrıştırılamadı",
              "return_url yalnız http veya https olabilir",
              "return_url bir sunucu adı içermeli",
              "return_url kullanıcı bilgisi (userinfo) içeremez",
            ],
          },
          BODY_ERRORS,
          CALLBACK_URL_ERRORS,
          businessErrors([
            "duplicate_reference",
            "pending_exists",
            "deposits_closed",
            "user_banned",
            "amount_out_of_limits",
            "no_account",
            "channel_declined",
          ]),
          AUTH_ERRORS,
        ),
      },
    },
  };
}

const EXAMPLE_DEPOSIT = {
  amount: "150.00",
  bank_code: "AKBANK",
  national_id: "12345678901",
  first_name: "Ayşe",
  last_name: "Yılmaz",
  username: "ayse.yilmaz",
  user_id: "U-1001",
  reference: "ORD-2026-0001",
  method: "fast",
};
const EXAMPLE_WITHDRAWAL = {
  bank_code: "GARANTI",
  amount: "250.00",
  first_name: "Mehmet",
  last_name: "Demir",
  iban: "TR330006100519786457841326",
  reference: "WD-2026-0001",
  user_id: "U-1002",
  username: "mehmet.demir",
};

/** The sandbox helpers: for test firms, what an operator or the callback worker would do. */
function sandboxPaths(approve: string, reject: string, callback: string) {
  const idParam = { name: "id", in: "path", required: true, schema: { type: "integer", minimum: 1 } };
  const decided = {
    description: "Decided; the callback is on its way",
    content: {
      "application/json": {
        schema: {
          type: "object",
          required: ["success", "status", "amount", "callback_id"],
          properties: {
            success: { const: true },
            status: { enum: ["approved", "rejected"] },
            amount: { type: "string" },
            callback_id: { type: "integer" },
          },
        },
      },
    },
  };
  const common = errors(
    {
      "404": ["Not found", "transaction not found"],
      "409": ["transaction is not pending (status: approved); it was decided already"],
    },
    AUTH_ERRORS,
  );
  const body = (properties: Record<string, Schema>) => ({
    required: false,
    content: { "application/json": { schema: { type: "object", additionalProperties: false, properties } } },
  });
  return {
    [approve]: {
      post: {
        tags: ["Sandbox"],
        operationId: "sandboxApprove",
        summary: "Approve one's own pending test transaction, optionally with another amount",
        parameters: [idParam, ...headers],
        requestBody: body({ amount: { type: "string", pattern: "^[0-9]+(\\.[0-9]{1,2})?$" } }),
        responses: {
          "200": decided,
          "400": error([
            ...AMOUNT_ERRORS.filter((m) => !m.endsWith("must be a string")),
            'Validation failed: body must be {} or {"amount": "150.00"}',
            "only a deposit can be approved with another amount",
          ]),
          ...common,
        },
      },
    },
    [reject]: {
      post: {
        tags: ["Sandbox"],
        operationId: "sandboxReject",
        summary: "Reject one's own pending test transaction",
        parameters: [idParam, ...headers],
        requestBody: body({
          note: {
            type: "string",
            maxLength: 500,
            description: "Trimmed; no control characters.",
          },
        }),
        responses: {
          "200": decided,
          "400": error([
            'Validation failed: body must be {} or {"note": "..."}',
            "Validation failed: note must be at most 500 characters, no control characters",
          ]),
          ...common,
        },
      },
    },
    [callback]: {
      post: {
        tags: ["Sandbox"],
        operationId: "sandboxCallback",
        summary: "Send a decided test transaction's callback again",
        parameters: [idParam, ...headers],
        responses: {
          "200": {
            description: "Queued",
            content: {
              "application/json": {
                schema: {
                  type: "object",
                  required: ["success", "message", "callback_id"],
                  properties: {
                    success: { const: true },
                    message: { const: "callback queued" },
                    callback_id: { type: "integer" },
                  },
                },
              },
            },
          },
          ...errors(
            {
              "404": ["Not found", "transaction not found"],
              "409": ["transaction is pending: no callback yet"],
            },
            AUTH_ERRORS,
          ),
        },
      },
    },
  };
}
