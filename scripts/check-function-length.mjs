// No function in src/ or web/ over 150 lines (docs/ARCHITECTURE.md, house rules): a longer one is
// split into named parts. Run by `npm run check`; lists each one over the limit and exits 1.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { ROOT } from "./import-graph.mjs";

export const MAX_LINES = 150;

function sourcesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourcesUnder(path);
    return /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** Every function-like node in `text` with its name (or its place) and its length in lines. */
export function functionLengths(fileName, text) {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const name =
        node.name?.getText(source) ?? node.parent?.name?.getText?.(source) ?? `(line ${start + 1})`;
      found.push({ name, line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

export function longFunctions(roots = ["src", "web"]) {
  return roots.flatMap((root) =>
    sourcesUnder(join(ROOT, root)).flatMap((file) =>
      functionLengths(file, readFileSync(file, "utf8"))
        .filter((f) => f.lines > MAX_LINES)
        .map((f) => ({ file: relative(ROOT, file), ...f })),
    ),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const long = longFunctions();
  for (const f of long)
    console.error(
      `function length: ${f.file}:${f.line} ${f.name} is ${f.lines} lines (at most ${MAX_LINES})`,
    );
  if (long.length > 0) process.exit(1);
  console.log(`function length: every function in src/ and web/ within ${MAX_LINES} lines`);
}
