/**
 * The ledger's reads at volume (issue 48's targets): a firm's balance read p50 < 5 ms with 10 M
 * entries in the ledger, and a day's report for a firm with 100,000 movements in under 2 s.
 *
 * A server of this tree on a fresh store; the firm made through the admin API; then, with the
 * server stopped (SQLite admits one process), the ledger is grown through the store's own
 * connection (on SQLite by postings its insert trigger checks and counts as every posting; on
 * PostgreSQL in bulk, see growInBulk): LEDGER_POSTINGS postings of two entries,
 * the first 100,000 the firm's on one Türkiye day, the rest spread over a year and 1,000 other
 * firms. The server is started again on that store and read over HTTP: the firm's balance
 * (sequentially, p50 and p99), the day's report page by page (`ledger day` reads it so), its
 * postings as CSV, and a month of the firm's days.
 *
 * Run: `npm run build && node --import tsx bench/ledger/volume.ts`; LEDGER_POSTINGS (5,000,000:
 * 10 M entries), BENCH_STORES (sqlite,postgres), LEDGER_READS (2,000).
 */
import { type Kysely, sql } from "kysely";
import { request } from "undici";
import { TURKEY_OFFSET_MS, turkeyDayOf, turkeyDayStart } from "../../src/domain/turkey-time.js";
import { openStore } from "../../src/store/engine/open.js";
import { LEDGER_SHARDS } from "../../src/store/migrations/20261206T1200_ledger.js";
import type { Database } from "../../src/store/schema.js";
import { childEnv, startChild } from "../shared/children.js";
import { type StoreKind, startPayintake } from "../shared/payintake.js";
import { ROOT } from "../shared/tree.js";

const POSTINGS = Number(process.env.LEDGER_POSTINGS ?? 5_000_000);
const DAY_MOVES = 100_000;
const READS = Number(process.env.LEDGER_READS ?? 2_000);
const STORES = (process.env.BENCH_STORES ?? "sqlite,postgres").split(",") as StoreKind[];
/** SQLite's postings per statement and transaction. */
const SLICE = 50_000;
const DAY_MS = 86_400_000;
const log = (line: string) => process.stdout.write(`[ledger-volume] ${line}\n`);

/** Postings `from` to `to` (1-based) as one INSERT … SELECT: the firm's day first, then a year of others. */
function slice(kind: StoreKind, firm: number, day: number, from: number, to: number): string {
  const series =
    kind === "postgres"
      ? `generate_series(${from}, ${to}) AS s(g)`
      : `(WITH RECURSIVE s(g) AS (SELECT ${from} UNION ALL SELECT g + 1 FROM s WHERE g < ${to}) SELECT g FROM s) AS s`;
  const who = `CASE WHEN g <= ${DAY_MOVES} THEN ${firm} ELSE ${firm + 1} + g % 1000 END`;
  const at = `CASE WHEN g <= ${DAY_MOVES} THEN ${day} + g * ${Math.floor(DAY_MS / DAY_MOVES - 1)}
    ELSE ${day} - 1 - (g * 6307) % ${365 * DAY_MS} END`;
  const line = (account: string, kindOf: string, ref: string, amount: number) =>
    kind === "postgres"
      ? `json_build_object('account', ${account}, 'account_kind', '${kindOf}', 'ref', ${ref}, 'amount', ${amount}, 'kind', 'adjustment', 'currency', 'TRY')`
      : `json_object('account', ${account}, 'account_kind', '${kindOf}', 'ref', ${ref}, 'amount', ${amount}, 'kind', 'adjustment', 'currency', 'TRY')`;
  const firmKey = kind === "postgres" ? `'firm:' || (${who})::text` : `'firm:' || (${who})`;
  const ref = kind === "postgres" ? `(${who})::text` : `CAST(${who} AS TEXT)`;
  const lines = `${kind === "postgres" ? "json_build_array" : "json_array"}(${line(firmKey, "firm", ref, -100)}, ${line("'equity'", "equity", "NULL", 100)})`;
  return `INSERT INTO ledger_postings (idempotency_key, kind, at, actor, corrects, memo, flag, lines)
    SELECT 'adjustment:bench-' || g, 'adjustment', ${at}, 'bench', NULL, 'bench', NULL, ${lines}${kind === "postgres" ? "::text" : ""}
    FROM ${series}`;
}

/**
 * PostgreSQL's rows in bulk: its insert trigger takes about 1,700 postings a second here when one
 * transaction writes thousands (each counter row's versions pile up within it), which would be 50
 * minutes for 10 M entries. So its triggers are off for this session (session_replication_role
 * replica) while postings and entries are written by one statement each, and the balance counters
 * and day figures are then computed from the entries, as the triggers would have written them
 * (test/api/ledger-property.test.ts holds that every counter and day figure is the sum of its
 * entries). SQLite's rows go through its triggers.
 */
async function growInBulk(db: Kysely<Database>, firm: number, day: number): Promise<void> {
  const g = (from: number, to: number) => `generate_series(${from}, ${to}) AS s(g)`;
  const who = `CASE WHEN g <= ${DAY_MOVES} THEN ${firm} ELSE ${firm + 1} + g % 1000 END`;
  const at = `CASE WHEN g <= ${DAY_MOVES} THEN ${day}::bigint + g * ${Math.floor(DAY_MS / DAY_MOVES - 1)}
    ELSE ${day}::bigint - 1 - (g::bigint * 6307) % ${365 * DAY_MS} END`;
  await db.transaction().execute(async (trx) => {
    const run = (text: string) => sql.raw(text).execute(trx);
    await run("SET LOCAL statement_timeout = 0");
    await run("SET LOCAL session_replication_role = replica");
    await run(`INSERT INTO ledger_accounts (key, kind, ref, created_at) VALUES ('equity', 'equity', NULL, 0)
      ON CONFLICT (key) DO NOTHING`);
    await run(`INSERT INTO ledger_accounts (key, kind, ref, created_at)
      SELECT 'firm:' || f, 'firm', f::text, 0 FROM generate_series(${firm}, ${firm + 1000}) AS f(f) ON CONFLICT (key) DO NOTHING`);
    await run(`INSERT INTO ledger_postings (id, idempotency_key, kind, at, actor, corrects, memo, flag, lines)
      SELECT g, 'adjustment:bench-' || g, 'adjustment', ${at}, 'bench', NULL, 'bench', NULL, '[]' FROM ${g(1, POSTINGS)}`);
    await run(`INSERT INTO ledger_entries (posting_id, account_id, kind, amount, currency, at)
      SELECT g, a.id, 'adjustment', -100, 'TRY', ${at} FROM ${g(1, POSTINGS)} JOIN ledger_accounts a ON a.key = 'firm:' || (${who})
      UNION ALL
      SELECT g, (SELECT id FROM ledger_accounts WHERE key = 'equity'), 'adjustment', 100, 'TRY', ${at} FROM ${g(1, POSTINGS)}`);
    await run(`INSERT INTO ledger_balances (account_id, shard, balance)
      SELECT account_id, posting_id % ${LEDGER_SHARDS}, sum(amount) FROM ledger_entries GROUP BY 1, 2
      ON CONFLICT (account_id, shard) DO UPDATE SET balance = ledger_balances.balance + EXCLUDED.balance`);
    await run(`INSERT INTO ledger_days (account_id, day_start, kind, shard, amount, entries)
      SELECT account_id, at - ((at + ${TURKEY_OFFSET_MS}) % ${DAY_MS}), kind, posting_id % ${LEDGER_SHARDS}, sum(amount), count(*)
      FROM ledger_entries GROUP BY 1, 2, 3, 4
      ON CONFLICT (account_id, day_start, kind, shard) DO UPDATE
      SET amount = ledger_days.amount + EXCLUDED.amount, entries = ledger_days.entries + EXCLUDED.entries`);
    await run(
      "SELECT setval(pg_get_serial_sequence('ledger_postings', 'id'), (SELECT max(id) FROM ledger_postings))",
    );
  });
  await sql.raw("VACUUM ANALYZE").execute(db);
}

async function grow(
  kind: StoreKind,
  env: Record<string, string>,
  firm: number,
  day: number,
): Promise<number> {
  const store = await openStore({
    databaseUrl: env.DATABASE_URL,
    dataDir: env.PAYINTAKE_DATA_DIR as string,
    pgPoolSize: 2,
  });
  const started = performance.now();
  try {
    if (kind === "postgres") {
      await growInBulk(store.db, firm, day);
      return (performance.now() - started) / 1000;
    }
    for (let from = 1; from <= POSTINGS; from += SLICE) {
      const to = Math.min(POSTINGS, from + SLICE - 1);
      await store.db.transaction().execute(async (trx) => {
        await sql.raw(slice(kind, firm, day, from, to)).execute(trx);
      });
      if (to % 500_000 === 0)
        log(
          `${kind}: ${to.toLocaleString("en")} postings, ${((performance.now() - started) / 1000).toFixed(0)} s`,
        );
    }
    await sql`ANALYZE`.execute(store.db);
  } finally {
    await store.close();
  }
  return (performance.now() - started) / 1000;
}

async function get(url: string, token: string): Promise<{ ms: number; status: number; body: string }> {
  const t = performance.now();
  const res = await request(url, { headers: { authorization: `Bearer ${token}` } });
  const body = await res.body.text();
  return { ms: performance.now() - t, status: res.statusCode, body };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

async function measure(kind: StoreKind): Promise<string> {
  const first = await startPayintake(kind, { cwd: ROOT });
  let child = first.child;
  try {
    const made = await fetch(`${child.url}/admin/v1/firms`, {
      method: "POST",
      headers: { authorization: `Bearer ${first.adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Ledger Bench", webhook_url: "http://127.0.0.1:9/cb" }),
    });
    const firm = Number(((await made.json()) as { id: number }).id);
    const date = turkeyDayOf(Date.now() - DAY_MS);
    await child.stop();
    const grown = await grow(kind, first.env, firm, turkeyDayStart(date));
    log(
      `${kind}: ${POSTINGS.toLocaleString("en")} postings (${(2 * POSTINGS).toLocaleString("en")} entries) in ${grown.toFixed(0)} s`,
    );
    child = await startChild(`payintake (${kind})`, ["dist/main/cli.js", "serve"], childEnv(first.env), {
      cwd: ROOT,
    });
    const base = `${child.url}/admin/v1/ledger/firms/${firm}`;
    const token = first.adminToken;
    const times: number[] = [];
    for (let i = 0; i < READS; i++) times.push((await get(`${base}/balance`, token)).ms);
    times.sort((a, b) => a - b);
    // The day's report as `ledger day` reads it: every page.
    const dayStart = performance.now();
    let next: string | null = null;
    let postings = 0;
    do {
      const page = await get(
        `${base}/days/${date}?limit=5000${next ? `&after=${encodeURIComponent(next)}` : ""}`,
        token,
      );
      const json = JSON.parse(page.body) as { postings: unknown[]; next: string | null };
      postings += json.postings.length;
      next = json.next;
    } while (next !== null);
    const dayMs = performance.now() - dayStart;
    const csv = await get(`${base}/days/${date}/postings.csv`, token);
    const month = await get(`${base}/days?from=${turkeyDayOf(Date.now() - 31 * DAY_MS)}&to=${date}`, token);
    const balance = JSON.parse((await get(`${base}/balance`, token)).body) as { balance: string };
    return `| ${kind} | ${(2 * POSTINGS).toLocaleString("en")} | ${pct(times, 0.5).toFixed(2)} ms | ${pct(times, 0.99).toFixed(2)} ms | ${postings.toLocaleString("en")} postings, ${(dayMs / 1000).toFixed(2)} s | ${(csv.ms / 1000).toFixed(2)} s (${csv.status}, ${(csv.body.length / 1e6).toFixed(1)} MB) | ${month.ms.toFixed(0)} ms | ${balance.balance} |`;
  } finally {
    await child.stop().catch(() => {});
    await first.cleanup().catch(() => {});
  }
}

const rows: string[] = [];
for (const kind of STORES) rows.push(await measure(kind));
log(
  "| Store | Entries | Balance read p50 | p99 | Day report (every page) | Day's postings CSV | 31 days | Balance |",
);
log("|---|---:|---:|---:|---:|---:|---:|---:|");
for (const r of rows) log(r);
