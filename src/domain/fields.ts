import { z } from "zod";
import { codePointLength, hasControlCharacters, isNameText, isUsernameText } from "./text-rules.js";

/**
 * Field schemas for request bodies. Messages follow the contract's Go-struct style: the caller
 * prefixes `Validation failed: <StructField> `, so each message here is the violated rule only.
 * JSON null counts as absent, like a missing key.
 */
type Field<T> = z.ZodType<T>;

const absent = (v: unknown) => v === undefined || v === null;

function text(opts: { min: number; max: number; required: boolean }) {
  return z
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
      if (hasControlCharacters(v)) ctx.addIssue({ code: "custom", message: "contains invalid characters" });
    })
    .transform((v) => (typeof v === "string" && v !== "" ? v : undefined));
}

function withCharset(
  base: Field<string | undefined>,
  test: (v: string) => boolean,
): Field<string | undefined> {
  return base.superRefine((v, ctx) => {
    if (v !== undefined && !test(v)) ctx.addIssue({ code: "custom", message: "contains invalid characters" });
  });
}

export const bankCodeField = text({ min: 1, max: 20, required: true });
export const nameField = withCharset(text({ min: 2, max: 50, required: true }), isNameText);
export const usernameField = withCharset(text({ min: 3, max: 100, required: true }), isUsernameText);
export const userIdField = text({ min: 1, max: 50, required: true });
export const referenceField = text({ min: 1, max: 100, required: true });
export const nationalIdField = text({ min: 0, max: 64, required: false });
export const returnUrlField = text({ min: 0, max: 500, required: false });
export const ibanField = text({ min: 0, max: 64, required: false });

export const METHODS = ["fast", "eft", "havale"] as const;
export type Method = (typeof METHODS)[number];

export const methodField: Field<Method> = z
  .unknown()
  .superRefine((v, ctx) => {
    if (absent(v) || v === "") return;
    if (typeof v !== "string") return ctx.addIssue({ code: "custom", message: "must be a string" });
    if (!(METHODS as readonly string[]).includes(v))
      ctx.addIssue({ code: "custom", message: "must be one of fast, eft, havale" });
  })
  .transform((v) => (typeof v === "string" && v !== "" ? (v as Method) : "fast"));

export const redirectField: Field<boolean> = z
  .unknown()
  .superRefine((v, ctx) => {
    if (!absent(v) && typeof v !== "boolean") ctx.addIssue({ code: "custom", message: "must be a boolean" });
  })
  .transform((v) => v === true);

/** Amount as sent: a string or absent (an empty string equals absent). Parsing happens in amount.ts. */
export const amountTextField: Field<string | undefined> = z
  .unknown()
  .superRefine((v, ctx) => {
    if (!absent(v) && typeof v !== "string") ctx.addIssue({ code: "custom", message: "must be a string" });
  })
  .transform((v) => (typeof v === "string" && v !== "" ? v : undefined));

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
