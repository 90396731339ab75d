/**
 * Field schemas for request bodies. Messages follow the contract's Go-struct style: the caller
 * prefixes `Validation failed: <StructField> `, so each message here is the violated rule only.
 * JSON null counts as absent, like a missing key. Each schema also carries, as zod metadata, the
 * JSON Schema of what it accepts: the OpenAPI document (src/api-reference/) is generated from these.
 */
import { z } from "zod";
import { METHODS, type Method } from "../domain/methods.js";
import { codePointLength, hasInvalidCharacters, isNameText, isUsernameText } from "../domain/text-rules.js";

type Field<T> = z.ZodType<T>;

/** The schemas of fields a request must carry (the document's `required`). */
export const REQUIRED_FIELDS = new WeakSet<z.ZodType>();

const absent = (v: unknown) => v === undefined || v === null;

function text(opts: {
  min: number;
  max: number;
  required: boolean;
  description: string;
  /**
   * Control characters and lone surrogates pass this schema (the caller deals with them): for fields
   * the contract never refuses for their content (the withdrawal IBAN, a direct-mode return_url).
   */
  controlsAllowed?: boolean;
}) {
  const schema = z
    .unknown()
    .superRefine((v, ctx) => {
      if (absent(v) || v === "") {
        if (opts.required) ctx.addIssue({ code: "custom", message: "is required" });
        return;
      }
      if (typeof v !== "string") return ctx.addIssue({ code: "custom", message: "must be a string" });
      const len = codePointLength(v);
      if (len < opts.min)
        return ctx.addIssue({ code: "custom", message: `is too short (under ${opts.min} chars)` });
      if (len > opts.max)
        return ctx.addIssue({ code: "custom", message: `is too long (over ${opts.max} chars)` });
      if (!opts.controlsAllowed && hasInvalidCharacters(v))
        ctx.addIssue({ code: "custom", message: "contains invalid characters" });
    })
    .transform((v) => (typeof v === "string" && v !== "" ? v : undefined))
    .meta({
      type: "string",
      ...(opts.min > 0 ? { minLength: opts.min } : {}),
      maxLength: opts.max,
      description: `${opts.description} Unicode code points are counted${opts.controlsAllowed ? "" : "; no control characters, bidirectional controls, line separators or unpaired surrogates"}.`,
    });
  if (opts.required) REQUIRED_FIELDS.add(schema);
  return schema;
}

function withCharset(
  base: Field<string | undefined>,
  test: (v: string) => boolean,
  rule: string,
): Field<string | undefined> {
  const meta = z.globalRegistry.get(base) ?? {};
  const schema = base
    .superRefine((v, ctx) => {
      if (v !== undefined && !test(v))
        ctx.addIssue({ code: "custom", message: "contains invalid characters" });
    })
    .meta({ ...meta, description: `${meta.description} ${rule}` });
  if (REQUIRED_FIELDS.has(base)) REQUIRED_FIELDS.add(schema);
  return schema;
}

export const bankCodeField = text({
  min: 1,
  max: 20,
  required: true,
  description: "The payer's bank, e.g. AKBANK; accounts at that bank are preferred.",
});
export const nameField = withCharset(
  text({ min: 2, max: 50, required: true, description: "The payer's name." }),
  isNameText,
  "Letters of any script (with combining marks), spaces, hyphen, apostrophe and dot.",
);
export const usernameField = withCharset(
  text({ min: 3, max: 100, required: true, description: "The payer's username at the merchant." }),
  isUsernameText,
  "Letters, digits and symbols such as @ + _ . - #; no whitespace, invisible characters or < > \" ' ` \\.",
);
export const userIdField = text({
  min: 1,
  max: 50,
  required: true,
  description: "The payer's id at the merchant; one pending transaction per type and user.",
});
export const referenceField = text({
  min: 1,
  max: 100,
  required: true,
  description: "The merchant's own id of this transaction, unique per firm; the key of safe retries.",
});
/**
 * Whether a value could be a stored reference: one referenceField accepts. Anything else is never
 * looked up (PostgreSQL text cannot hold the NUL a query path may carry: a lookup would be a 500).
 */
export function couldBeReference(value: string): boolean {
  return value !== "" && referenceField.safeParse(value).success;
}

export const nationalIdField = text({
  min: 0,
  max: 64,
  required: false,
  description: "The payer's national id (TC kimlik no); stored encrypted, shown masked.",
});
export const returnUrlField = text({
  min: 0,
  max: 500,
  required: false,
  description:
    "Hosted mode: where the payment page's return button leads (absolute http(s), no userinfo). Direct mode: only its length is checked.",
  // Hosted mode refuses them as unparseable (return-url.ts); direct mode ignores the value.
  controlsAllowed: true,
});
export const ibanField = text({
  min: 0,
  max: 64,
  required: false,
  description:
    "The payer's IBAN to pay out to; never refused for its content (control characters and lone surrogates are dropped); operators see whether it is valid.",
  controlsAllowed: true,
});

export const methodField: Field<Method> = z
  .unknown()
  .superRefine((v, ctx) => {
    if (absent(v) || v === "") return;
    if (typeof v !== "string") return ctx.addIssue({ code: "custom", message: "must be a string" });
    if (!(METHODS as readonly string[]).includes(v))
      ctx.addIssue({ code: "custom", message: "must be one of fast, eft, havale" });
  })
  .transform((v) => (typeof v === "string" && v !== "" ? (v as Method) : "fast"))
  .meta({ type: "string", enum: [...METHODS], default: "fast", description: "The transfer method." });

export const redirectField: Field<boolean> = z
  .unknown()
  .superRefine((v, ctx) => {
    if (!absent(v) && typeof v !== "boolean") ctx.addIssue({ code: "custom", message: "must be a boolean" });
  })
  .transform((v) => v === true)
  .meta({
    type: "boolean",
    default: false,
    description: "true opens a hosted payment page (no amount: the payer enters it there).",
  });

/** Amount as sent: a string or absent (an empty string equals absent). Parsing happens in amount.ts. */
export const amountTextField: Field<string | undefined> = z
  .unknown()
  .superRefine((v, ctx) => {
    if (!absent(v) && typeof v !== "string") ctx.addIssue({ code: "custom", message: "must be a string" });
  })
  .transform((v) => (typeof v === "string" && v !== "" ? v : undefined))
  .meta({
    type: "string",
    pattern: "^[0-9]+(\\.[0-9]{1,2})?$",
    examples: ["150.00"],
    description: "TRY as a decimal string, greater than 0, at most 2 decimals, at most 999999999.99.",
  });

/** Never a rejection: an invalid or placeholder value is ignored (decisions.md). */
export const middleNameDoc = {
  type: "string",
  description:
    "Optional middle name. Trimmed; the placeholders null, undefined, none and yok (any letter case), values without a letter (-, .) and other invalid values are ignored, never rejected. Sent back in callbacks when the firm enables it.",
} as const;

/** A withdrawal's method, read leniently (requests.ts `withdrawalMethod`), so outside WITHDRAWAL_FIELDS. */
export const withdrawalMethodDoc = {
  type: "string",
  enum: [...METHODS],
  default: "fast",
  description:
    "The transfer method the merchant asks for the payout, shown to the operator who pays it out. Not in the contract's withdrawal table, so never refused: read in any letter case, and anything other than fast, eft or havale is stored as fast.",
} as const;

export interface FieldSpec {
  key: string;
  struct: string;
  schema: Field<unknown>;
}

export type FieldCheck<T> = { ok: true; value: T } | { ok: false; message: string };

/** Runs the field schemas in the contract's order and reports the first failing field only. */
export function checkFields(
  body: Record<string, unknown>,
  specs: readonly FieldSpec[],
): FieldCheck<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const spec of specs) {
    const result = spec.schema.safeParse(body[spec.key]);
    if (!result.success) {
      return {
        ok: false,
        message: `Validation failed: ${spec.struct} ${result.error.issues[0]?.message ?? "is invalid"}`,
      };
    }
    out[spec.key] = result.data;
  }
  return { ok: true, value: out };
}
