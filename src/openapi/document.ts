import { z } from "zod";
import { type FieldSpec, middleNameDoc, REQUIRED_FIELDS, withdrawalMethodDoc } from "../domain/fields.js";
import { DEPOSIT_FIELDS, WITHDRAWAL_FIELDS } from "../domain/requests.js";
import { MERCHANT_PATHS } from "../http/merchant/paths.js";
import { REJECTIONS } from "../http/merchant/rejections.js";

/**
 * The OpenAPI 3.1 document of /paymentapi/v1, built from the field schemas the server validates
 * with (domain/fields.ts metadata, domain/requests.ts order) and the rejection table it answers
 * with; served at /openapi.json and rendered at /docs. test/api/openapi.test.ts sends requests
 * built from this document to the server and fails when the two disagree.
 */
type Schema = Record<string, unknown>;

/** A field's JSON Schema from its zod metadata; `x-field` is the name validation messages use. */
function jsonOf(spec: FieldSpec): Schema {
  const { $schema: _, ...json } = z.toJSONSchema(spec.schema, { io: "input", unrepresentable: "any" });
  return { ...json, "x-field": spec.struct };
}

/** A request table as a JSON Schema object. */
function objectOf(specs: readonly FieldSpec[], extra: Record<string, Schema> = {}, required: string[] = []) {
  const properties: Record<string, Schema> = {};
  for (const spec of specs) properties[spec.key] = jsonOf(spec);
  return {
    type: "object",
    properties: { ...properties, ...extra },
    required: [...specs.filter((s) => REQUIRED_FIELDS.has(s.schema)).map((s) => s.key), ...required],
  };
}

const error = (messages: string[]) => ({
  description: messages.length === 1 ? (messages[0] as string) : `One of: ${messages.join("; ")}`,
  content: {
    "application/json": {
      schema: { $ref: "#/components/schemas/Error" },
      examples: Object.fromEntries(
        messages.map((m, i) => [`e${i + 1}`, { summary: m, value: { success: false, message: m } }]),
      ),
    },
  },
});

const AUTH_401 = [
  "Invalid API key",
  "Missing authentication headers",
  "Request timestamp out of range",
  "Invalid nonce",
  "Invalid signature",
  "Nonce already used",
];
/** Messages by HTTP status; several groups are merged per status (one response object each). */
type Messages = Record<string, string[]>;

/** What any merchant operation may answer before its own checks (authentication, the URL itself). */
const AUTH_ERRORS: Messages = {
  "400": ["Bad request"],
  "401": AUTH_401,
  "403": ["API key is inactive"],
  "414": ["Request URL too long"],
  "429": ["Too many requests"],
  "500": ["An internal error occurred. Please try again later."],
};
const businessErrors = (kinds: (keyof typeof REJECTIONS)[]): Messages => {
  const byStatus: Messages = {};
  for (const k of kinds) {
    const status = String(REJECTIONS[k].status);
    byStatus[status] = [...(byStatus[status] ?? []), REJECTIONS[k].message];
  }
  return byStatus;
};
const errors = (...groups: Messages[]) => {
  const merged: Messages = {};
  for (const group of groups) {
    for (const [status, messages] of Object.entries(group))
      merged[status] = [...(merged[status] ?? []), ...messages];
  }
  return Object.fromEntries(Object.entries(merged).map(([status, messages]) => [status, error(messages)]));
};
const BODY_ERRORS: Messages = {
  "400": [
    "Validation failed: request body is not valid JSON",
    "Validation failed: request body must be a JSON object",
  ],
  "413": ["Request body too large"],
};
const CALLBACK_URL_ERRORS: Messages = {
  "400": [
    "X-Callback-URL must match the firm's registered webhook host",
    "Callback URL not configured on provider",
    "Callback URL is not allowed",
  ],
};
const AMOUNT_ERRORS = [
  "Validation failed: Amount must be a string",
  "Validation failed: Amount must be a decimal number",
  "Validation failed: Amount must have at most 2 decimal places",
  "Validation failed: Amount must be greater than 0",
  "Validation failed: Amount must not exceed 999999999.99",
];
const VALIDATION =
  "Validation failed: <Field> is required | must be a string | is too short (under N chars) | is too long (over N chars) | contains invalid characters; the first failing field in table order (docs/errors.md)";

const headers = [
  {
    name: "X-Timestamp",
    in: "header",
    required: true,
    schema: { type: "string", pattern: "^[0-9]+$" },
    description: "Unix time in whole seconds, within ±300 s of the server's clock.",
  },
  {
    name: "X-Nonce",
    in: "header",
    required: true,
    schema: { type: "string", minLength: 8, maxLength: 64 },
    description: "Single use per firm within its timestamp window.",
  },
  {
    name: "X-Signature",
    in: "header",
    required: true,
    schema: { type: "string", pattern: "^[0-9a-f]{64}$" },
    description: "Lowercase hex HMAC-SHA256 (see Signing).",
  },
];
const callbackHeader = {
  name: "X-Callback-URL",
  in: "header",
  required: false,
  schema: { type: "string", format: "uri" },
  description: "Where this transaction's callback goes; scheme, host and port must equal the firm's webhook.",
};

const SIGNING = `Every request carries \`X-API-Key\`, \`X-Timestamp\`, \`X-Nonce\` and \`X-Signature\`:

\`\`\`
X-Signature = hex(HMAC-SHA256(secret_key, METHOD + "\\n" + PATH + "\\n" + BODY + "\\n" + X-Timestamp + "\\n" + X-Nonce))
\`\`\`

PATH is the full versioned path without the query (\`/paymentapi/v1/deposits\`); BODY is the exact
bytes sent (empty for GET); the hex is lowercase. See the integration guide for code in curl,
TypeScript, PHP and Python.`;

export function openApiDocument() {
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
  const path = (p: string) => p.replace(/:([a-z_]+)/g, "{$1}");
  const transactionResponses = {
    "200": {
      description: "Found",
      content: { "application/json": { schema: { $ref: "#/components/schemas/TransactionFound" } } },
    },
    ...errors({ "404": ["transaction not found"] }, AUTH_ERRORS),
  };

  return {
    openapi: "3.1.0",
    info: {
      title: "payintake merchant API",
      version: "1",
      description: `Signed HTTP API for deposits (bank transfer: FAST, EFT, havale), withdrawals and queries.\n\n## Signing\n\n${SIGNING}`,
    },
    // Relative: the document is served by the server it describes.
    servers: [{ url: "/" }],
    security: [{ ApiKey: [], Signature: [] }],
    tags: [
      { name: "Deposits" },
      { name: "Withdrawals" },
      { name: "Transactions" },
      {
        name: "Sandbox",
        description:
          "Test helpers for sandbox firms only (`payintake firm create --sandbox`); a live firm gets 404 `Not found`. A sandbox deposit gets the sandbox account; an amount ending in .91 is declined by the channel, .92 finds no account.",
      },
    ],
    paths: {
      [path(MERCHANT_PATHS.deposits)]: {
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
      },
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
      ...sandboxPaths(
        path(MERCHANT_PATHS.sandboxApprove),
        path(MERCHANT_PATHS.sandboxReject),
        path(MERCHANT_PATHS.sandboxCallback),
      ),
    },
    components: {
      securitySchemes: {
        ApiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "The firm's API key." },
        Signature: { type: "apiKey", in: "header", name: "X-Signature", description: SIGNING },
      },
      schemas: {
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
            iban: { type: "string", description: "Withdrawals only." },
            created_at: { type: "string", format: "date-time" },
            updated_at: { type: "string", format: "date-time" },
          },
        },
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
