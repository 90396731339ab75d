// The rules of the house (docs/ARCHITECTURE.md), checked over the import graph of src/ and web/:
// no import circle (type-only imports included), each part imports only the parts below it, and
// only the store and the wiring speak to a database driver. Run by `npm run check`; exits 1 on a breach.
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { circles, importGraph, ROOT } from "./import-graph.mjs";

const FOUNDATION = ["domain", "config", "crypto", "net", "metrics"];
const EDGE = [...FOUNDATION, "store", "http"];
/** The operators' capabilities, each a part of its own; backoffice puts them together for the surfaces. */
const OPERATOR_WORK = ["management", "decisions", "transactions", "dashboard", "payouts", "ledger"];

/** Which parts each part may import (besides itself). `main` wires everything and may import all. */
export const ALLOWED = {
  domain: [],
  config: [],
  crypto: [],
  net: [],
  metrics: [],
  store: ["domain", "crypto", "config"],
  http: [...FOUNDATION, "store"],
  routing: EDGE,
  operators: EDGE,
  // A firm's commissions are read by the ledger's rule (ledger/commission.ts).
  management: [...EDGE, "ledger"],
  callbacks: EDGE,
  // A transaction's detail and the dashboard show callbacks; a decision writes one and answers
  // with the transaction as operators see it.
  transactions: [...EDGE, "callbacks"],
  decisions: [...EDGE, "callbacks", "transactions", "ledger"],
  dashboard: [...EDGE, "callbacks"],
  // Background jobs: auto-cancel writes a decision with its callback; the payout watch applies a
  // payout channel's answers as a release does.
  jobs: [...FOUNDATION, "store", "callbacks", "payouts"],
  backoffice: [...EDGE, "operators", "callbacks", ...OPERATOR_WORK],
  intake: [...EDGE, "routing", "backoffice"],
  // Withdrawals paid in batches: a paid payout's approval is a decision with its callback.
  payouts: [...EDGE, "routing", "callbacks", "decisions", "transactions", "ledger"],
  // Bank statements against deposits and payouts: the matching is pure; a line's approval is a
  // decision, a debit proves a payout.
  reconciliation: [...EDGE, "callbacks", "decisions", "transactions", "payouts", "ledger"],
  // The ledger's rules (commissions, what posts when) are pure; its store is store/ledger/.
  ledger: EDGE,
  "payment-page": [...EDGE, "intake"],
  "api-reference": [...EDGE, "intake"],
  main: "*",
  "web/console": ["domain", "payment-page"],
};

/**
 * Parts whose types alone a part may import (`import type`, which the bundle drops): the console
 * compiles against the views the server answers, and runs none of the server's code.
 */
export const TYPES_FROM = {
  "web/console": [
    "backoffice",
    "dashboard",
    "management",
    "operators",
    "payouts",
    "reconciliation",
    "transactions",
  ],
};

/** The files a file imports for their values (every import but `import type`), as root-relative stems. */
function valueImports(file) {
  const text = readFileSync(join(ROOT, file), "utf8");
  const stems = new Set();
  for (const m of text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+"(\.[^"]+)"/gm)) {
    stems.add(relative(ROOT, resolve(dirname(join(ROOT, file)), m[1])).replace(/\.js$/, ""));
  }
  return stems;
}

/** The part a file belongs to: its folder under src/, or web/console. */
export function partOf(file) {
  const [top, second] = file.split("/");
  return top === "web" ? `web/${second}` : second.replace(/\.tsx?$/, "");
}

const DRIVERS = /^(kysely|pg|better-sqlite3)$/;

export function breaches(graph) {
  const found = [];
  for (const circle of circles(graph)) found.push(`import circle: ${circle.join(" -> ")}`);
  for (const [file, targets] of graph) {
    const from = partOf(file);
    const allowed = ALLOWED[from];
    if (allowed === undefined) {
      found.push(`${file}: its folder "${from}" is no part named in the house rules`);
      continue;
    }
    for (const target of targets) {
      const to = partOf(target);
      if (to === from || allowed === "*" || allowed.includes(to)) continue;
      if (!TYPES_FROM[from]?.includes(to)) {
        found.push(`${file} imports ${target}: ${from} may not import ${to}`);
      } else if (valueImports(file).has(target.replace(/\.tsx?$/, ""))) {
        found.push(`${file} imports ${target}: ${from} may import only the types of ${to} (import type)`);
      }
    }
    if (!["store", "main"].includes(from)) {
      const text = readFileSync(join(ROOT, file), "utf8");
      for (const m of text.matchAll(/from "([^"./][^"]*)"/g)) {
        if (DRIVERS.test(m[1] ?? "")) found.push(`${file} imports ${m[1]}: only the store speaks SQL`);
      }
    }
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = breaches(importGraph());
  for (const line of found) console.error(`house rules: ${line}`);
  if (found.length > 0) process.exit(1);
  console.log("house rules: no import circle, every import within the rules (docs/ARCHITECTURE.md)");
}
