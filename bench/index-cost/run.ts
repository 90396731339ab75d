/**
 * `npm run bench:index-cost` (issue 33): what each index the operators' searches added costs a
 * deposit's insert. On a store of INDEX_COST_BASE transactions (default 200,000), deposits are
 * inserted as the service writes them (pending, with a payer's name, on an account) in statements
 * of 100 rows, INDEX_COST_ROWS (default 20,000) per measure: with every index, then with each one
 * dropped in turn (and built again after), in INDEX_COST_ROUNDS (default 3) interleaved rounds. An
 * index's cost is the median time per row with it less the median without it. The full-text table
 * (SQLite) and the name index (PostgreSQL) are in the list, and so is each trigger an insert fires
 * (the firms' pending counts, the accounts' daily use, the summary's hours…), measured the same way. Writes the
 * "index-cost" section of docs/BENCHMARKS.md when both stores ran.
 */

import { sql } from "kysely";
import type { Store } from "../../src/store/engine/open.js";
import { operatorIndexes } from "../../src/store/migrations/20261128T1000_operator_indexes.js";
import { amountDayIndexes } from "../../src/store/migrations/20261201T1000_amount_day_indexes.js";
import { nameDayIndex } from "../../src/store/migrations/20261201T1200_name_day_index.js";
import { summaryHours } from "../../src/store/migrations/20261203T1000_summary_hours.js";
import type { IndexBuild } from "../../src/store/migrations/migration.js";
import { depositRow, insertAccount, insertFirm } from "../../test/support/rows.js";
import { BENCHMARKS_DOC, writeDocSections } from "../shared/doc-sections.js";
import { createKeptStore, type KeptStore, openKeptStore } from "../shared/kept-store.js";
import type { StoreKind } from "../shared/payintake.js";

const BASE = Number(process.env.INDEX_COST_BASE ?? 200_000);
const ROWS = Number(process.env.INDEX_COST_ROWS ?? 20_000);
const ROUNDS = Number(process.env.INDEX_COST_ROUNDS ?? 3);
const STORES = (process.env.INDEX_COST_STORES ?? "sqlite,postgres").split(",") as StoreKind[];
const STATEMENT_ROWS = 100;
const NAMES = [" ayse yilmaz", " mehmet kaya", " zeynep demir", " ali celik", " elif sahin"];
const log = (line: string) => process.stdout.write(`[index-cost] ${line}\n`);

interface Measured {
  /** An index's or a trigger's name, or "every index". */
  index: string;
  /** Microseconds per inserted row, one figure per round. */
  perRow: number[];
}

/** What is measured: dropped before its measure, and made again after it. */
interface Part {
  name: string;
  drop: string;
  create: string;
}

/** The indexes measured: the operators' searches', those this store holds (one may replace another). */
async function measuredIndexes(store: Store): Promise<IndexBuild[]> {
  const found =
    store.dialect === "sqlite"
      ? sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index'`
      : sql<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()`;
  const held = new Set((await found.execute(store.db)).rows.map((r) => r.name));
  return [operatorIndexes, amountDayIndexes, nameDayIndex, summaryHours]
    .flatMap((m) => m.indexes ?? [])
    .filter((i) => i.table === "transactions" && held.has(i.name));
}

/**
 * The triggers a deposit's insert fires (the firms' pending counts, the accounts' daily use, the
 * summary's hours, SQLite's days of ids and names' words), as the store defines them.
 */
async function insertTriggers(store: Store): Promise<Part[]> {
  if (store.dialect === "sqlite") {
    const rows = await sql<{ name: string; sql: string }>`SELECT name, sql FROM sqlite_master
      WHERE type = 'trigger' AND tbl_name = 'transactions' AND sql LIKE '% INSERT ON transactions%'`.execute(
      store.db,
    );
    return rows.rows.map((r) => ({ name: r.name, drop: `DROP TRIGGER ${r.name}`, create: r.sql }));
  }
  const rows = await sql<{ name: string; def: string }>`SELECT tgname AS name, pg_get_triggerdef(oid) AS def
    FROM pg_trigger WHERE tgrelid = 'transactions'::regclass AND NOT tgisinternal AND (tgtype & 4) <> 0`.execute(
    store.db,
  );
  return rows.rows.map((r) => ({
    name: r.name,
    drop: `DROP TRIGGER ${r.name} ON transactions`,
    create: r.def,
  }));
}

let sequence = 0;
async function insertDeposits(store: Store, firmId: number, accountId: number, count: number, at: number) {
  const started = process.hrtime.bigint();
  for (let done = 0; done < count; done += STATEMENT_ROWS) {
    const rows = Array.from({ length: Math.min(STATEMENT_ROWS, count - done) }, () => {
      const n = ++sequence;
      return {
        ...depositRow(
          { firmId, accountId, amount: 10_000 + (n % 5_000) * 100, reference: `ic-${n}` },
          at + n,
        ),
        username: `user${n % 50_000}`,
        payer_name_key: NAMES[n % NAMES.length] as string,
      };
    });
    await store.db.insertInto("transactions").values(rows).execute();
  }
  return Number(process.hrtime.bigint() - started) / 1_000 / count;
}

async function measureStore(kind: StoreKind): Promise<Measured[]> {
  const vs: KeptStore = await createKeptStore(kind);
  const store = await openKeptStore(vs, { seeding: true });
  try {
    await store.migrate();
    const now = Date.now();
    const firmId = await insertFirm(store, now);
    const accountId = await insertAccount(store, now, 1_000_000_000_000);
    await insertDeposits(store, firmId, accountId, BASE, now - BASE * 10);
    if (kind === "postgres") await sql`VACUUM ANALYZE transactions`.execute(store.db);
    else await sql`ANALYZE`.execute(store.db);
    const run = (text: string) => sql.raw(text).execute(store.db);
    const trgm = kind === "postgres" ? "payintake_ext" : "";
    const parts: Part[] = [
      ...(await measuredIndexes(store)).map((i) => ({
        name: i.name,
        drop: `DROP INDEX ${i.name}`,
        create: `CREATE INDEX ${i.name} ON ${i.table} ${i.definition.replaceAll("{pg_trgm}", `"${trgm}"`)}`,
      })),
      ...(await insertTriggers(store)),
    ];
    const results: Measured[] = [
      { index: "every index", perRow: [] },
      ...parts.map((p) => ({ index: p.name, perRow: [] })),
    ];
    // A measure not kept first: the first inserts after the base warm caches that later ones find warm.
    await insertDeposits(store, firmId, accountId, ROWS, now);
    await run(`DELETE FROM transactions WHERE created_at >= ${now}`);
    for (let round = 1; round <= ROUNDS; round++) {
      // Every other round in the opposite order, so that no index is always measured first or last.
      for (const result of round % 2 === 1 ? results : [...results].reverse()) {
        const part = parts.find((p) => p.name === result.index);
        if (part) await run(part.drop);
        const perRow = await insertDeposits(store, firmId, accountId, ROWS, now);
        result.perRow.push(perRow);
        // The rows go before it is made again. A dropped insert trigger's table then counts less
        // than the rows (its delete trigger took them out): nothing here reads those counts.
        await run(`DELETE FROM transactions WHERE created_at >= ${now}`);
        if (part) await run(part.create);
        log(`${kind} round ${round}: ${result.index}: ${perRow.toFixed(1)} µs a row`);
      }
    }
    return results;
  } finally {
    await store.close();
    await vs.remove();
  }
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

function section(runs: Map<StoreKind, Measured[]>): string {
  const kinds = [...runs.keys()];
  const names = (runs.get(kinds[0] as StoreKind) ?? []).map((m) => m.index);
  for (const kind of kinds)
    for (const m of runs.get(kind) ?? []) if (!names.includes(m.index)) names.push(m.index);
  const cell = (kind: StoreKind, name: string) => {
    const all = runs.get(kind) ?? [];
    const every = median(all[0]?.perRow ?? [0]);
    const m = all.find((x) => x.index === name);
    if (!m) return "—";
    if (name === "every index") return `${every.toFixed(1)} µs a row`;
    const cost = every - median(m.perRow);
    return `${cost.toFixed(1)} µs (${((cost / every) * 100).toFixed(0)} %)`;
  };
  return [
    `Measured ${new Date().toISOString().slice(0, 10)} by \`npm run bench:index-cost\` (bench/index-cost/run.ts): ${ROWS.toLocaleString("en-US")} pending deposits inserted in statements of ${STATEMENT_ROWS} on a store of ${BASE.toLocaleString("en-US")}, with every index and trigger and with each one dropped, ${ROUNDS} interleaved rounds, medians. An index's or a trigger's cost is the time per row with it less the time without it; the first line is the insert with all of them (the whole row: table, keys, triggers, every index). Noise between rounds is a few µs: a cost under that is "too small to see".`,
    "",
    `| Index or trigger | ${kinds.map((k) => (k === "sqlite" ? "SQLite" : "PostgreSQL")).join(" | ")} |`,
    `|---|${kinds.map(() => "---:").join("|")}|`,
    ...names.map((n) => `| ${n} | ${kinds.map((k) => cell(k, n)).join(" | ")} |`),
  ].join("\n");
}

const runs = new Map<StoreKind, Measured[]>();
for (const kind of STORES) runs.set(kind, await measureStore(kind));
const body = section(runs);
process.stdout.write(`\n${body}\n`);
if (runs.size === 2) writeDocSections(BENCHMARKS_DOC, [{ name: "index-cost", body }]);
