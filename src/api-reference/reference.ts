/**
 * The readable reference at /docs: one static HTML page rendered at start from the OpenAPI
 * document and the guides in docs/ (signing, callbacks, errors, hosted mode). No script, no CDN.
 */
import { readFileSync } from "node:fs";
import { Marked } from "marked";
import type { openApiDocument } from "./document.js";

type Doc = ReturnType<typeof openApiDocument>;
type Schema = Record<string, unknown>;

const DOCS = new URL("../../docs/", import.meta.url);
const GUIDES: [string, string][] = [
  ["integration-guide.md", "Integration guide"],
  ["entegrasyon-rehberi.md", "Entegrasyon rehberi (Türkçe)"],
  ["sandbox.md", "Sandbox"],
  ["callbacks.md", "Callbacks"],
  ["errors.md", "Errors"],
  ["hosted-page.md", "Hosted mode"],
];

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function constraints(s: Schema): string {
  const parts: string[] = [];
  if (s.enum) parts.push(`one of ${(s.enum as unknown[]).join(", ")}`);
  if (s.const !== undefined) parts.push(`always ${JSON.stringify(s.const)}`);
  if (s.minLength !== undefined) parts.push(`≥ ${s.minLength} chars`);
  if (s.maxLength !== undefined) parts.push(`≤ ${s.maxLength} chars`);
  if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  if (s.maximum !== undefined) parts.push(`≤ ${s.maximum}`);
  if (s.pattern) parts.push(`pattern ${s.pattern}`);
  if (s.default !== undefined) parts.push(`default ${JSON.stringify(s.default)}`);
  return parts.join(", ");
}

function fieldTable(schema: Schema): string {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required ?? []) as string[]);
  const rows = Object.entries(props)
    .map(
      ([name, p]) =>
        `<tr><td><code>${esc(name)}</code>${required.has(name) ? " <b>required</b>" : ""}</td><td>${esc(
          Array.isArray(p.type)
            ? p.type.join(" or ")
            : (p.type ?? (p.$ref ? String(p.$ref).split("/").pop() : "")),
        )}</td><td>${esc(constraints(p))}</td><td>${esc(p.description ?? "")}${
          p["x-field"] ? ` <small>(messages name it <code>${esc(p["x-field"])}</code>)</small>` : ""
        }</td></tr>`,
    )
    .join("");
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Rules</th><th>Meaning</th></tr></thead><tbody>${rows}</tbody></table>`;
}

export function renderReference(doc: Doc): string {
  const md = new Marked({ gfm: true });
  // Links between the guides point at their sections on this page; links to files this page does
  // not show (the client's README, source files) keep their text without a link that would 404.
  const shown = new Set(GUIDES.map(([file]) => file));
  md.use({
    renderer: {
      link(token) {
        const inner = this.parser.parseInline(token.tokens);
        const href = token.href;
        if (/^(https?:|mailto:|#|\/)/.test(href)) return false;
        const file = /^(?:\.\/)?([a-z0-9-]+\.md)(?:#.*)?$/.exec(href)?.[1];
        if (file && shown.has(file)) return `<a href="#${file.replace(/\.md$/, "")}">${inner}</a>`;
        return inner;
      },
    },
  });
  const schemas = doc.components.schemas as Record<string, Schema>;
  const resolve = (s: Schema) => (s.$ref ? (schemas[String(s.$ref).split("/").pop() as string] ?? s) : s);
  const ops: string[] = [];
  const toc: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item as unknown as Record<string, Schema>)) {
      const id = String(op.operationId);
      toc.push(`<li><a href="#${id}">${method.toUpperCase()} ${esc(id)}</a></li>`);
      const params = (op.parameters as Schema[])
        .map(
          (p) =>
            `<tr><td><code>${esc(p.name)}</code>${p.required ? " <b>required</b>" : ""}</td><td>${esc(p.in)}</td><td>${esc(
              constraints(p.schema as Schema),
            )}</td><td>${esc(p.description ?? "")}</td></tr>`,
        )
        .join("");
      const body = op.requestBody
        ? (() => {
            const content = (op.requestBody as Schema).content as Record<string, Schema>;
            const json = content["application/json"] as Schema;
            const examples = json.examples
              ? Object.values(json.examples as Record<string, Schema>).map((e) => e.value)
              : [json.example];
            return `<h4>Body</h4>${fieldTable(resolve(json.schema as Schema))}${examples
              .map((e) => `<pre>${esc(JSON.stringify(e, null, 2))}</pre>`)
              .join("")}`;
          })()
        : "";
      const responses = Object.entries(op.responses as Record<string, Schema>)
        .map(([status, r]) => {
          const content = (r.content as Record<string, Schema> | undefined)?.["application/json"];
          const examples = content?.examples
            ? Object.values(content.examples as Record<string, Schema>)
                .map((e) => `<li><code>${esc(JSON.stringify(e.value))}</code></li>`)
                .join("")
            : "";
          return `<li><b>${esc(status)}</b> ${esc(r.description)}${examples ? `<ul>${examples}</ul>` : ""}</li>`;
        })
        .join("");
      ops.push(
        `<section id="${id}"><h3><span class="method">${method.toUpperCase()}</span> <code>${esc(path)}</code></h3><p>${esc(
          op.summary,
        )}</p><h4>Headers and parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Rules</th><th>Meaning</th></tr></thead><tbody>${params}</tbody></table>${body}<h4>Answers</h4><ul>${responses}</ul></section>`,
      );
    }
  }
  const results = [
    "Transaction",
    "DepositAccepted",
    "HostedDepositAccepted",
    "WithdrawalAccepted",
    "Balance",
    "BalanceDay",
    "BalanceMovement",
  ]
    .map((name) => `<h3 id="schema-${name}">${name}</h3>${fieldTable(schemas[name] as Schema)}`)
    .join("");
  const guides = GUIDES.map(([file, title]) => {
    let text: string;
    try {
      text = readFileSync(new URL(file, DOCS), "utf8");
    } catch {
      return "";
    }
    const slug = file.replace(/\.md$/, "");
    toc.push(`<li><a href="#${slug}">${esc(title)}</a></li>`);
    return `<section id="${slug}" class="guide">${md.parse(text) as string}</section>`;
  }).join("");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>payintake API reference</title><link rel="stylesheet" href="/docs/docs.css"></head>
<body><nav><strong>payintake API</strong><ul><li><a href="/openapi.json">openapi.json</a></li>${toc.join("")}</ul></nav>
<main><h1>${esc(doc.info.title)}</h1>${md.parse(doc.info.description) as string}
<h2>Operations</h2>${ops.join("")}<h2>Results</h2>${results}${guides}</main></body></html>`;
}
