// Writes the generated half of docs/api.md (operations, fields, answers) from the OpenAPI document
// the server serves; the hand-written half above the marker stays. `npm run docs:api` after a change
// to a request's fields or answers; test/api/api-docs.test.ts fails until it is run.
import { readFileSync, writeFileSync } from "node:fs";
import { openApiDocument } from "../src/api-reference/document.js";
import { API_DOCS_MARKER, renderApiMarkdown } from "../src/api-reference/markdown.js";

const file = new URL("../docs/api.md", import.meta.url);
const text = readFileSync(file, "utf8");
const at = text.indexOf(API_DOCS_MARKER);
if (at < 0) throw new Error(`docs/api.md has no line ${API_DOCS_MARKER}`);
writeFileSync(
  file,
  `${text.slice(0, at + API_DOCS_MARKER.length)}\n\n${renderApiMarkdown(openApiDocument())}`,
);
