import { METHODS, type Method } from "../domain/methods.js";
import { resolveMiddleName } from "../domain/middle-name.js";
import { parseAmount } from "../domain/money.js";
import { withoutControlCharacters, withoutLoneSurrogates } from "../domain/text-rules.js";
import {
  amountTextField,
  bankCodeField,
  checkFields,
  type FieldSpec,
  ibanField,
  methodField,
  nameField,
  nationalIdField,
  redirectField,
  referenceField,
  returnUrlField,
  userIdField,
  usernameField,
} from "./fields.js";
import { ignoredFieldsOf } from "./ignored-fields.js";
import { checkReturnUrl } from "./return-url.js";

/** The payer fields every deposit and withdrawal carries, after validation. */
export interface PayerFields {
  bankCode: string;
  firstName: string;
  lastName: string;
  middleName: string | null;
  username: string;
  userId: string;
  reference: string;
  nationalId: string | null;
  /** Top-level keys of the body the endpoint does not read (ignored-fields.ts); null when none. */
  ignoredFields: string[] | null;
}

export interface DepositRequest extends PayerFields {
  /** Absent exactly when redirect is true (hosted mode). */
  amountMinor: number | null;
  redirect: boolean;
  method: Method;
  returnUrl: string | null;
}

export interface WithdrawalRequest extends PayerFields {
  amountMinor: number;
  /** How the payout is to be sent; the withdrawal table has no Method, so it is never refused. */
  method: Method;
  iban: string | null;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

const AMOUNT_RULE_MESSAGES = {
  format: "must be a decimal number",
  decimals: "must have at most 2 decimal places",
  positive: "must be greater than 0",
  max: "must not exceed 999999999.99",
} as const;

const AMOUNT_NOT_IN_HOSTED_MODE = "Validation failed: Amount must not be sent when Redirect is true";

/** An amount typed as text ("149.50"), with the API's messages for each rule it breaks. */
export function amountMinor(text: string): Parsed<number> {
  const parsed = parseAmount(text);
  if (parsed.ok) return { ok: true, value: parsed.minor };
  return { ok: false, message: `Validation failed: Amount ${AMOUNT_RULE_MESSAGES[parsed.rule]}` };
}

function asObject(body: unknown): Parsed<Record<string, unknown>> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return { ok: false, message: "Validation failed: request body must be a JSON object" };
  }
  return { ok: true, value: body as Record<string, unknown> };
}

/**
 * `v` holds the validated fields; middle_name is read from the raw body because it never fails.
 * Callers add their own fields with Object.assign, not `{ ...payer, … }`: on Node 20's V8 each
 * property added after a spread costs about a microsecond, on every request.
 */
function payerFields(
  v: Record<string, unknown>,
  raw: Record<string, unknown>,
  bankCode: unknown,
  known: ReadonlySet<string>,
): PayerFields {
  return {
    bankCode: bankCode as string,
    firstName: v.first_name as string,
    lastName: v.last_name as string,
    middleName: resolveMiddleName(raw.middle_name),
    username: v.username as string,
    userId: v.user_id as string,
    reference: v.reference as string,
    nationalId: (v.national_id as string | undefined) ?? null,
    ignoredFields: ignoredFieldsOf(raw, known),
  };
}

const f = (key: string, struct: string, schema: FieldSpec["schema"]): FieldSpec => ({ key, struct, schema });

/**
 * The request tables, in the contract's order: the parsers below check them and the OpenAPI
 * document (src/api-reference/) describes them, so the two cannot drift apart.
 */
export const DEPOSIT_FIELDS = {
  amount: f("amount", "Amount", amountTextField),
  redirect: f("redirect", "Redirect", redirectField),
  rest: [
    f("bank_code", "BankCode", bankCodeField),
    f("national_id", "NationalID", nationalIdField),
    f("first_name", "FirstName", nameField),
    f("last_name", "LastName", nameField),
    f("username", "Username", usernameField),
    f("user_id", "UserID", userIdField),
    f("reference", "Reference", referenceField),
    f("method", "Method", methodField),
    f("return_url", "ReturnURL", returnUrlField),
  ],
} as const;

export const WITHDRAWAL_FIELDS = {
  bankCode: f("bank_code", "BankCode", bankCodeField),
  amount: f("amount", "Amount", amountTextField),
  rest: [
    f("first_name", "FirstName", nameField),
    f("last_name", "LastName", nameField),
    f("national_id", "NationalID", nationalIdField),
    f("iban", "IBAN", ibanField),
    f("reference", "Reference", referenceField),
    f("user_id", "UserID", userIdField),
    f("username", "Username", usernameField),
  ],
} as const;

/** Every key a deposit's body may carry that intake reads: the table's, and middle_name. */
const DEPOSIT_KEYS: ReadonlySet<string> = new Set([
  DEPOSIT_FIELDS.amount.key,
  DEPOSIT_FIELDS.redirect.key,
  ...DEPOSIT_FIELDS.rest.map((field) => field.key),
  "middle_name",
]);

/** A withdrawal's: the table's, middle_name, and method (withdrawalMethod reads it). */
const WITHDRAWAL_KEYS: ReadonlySet<string> = new Set([
  WITHDRAWAL_FIELDS.bankCode.key,
  WITHDRAWAL_FIELDS.amount.key,
  ...WITHDRAWAL_FIELDS.rest.map((field) => field.key),
  "middle_name",
  "method",
]);

/** Field order is the order of the contract's request table; the first failing field is reported. */
export function parseDepositRequest(body: unknown): Parsed<DepositRequest> {
  const object = asObject(body);
  if (!object.ok) return object;
  const raw = object.value;

  // Amount comes first, and its rule depends on Redirect, so the pair is judged before the rest.
  // In hosted mode any amount is one too many, whatever its JSON type: the rule it breaks is that
  // it must not be sent, not that it should have been a string.
  if (raw.redirect === true && raw.amount !== undefined && raw.amount !== null && raw.amount !== "") {
    return { ok: false, message: AMOUNT_NOT_IN_HOSTED_MODE };
  }
  const amount = checkFields(raw, [DEPOSIT_FIELDS.amount]);
  if (!amount.ok) return amount;
  const amountText = amount.value.amount as string | undefined;
  const redirect = checkFields(raw, [DEPOSIT_FIELDS.redirect]);
  if (!redirect.ok) {
    // Amount is first in the table: a malformed amount is reported before a malformed Redirect.
    const own = amountText === undefined ? undefined : amountMinor(amountText);
    return own && !own.ok ? own : redirect;
  }
  const isHosted = redirect.value.redirect as boolean;
  if (!isHosted && amountText === undefined) {
    return { ok: false, message: "Validation failed: Amount is required when Redirect is false" };
  }
  let minor: number | null = null;
  if (amountText !== undefined) {
    const parsed = amountMinor(amountText);
    if (!parsed.ok) return parsed;
    minor = parsed.value;
  }

  const rest = checkFields(raw, DEPOSIT_FIELDS.rest);
  if (!rest.ok) return rest;
  const v = rest.value;
  const returnUrl = (v.return_url as string | undefined) ?? null;
  // return_url is validated and used in hosted mode only; in direct mode only its length counts.
  if (isHosted && returnUrl !== null) {
    const problem = checkReturnUrl(returnUrl);
    if (problem) return { ok: false, message: problem };
  }
  return {
    ok: true,
    value: Object.assign(payerFields(v, raw, v.bank_code, DEPOSIT_KEYS), {
      amountMinor: minor,
      redirect: isHosted,
      method: v.method as Method,
      returnUrl: isHosted ? returnUrl : null,
    }),
  };
}

/**
 * The withdrawal IBAN as stored: never refused for its content (the contract), but without control
 * characters, which PostgreSQL text cannot all hold and which only come from pasting or broken
 * clients ("TR33…26\n" is the IBAN the payee meant), and without lone surrogates, which no store
 * keeps as sent. Nothing left counts as absent.
 */
function ibanOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const cleaned = withoutLoneSurrogates(withoutControlCharacters(value));
  return cleaned === "" ? null : cleaned;
}

/**
 * A withdrawal's method: the contract's withdrawal table has no Method, yet its Transaction view
 * and callbacks carry one. The method the merchant asks for is kept, read in any letter case and
 * without surrounding spaces (" EFT " is eft: nothing else could have been meant); anything else
 * (absent, "", "swift", 5) reads as fast, the deposits' default, and is never a 400 for a field the
 * table does not list.
 */
export function withdrawalMethod(value: unknown): Method {
  if (typeof value !== "string") return "fast";
  const asked = value.trim().toLowerCase();
  return (METHODS as readonly string[]).includes(asked) ? (asked as Method) : "fast";
}

export function parseWithdrawalRequest(body: unknown): Parsed<WithdrawalRequest> {
  const object = asObject(body);
  if (!object.ok) return object;
  const raw = object.value;
  const bank = checkFields(raw, [WITHDRAWAL_FIELDS.bankCode]);
  if (!bank.ok) return bank;
  const amount = checkFields(raw, [WITHDRAWAL_FIELDS.amount]);
  if (!amount.ok) return amount;
  const amountText = amount.value.amount as string | undefined;
  if (amountText === undefined) return { ok: false, message: "Validation failed: Amount is required" };
  const minor = amountMinor(amountText);
  if (!minor.ok) return minor;
  const rest = checkFields(raw, WITHDRAWAL_FIELDS.rest);
  if (!rest.ok) return rest;
  const v = rest.value;
  return {
    ok: true,
    value: Object.assign(payerFields(v, raw, bank.value.bank_code, WITHDRAWAL_KEYS), {
      amountMinor: minor.value,
      method: withdrawalMethod(raw.method),
      iban: ibanOf(v.iban as string | undefined),
    }),
  };
}

/**
 * The amount a payer submits on the hosted page: `{"amount": "250.00"}`, with the same rules and
 * messages as the API's amount.
 */
export function parsePageAmount(body: unknown): Parsed<number> {
  const object = asObject(body);
  if (!object.ok) return object;
  const amount = object.value.amount;
  if (amount === undefined || amount === null || amount === "") {
    return { ok: false, message: "Validation failed: Amount is required" };
  }
  if (typeof amount !== "string") return { ok: false, message: "Validation failed: Amount must be a string" };
  return amountMinor(amount);
}
