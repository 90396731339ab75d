/**
 * The operations, fields and answers of the OpenAPI document as Markdown: the generated half of
 * docs/api.md, which a reader of the repository sees without a running server. The document is
 * the one /openapi.json serves, so the page cannot describe another server than this one
 * (test/api/api-docs.test.ts renders the served document and compares).
 */
import type { openApiDocument } from "./document.js";

type Doc = ReturnType<typeof openApiDocument>;

/** The line in docs/api.md after which everything is generated. */
export const API_DOCS_MARKER =
  "<!-- Generated from the server's OpenAPI document by `npm run docs:api`: edit the schemas, not this. -->";
type Schema = Record<string, unknown>;

/** A table cell: one line, and a `|` does not end the cell. */
const cell = (s: unknown) => String(s).replace(/\|/g, "\\|").replace(/\n+/g, " ");
const code = (s: unknown) => `\`${String(s).replace(/\|/g, "\\|")}\``;

function rules(s: Schema): string {
  const parts: string[] = [];
  if (s.type) parts.push(Array.isArray(s.type) ? s.type.join(" or ") : String(s.type));
  if (s.enum) parts.push(`one of ${(s.enum as unknown[]).map(code).join(", ")}`);
  if (s.const !== undefined) parts.push(`always ${code(JSON.stringify(s.const))}`);
  if (s.minLength !== undefined && s.maxLength !== undefined)
    parts.push(`${s.minLength}–${s.maxLength} characters`);
  else if (s.maxLength !== undefined) parts.push(`at most ${s.maxLength} characters`);
  else if (s.minLength !== undefined) parts.push(`at least ${s.minLength} characters`);
  if (s.minimum !== undefined) parts.push(`at least ${s.minimum}`);
  if (s.maximum !== undefined) parts.push(`at most ${s.maximum}`);
  if (s.pattern) parts.push(`pattern ${code(s.pattern)}`);
  if (s.default !== undefined) parts.push(`default ${code(JSON.stringify(s.default))}`);
  return parts.join(", ");
}

const refName = (ref: unknown) => String(ref).split("/").pop() as string;

function fieldTable(schema: Schema): string[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(props).map(([name, p]) => {
    const items = (p.items as Schema | undefined)?.$ref;
    const type = p.$ref
      ? `[${refName(p.$ref)}](#${refName(p.$ref).toLowerCase()})`
      : items
        ? `array of [${refName(items)}](#${refName(items).toLowerCase()})`
        : rules(p);
    const named = p["x-field"] ? code(p["x-field"]) : "";
    return `| ${code(name)} | ${required.has(name) ? "yes" : "no"} | ${cell(type)} | ${named} | ${cell(p.description ?? "")} |`;
  });
  return ["| Field | Required | Type and rules | In messages | Meaning |", "|---|---|---|---|---|", ...rows];
}

function parameters(op: Schema): string[] {
  const params = (op.parameters ?? []) as Schema[];
  return [
    "| Name | In | Required | Rules | Meaning |",
    "|---|---|---|---|---|",
    ...params.map(
      (p) =>
        `| ${code(p.name)} | ${p.in} | ${p.required ? "yes" : "no"} | ${cell(rules(p.schema as Schema))} | ${cell(p.description ?? "")} |`,
    ),
  ];
}

function examplesOf(content: Schema | undefined): unknown[] {
  if (!content) return [];
  if (content.examples) return Object.values(content.examples as Record<string, Schema>).map((e) => e.value);
  return content.example === undefined ? [] : [content.example];
}

function schemaNames(schema: Schema | undefined): string[] {
  if (!schema) return [];
  if (schema.$ref) return [refName(schema.$ref)];
  return ((schema.oneOf ?? []) as Schema[]).map((s) => refName(s.$ref));
}

/** One row per message an error status can carry; a success names its objects. */
function answers(op: Schema): string[] {
  const out = ["| HTTP | Answer |", "|---|---|"];
  for (const [status, r] of Object.entries(op.responses as Record<string, Schema>)) {
    const json = (r.content as Record<string, Schema> | undefined)?.["application/json"];
    const messages = examplesOf(json).map((e) => (e as { message?: string }).message);
    if (messages.length > 0 && messages.every((m) => m !== undefined)) {
      for (const m of messages) out.push(`| ${status} | ${code(m)} |`);
      continue;
    }
    const shapes = schemaNames(json?.schema as Schema | undefined).map((n) => `[${n}](#${n.toLowerCase()})`);
    out.push(`| ${status} | ${cell(r.description)}${shapes.length ? `: ${shapes.join(", ")}` : ""} |`);
  }
  return out;
}

function operation(path: string, method: string, op: Schema): string[] {
  const out = [`### ${method.toUpperCase()} ${path}`, "", String(op.summary), "", ...parameters(op), ""];
  const body = op.requestBody as Schema | undefined;
  if (body) {
    const json = (body.content as Record<string, Schema>)["application/json"] as Schema;
    const name = refName((json.schema as Schema).$ref);
    out.push(`Body: [${name}](#${name.toLowerCase()}).`, "");
    for (const example of examplesOf(json)) out.push("```json", JSON.stringify(example, null, 2), "```", "");
  }
  out.push(...answers(op), "");
  return out;
}

export function renderApiMarkdown(doc: Doc): string {
  const schemas = doc.components.schemas as Record<string, Schema>;
  const out: string[] = ["## Operations", ""];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item as unknown as Record<string, Schema>))
      out.push(...operation(path, method, op));
  }
  out.push("## Objects", "");
  for (const [name, schema] of Object.entries(schemas)) {
    out.push(`### ${name}`, "");
    if (schema.description) out.push(String(schema.description), "");
    if (schema.oneOf) {
      out.push(
        `One of: ${schemaNames(schema)
          .map((n) => `[${n}](#${n.toLowerCase()})`)
          .join(", ")}.`,
        "",
      );
      continue;
    }
    out.push(...fieldTable(schema), "");
  }
  return `${out.join("\n").trimEnd()}\n`;
}
