import { z } from "zod";
import { type FieldSpec, REQUIRED_FIELDS } from "../intake/fields.js";
import { REJECTIONS } from "../intake/http/rejection-responses.js";

/** The pieces the OpenAPI document is built of: field schemas, error answers, the signing headers. */
export type Schema = Record<string, unknown>;

/** A field's JSON Schema from its zod metadata; `x-field` is the name validation messages use. */
export function jsonOf(spec: FieldSpec): Schema {
  const { $schema: _, ...json } = z.toJSONSchema(spec.schema, { io: "input", unrepresentable: "any" });
  return { ...json, "x-field": spec.struct };
}

/** A request table as a JSON Schema object. */
export function objectOf(
  specs: readonly FieldSpec[],
  extra: Record<string, Schema> = {},
  required: string[] = [],
) {
  const properties: Record<string, Schema> = {};
  for (const spec of specs) properties[spec.key] = jsonOf(spec);
  return {
    type: "object",
    properties: { ...properties, ...extra },
    required: [...specs.filter((s) => REQUIRED_FIELDS.has(s.schema)).map((s) => s.key), ...required],
  };
}

export const error = (messages: string[]) => ({
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
export type Messages = Record<string, string[]>;

/** What any merchant operation may answer before its own checks (authentication, the URL itself). */
export const AUTH_ERRORS: Messages = {
  "400": ["Bad request"],
  "401": AUTH_401,
  "403": ["API key is inactive"],
  "414": ["Request URL too long"],
  "429": ["Too many requests"],
  "500": ["An internal error occurred. Please try again later."],
};
export const businessErrors = (kinds: (keyof typeof REJECTIONS)[]): Messages => {
  const byStatus: Messages = {};
  for (const k of kinds) {
    const status = String(REJECTIONS[k].status);
    byStatus[status] = [...(byStatus[status] ?? []), REJECTIONS[k].message];
  }
  return byStatus;
};
export const errors = (...groups: Messages[]) => {
  const merged: Messages = {};
  for (const group of groups) {
    for (const [status, messages] of Object.entries(group))
      merged[status] = [...(merged[status] ?? []), ...messages];
  }
  return Object.fromEntries(
    Object.entries(merged).map(([status, messages]) => [
      status,
      status === "401" ? { ...error(messages), headers: signatureHintHeaders } : error(messages),
    ]),
  );
};

/** The answer header that shows a test firm what the server signed, when its signature failed. */
const signatureHintHeaders = {
  "X-Signature-Hint": {
    required: false,
    schema: {
      type: "string",
      example:
        "reason=signature_mismatch; method=POST; path=/paymentapi/v1/deposits; body_sha256=…; body_bytes=187; timestamp=1764990000; nonce=…",
    },
    description:
      "Test (sandbox) firms only, on a 401: which check failed and the message the server signed (method, path, the body's SHA-256 and length, timestamp, nonce; never the secret), to compare with the one the client signed (docs/sandbox.md). A live firm's answers never carry it; the body is the contract's text either way.",
  },
};
export const BODY_ERRORS: Messages = {
  "400": [
    "Validation failed: request body is not valid JSON",
    "Validation failed: request body must be a JSON object",
  ],
  "413": ["Request body too large"],
};
export const CALLBACK_URL_ERRORS: Messages = {
  "400": [
    "X-Callback-URL must match the firm's registered webhook host",
    "Callback URL not configured on provider",
    "Callback URL is not allowed",
  ],
};
export const AMOUNT_ERRORS = [
  "Validation failed: Amount must be a string",
  "Validation failed: Amount must be a decimal number",
  "Validation failed: Amount must have at most 2 decimal places",
  "Validation failed: Amount must be greater than 0",
  "Validation failed: Amount must not exceed 999999999.99",
];
export const VALIDATION =
  "Validation failed: <Field> is required | must be a string | is too short (under N chars) | is too long (over N chars) | contains invalid characters; the first failing field in table order (docs/errors.md)";

export const headers = [
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
export const callbackHeader = {
  name: "X-Callback-URL",
  in: "header",
  required: false,
  schema: { type: "string", format: "uri" },
  description: "Where this transaction's callback goes; scheme, host and port must equal the firm's webhook.",
};

/** The answer header that names the fields a test firm's request sent and the API ignored. */
export const ignoredFieldsHeaders = {
  "X-Ignored-Fields": {
    required: false,
    schema: { type: "string", example: "returnUrl, nationalid" },
    description:
      "Test (sandbox) firms only, on every answer after the body was read (success or business rejection): the top-level fields the request sent that the API does not read and so ignored, comma-separated, each percent-encoded as a URI component; at most 20, each cut to 64 characters. A live firm's answers never carry it; the body is the same either way.",
  },
};

export const SIGNING = `Every request carries \`X-API-Key\`, \`X-Timestamp\`, \`X-Nonce\` and \`X-Signature\`:

\`\`\`
X-Signature = hex(HMAC-SHA256(secret_key, METHOD + "\\n" + PATH + "\\n" + BODY + "\\n" + X-Timestamp + "\\n" + X-Nonce))
\`\`\`

PATH is the full versioned path without the query (\`/paymentapi/v1/deposits\`); BODY is the exact
bytes sent (empty for GET); the hex is lowercase. See the integration guide for code in curl,
TypeScript, PHP and Python.`;
