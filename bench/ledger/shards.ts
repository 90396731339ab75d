/**
 * What the ledger's balance shards buy (ADR 0019): two instances (two PostgreSQL pools) approve one
 * firm's deposits at once, each decision a database transaction that moves a row, posts the
 * deposit to the ledger (4 entries: cash, the firm twice, commission) and writes an outbox row,
 * LANES transactions in flight per instance. Measured for DURATION_MS each, in ROUNDS interleaved
 * rounds: without the posting, then with 1, 4, 8 and 16 shards (the posting's trigger made again
 * with that number). Prints decisions per second per configuration, with each round's figure, and
 * a firm's balance read's median. Run: `node --import tsx bench/ledger/shards.ts`.
 */
import { sql } from "kysely";
import { cashAccount, firmAccount } from "../../src/domain/ledger.js";
import { commissionFor } from "../../src/ledger/commission.js";
import { depositApproved } from "../../src/ledger/postings.js";
import type { Store } from "../../src/store/engine/open.js";
import { createRepositories } from "../../src/store/index.js";
import { LEDGER_SHARDS, pgPostingFunction } from "../../src/store/migrations/20261206T1200_ledger.js";
import { insertFirm } from "../../test/support/rows.js";
import { freshStore } from "../../test/support/store.js";

const DURATION_MS = Number(process.env.LEDGER_BENCH_MS ?? 4000);
const ROUNDS = Number(process.env.LEDGER_BENCH_ROUNDS ?? 3);
const LANES = Number(process.env.LEDGER_BENCH_LANES ?? 4);
const CONFIGS = (process.env.LEDGER_BENCH_SHARDS ?? "0,1,4,8,16").split(",").map(Number);
const IBAN = "TR330006100519786457841326";

const { store, open, close } = await freshStore("postgres", LANES + 1);
const other = await open();
const instances = [store, other];
const firm = await insertFirm(store, 1);
await sql`CREATE TABLE bench_decided (id BIGINT PRIMARY KEY, status TEXT NOT NULL)`.execute(store.db);
await sql`CREATE TABLE bench_outbox (id BIGSERIAL PRIMARY KEY, tx BIGINT NOT NULL, body TEXT NOT NULL)`.execute(
  store.db,
);
let next = 0;

async function decide(s: Store, post: boolean): Promise<void> {
  const id = ++next;
  const repos = createRepositories(s);
  await s.db.transaction().execute(async (trx) => {
    await sql`INSERT INTO bench_decided (id, status) VALUES (${id}, 'approved')`.execute(trx);
    if (post) {
      const amount = 10_000 + (id % 5000);
      const commission = commissionFor(
        { firmId: firm, kind: "deposit", percentBp: 150, fixed: 0, min: null, max: null, fromAt: 0 },
        amount,
      );
      await repos.ledger.post(
        trx,
        depositApproved({
          transactionId: id,
          firmId: firm,
          amount,
          commission,
          source: { iban: IBAN },
          at: Date.now(),
          actor: "bench",
        }),
      );
    }
    await sql`INSERT INTO bench_outbox (tx, body) VALUES (${id}, ${"x".repeat(300)})`.execute(trx);
  });
}

async function measure(shards: number): Promise<number> {
  if (shards > 0) await sql.raw(pgPostingFunction(shards)).execute(store.db);
  const until = Date.now() + DURATION_MS;
  let done = 0;
  await Promise.all(
    instances.flatMap((s) =>
      Array.from({ length: LANES }, async () => {
        while (Date.now() < until) {
          await decide(s, shards > 0);
          done++;
        }
      }),
    ),
  );
  return (done * 1000) / DURATION_MS;
}

const figures = new Map<number, number[]>(CONFIGS.map((c) => [c, []]));
for (let round = 0; round < ROUNDS; round++)
  for (const shards of round % 2 === 0 ? CONFIGS : [...CONFIGS].reverse())
    figures.get(shards)?.push(await measure(shards));
await sql.raw(pgPostingFunction(LEDGER_SHARDS)).execute(store.db);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
console.log(`two instances x ${LANES} lanes, ${DURATION_MS} ms per measure, ${ROUNDS} rounds`);
for (const [shards, xs] of figures)
  console.log(
    `${shards === 0 ? "no posting" : `${shards} shard(s)`}: median ${median(xs).toFixed(0)} decisions/s (rounds: ${xs.map((x) => x.toFixed(0)).join(", ")})`,
  );

const repos = createRepositories(store);
const reads: number[] = [];
for (let i = 0; i < 300; i++) {
  const t = performance.now();
  await repos.ledger.balance(firmAccount(firm));
  reads.push(performance.now() - t);
}
const asOf: number[] = [];
for (let i = 0; i < 100; i++) {
  const t = performance.now();
  await repos.ledger.balanceAt(cashAccount(IBAN), Date.now() - 2000, Date.now());
  asOf.push(performance.now() - t);
}
const entries = await sql<{ n: string }>`SELECT count(*) AS n FROM ledger_entries`.execute(store.db);
console.log(
  `balance read p50 ${median(reads).toFixed(2)} ms, as-of read p50 ${median(asOf).toFixed(2)} ms, over ${entries.rows[0]?.n} entries`,
);
await close();
