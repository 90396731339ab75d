// The import graph of src/ and web/: every relative import (type-only ones included), resolved to
// the file it names. Shared by the house-rules check and by anyone who wants to look at the graph.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

export const ROOT = resolve(dirname(new URL(import.meta.url).pathname), "..");

function sourcesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourcesUnder(path);
    return /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** The file a relative specifier names, as TypeScript resolves it (`.js` stands for `.ts`/`.tsx`). */
function resolveSpecifier(from, specifier) {
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(js|mjs)$/, "");
  for (const candidate of [
    `${stem}.ts`,
    `${stem}.tsx`,
    base,
    `${base}.ts`,
    `${base}.tsx`,
    join(base, "index.ts"),
  ]) {
    if (existsSync(candidate) && !candidate.endsWith("/")) return candidate;
  }
  return undefined;
}

/** Map from each file (relative to the root) to the files it imports (relative to the root). */
export function importGraph(roots = ["src", "web"]) {
  const graph = new Map();
  for (const root of roots) {
    for (const file of sourcesUnder(join(ROOT, root))) {
      const info = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
      const targets = new Set();
      for (const { fileName } of info.importedFiles) {
        if (!fileName.startsWith(".")) continue;
        const target = resolveSpecifier(file, fileName);
        if (target && /\.(ts|tsx)$/.test(target)) targets.add(relative(ROOT, target));
      }
      graph.set(relative(ROOT, file), [...targets].sort());
    }
  }
  return graph;
}

/** Every import circle, each as the list of files around it (Tarjan's strongly connected parts). */
export function circles(graph) {
  let index = 0;
  const stack = [];
  const state = new Map();
  const found = [];
  const visit = (v) => {
    const s = { index, low: index, onStack: true };
    index++;
    state.set(v, s);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      const t = state.get(w);
      if (t === undefined) {
        visit(w);
        s.low = Math.min(s.low, state.get(w).low);
      } else if (t.onStack) s.low = Math.min(s.low, t.index);
    }
    if (s.low === s.index) {
      const part = [];
      let w;
      do {
        w = stack.pop();
        state.get(w).onStack = false;
        part.push(w);
      } while (w !== v);
      if (part.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(part.sort());
    }
  };
  for (const v of graph.keys()) if (!state.has(v)) visit(v);
  return found;
}
