import { sql } from "kysely";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/engine/open.js";
import type { Prepared, StatementRunner } from "../../src/store/engine/prepared.js";
import { createRepositories, type Repositories } from "../../src/store/index.js";
import {
  createPgIntakeBatches,
  NONCES_AND_FACTS,
  type NonceAndFactsInput,
  rolledBack,
} from "../../src/store/transactions/transaction-batches.js";
import {
  createTransactionRepository,
  type NewTransaction,
} from "../../src/store/transactions/transactions.js";
import { STORES, startTestServer, type TestServer } from "../support/harness.js";
import { createFirm, newNonce, type TestFirm } from "../support/merchant.js";

/** The repository's unbatched paths: what the batches fall back to in production. */
function oneRowPaths(store: Store) {
  const unbatched = createTransactionRepository(store.db, store.prepared, "postgres", { batched: false });
  return {
    nonceAndFacts: (i: NonceAndFactsInput) =>
      unbatched.nonceAndFacts(
        { firmId: i.firmId, nonce: i.nonce, expiresAt: i.expiresAt },
        { reference: i.reference, userId: i.userId, type: i.type },
      ),
    insert: (v: NewTransaction) => unbatched.insert(v),
  };
}

/**
 * The batched hot path on a real PostgreSQL (transaction-batches.ts): concurrent calls share
 * statements, yet each gets the answer it would have got alone, and the unique indexes still decide.
 */
describe.skipIf(!STORES.includes("postgres"))("batched nonces, facts and inserts on PostgreSQL", () => {
  let server: TestServer;
  let store: Store;
  let repos: Repositories;
  let firm: TestFirm;
  /** Statements sent to the database through the counted runner, by name. */
  const sent: string[] = [];
  let batches: ReturnType<typeof createPgIntakeBatches>;
  let one: ReturnType<typeof oneRowPaths>;

  beforeAll(async () => {
    server = await startTestServer("postgres", { LOG_LEVEL: "warn" });
    firm = await createFirm(server);
    store = await openStore({ databaseUrl: server.env.DATABASE_URL, dataDir: "unused", pgPoolSize: 6 });
    repos = createRepositories(store);
    const counted: StatementRunner = {
      rows: <R>(s: Prepared, p: readonly unknown[]) => {
        sent.push(s.name);
        return store.prepared.rows<R>(s, p);
      },
      changes: (s: Prepared, p: readonly unknown[]) => {
        sent.push(s.name);
        return store.prepared.changes(s, p);
      },
    };
    // The repository's own one-row paths stand behind the counted batches, as in production.
    one = oneRowPaths(store);
    batches = createPgIntakeBatches(counted, one);
  });
  afterAll(async () => {
    await store?.close();
    await server?.close();
  });

  const withdrawal = (reference: string, userId: string, amount = 10_000): NewTransaction => ({
    firm_id: firm.id,
    reference,
    type: "withdrawal",
    status: "pending",
    amount,
    method: "fast",
    first_name: "Ayşe",
    last_name: "Yılmaz",
    middle_name: null,
    username: "ayse",
    user_id: userId,
    national_id_masked: null,
    national_id_sealed: null,
    bank_code: "AKBANK",
    iban: "TR330006100519786457841326",
    iban_valid: 1,
    account_id: null,
    assigned_bank_name: null,
    assigned_holder_name: null,
    assigned_iban: null,
    callback_url: "http://127.0.0.1:9/callbacks",
    routing_log: null,
    payer_name_key: "ayse yilmaz",
    ignored_fields: null,
    created_at: 1,
    updated_at: 1,
  });

  const nonceInput = (nonce: string, reference: string, userId: string) => ({
    firmId: firm.id,
    nonce,
    expiresAt: Date.now() + 300_000,
    reference,
    userId,
    type: "withdrawal" as const,
  });

  it("answers 40 concurrent calls with a few statements, each with its own facts", async () => {
    const tag = newNonce().slice(0, 8);
    const taken = `TAKEN-${tag}`;
    expect((await repos.transactions.insert(withdrawal(taken, `owner-${tag}`))).ok).toBe(true);
    await store.db
      .insertInto("banned_users")
      .values({ firm_id: firm.id, user_id: `banned-${tag}`, created_at: 1 })
      .execute();
    const reused = `reused-${tag}`;
    expect((await batches.nonceAndFacts(nonceInput(reused, `x-${tag}`, `x-${tag}`))).nonceFresh).toBe(true);

    sent.length = 0;
    const inputs = Array.from({ length: 40 }, (_, i) =>
      nonceInput(`n-${tag}-${i}`, `R-${tag}-${i}`, `u-${tag}-${i}`),
    );
    inputs[3] = nonceInput(`n-${tag}-3`, taken, `u-${tag}-3`);
    inputs[5] = nonceInput(`n-${tag}-5`, `R-${tag}-5`, `banned-${tag}`);
    inputs[7] = nonceInput(`n-${tag}-7`, `R-${tag}-7`, `owner-${tag}`);
    inputs[9] = nonceInput(reused, `R-${tag}-9`, `u-${tag}-9`);
    // The same nonce twice in one batch: only the first is fresh.
    inputs[11] = nonceInput(`n-${tag}-10`, `R-${tag}-11`, `u-${tag}-11`);
    const answers = await Promise.all(inputs.map((i) => batches.nonceAndFacts(i)));

    expect(sent.length).toBeLessThanOrEqual(4);
    expect(sent.every((name) => name === "tx_nonces_and_facts_batch")).toBe(true);
    answers.forEach((a, i) => {
      expect(a.nonceFresh, `input ${i}`).toBe(i !== 9 && i !== 11);
      if (!a.nonceFresh) return;
      expect(a.facts, `input ${i}`).toMatchObject({
        referenceUsed: i === 3,
        userBanned: i === 5,
        pendingExists: i === 7,
      });
    });
  });

  it("inserts concurrent rows in one statement and lets the unique indexes name each conflict", async () => {
    const tag = newNonce().slice(0, 8);
    sent.length = 0;
    const rows = Array.from({ length: 30 }, (_, i) => withdrawal(`R-${tag}-${i}`, `u-${tag}-${i}`));
    rows[4] = withdrawal(`R-${tag}-1`, `u-${tag}-4`); // the reference of row 1
    rows[6] = withdrawal(`R-${tag}-6`, `u-${tag}-2`); // a second pending one for row 2's user
    const results = await Promise.all(rows.map((r) => batches.insert(r)));

    expect(sent.filter((name) => name === "tx_insert_batch").length).toBeLessThanOrEqual(3);
    expect(results[4]).toEqual({ ok: false, conflict: "reference" });
    expect(results[6]).toEqual({ ok: false, conflict: "one_pending" });
    const ids = results.filter((r) => r.ok).map((r) => (r.ok ? r.id : 0));
    expect(ids).toHaveLength(28);
    expect(new Set(ids).size).toBe(28);
    // Each id is the row of its own reference.
    for (const [i, r] of results.entries()) {
      if (!r.ok) continue;
      const row = await repos.transactions.get(r.id);
      expect(row?.reference).toBe(rows[i]?.reference);
      expect(row?.user_id).toBe(rows[i]?.user_id);
    }
    const stored = await store.db
      .selectFrom("transactions")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("reference", "like", `R-${tag}-%`)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(28);
  });

  it("fails only the row a CHECK refuses; the rest of its batch is written", async () => {
    const tag = newNonce().slice(0, 8);
    const rows = Array.from({ length: 10 }, (_, i) => withdrawal(`R-${tag}-${i}`, `u-${tag}-${i}`));
    rows[3] = withdrawal(`R-${tag}-3`, `u-${tag}-3`, 0); // amount > 0 is a CHECK of the table
    const results = await Promise.allSettled(rows.map((r) => batches.insert(r)));
    const failed = results.flatMap((r, i) => (r.status === "rejected" ? [i] : []));
    expect(failed).toEqual([3]);
    expect((results[3] as PromiseRejectedResult).reason.code).toBe("23514");
    expect(results.filter((r) => r.status === "fulfilled" && r.value.ok)).toHaveLength(9);
  });

  it("gives each inserted row to its own request, whatever its reference holds", async () => {
    const tag = newNonce().slice(0, 8);
    const owner = `owner-${tag}`;
    expect((await batches.insert(withdrawal(`seed-${tag}`, owner))).ok).toBe(true);
    const odd = [
      `q"uote-${tag}`,
      `back\\slash-${tag}`,
      `com,ma-${tag}`,
      `{br}ace-${tag}`,
      `Şİğ ü-${tag}`,
      `😀-${tag}`,
    ];
    const rows = [
      // Same reference, first refused for its user's pending withdrawal: the second is the one written.
      withdrawal(`R-${tag}`, owner),
      withdrawal(`R-${tag}`, `other-${tag}`),
      // Two references JavaScript tells apart and the database does not (lone surrogates).
      withdrawal(`S-${tag}-\ud83d`, `s1-${tag}`),
      withdrawal(`S-${tag}-\ud83e`, `s2-${tag}`),
      ...odd.map((ref, i) => withdrawal(ref, `odd-${tag}-${i}`)),
    ];
    const results = await Promise.all(rows.map((r) => batches.insert(r)));

    expect(results[0]?.ok).toBe(false);
    expect(results[1]?.ok).toBe(true);
    expect([results[2]?.ok, results[3]?.ok].sort()).toEqual([false, true]);
    for (const [i, r] of results.entries()) {
      if (!r.ok) continue;
      const row = await repos.transactions.get(r.id);
      expect(row?.user_id, `row ${i}`).toBe(rows[i]?.user_id);
    }
    for (const [i, ref] of odd.entries()) {
      const r = results[4 + i];
      expect(r?.ok, ref).toBe(true);
      if (r?.ok) expect((await repos.transactions.get(r.id))?.reference).toBe(ref);
    }
  });

  it("retries each row alone when PostgreSQL rolled the batch back for a lock, deadlock or timeout", async () => {
    expect(["22001", "23514", "40P01", "40001", "55P03", "57014"].every((code) => rolledBack({ code }))).toBe(
      true,
    );
    // Lost connections and shutdowns leave the outcome unknown: never retried.
    expect(["08006", "57P01", "ECONNRESET"].some((code) => rolledBack({ code }))).toBe(false);
    expect(rolledBack(new Error("timeout"))).toBe(false);

    // A real one: inserts wait on a table lock until lock_timeout ends the batch with 55P03.
    const url = new URL(server.env.DATABASE_URL as string);
    url.searchParams.set(
      "options",
      [url.searchParams.get("options"), "-c lock_timeout=300"].filter(Boolean).join(" "),
    );
    const impatient = await openStore({ databaseUrl: url.toString(), dataDir: "unused", pgPoolSize: 2 });
    const locker = new pg.Client({ connectionString: server.env.DATABASE_URL });
    await locker.connect();
    try {
      await locker.query("BEGIN");
      await locker.query("LOCK TABLE transactions IN SHARE MODE");
      let released = false;
      const unbatched = oneRowPaths(impatient);
      const retried: string[] = [];
      const b = createPgIntakeBatches(impatient.prepared, {
        nonceAndFacts: unbatched.nonceAndFacts,
        // The first row tried alone proves the batch was given up: the lock goes, rows go in.
        async insert(v) {
          retried.push(v.reference);
          if (!released) {
            released = true;
            await locker.query("COMMIT");
          }
          return unbatched.insert(v);
        },
      });
      const tag = newNonce().slice(0, 8);
      const results = await Promise.all(
        [0, 1, 2].map((i) => b.insert(withdrawal(`L-${tag}-${i}`, `l-${tag}-${i}`))),
      );
      expect(results.every((r) => r.ok)).toBe(true);
      expect(retried.sort()).toEqual([0, 1, 2].map((i) => `L-${tag}-${i}`));
    } finally {
      await locker.query("ROLLBACK").catch(() => {});
      await locker.end();
      await impatient.close();
    }
  });

  it("fails the whole batch on a lost connection rather than guessing", async () => {
    const broken = createPgIntakeBatches(
      {
        rows: () => Promise.reject(Object.assign(new Error("Connection terminated unexpectedly"), {})),
        changes: () => Promise.reject(new Error("unused")),
      },
      {
        nonceAndFacts: () => Promise.reject(new Error("must not retry alone")),
        insert: () => Promise.reject(new Error("must not retry alone")),
      },
    );
    const tag = newNonce().slice(0, 8);
    const results = await Promise.allSettled(
      [0, 1, 2].map((i) => broken.insert(withdrawal(`R-${tag}-${i}`, `u-${tag}-${i}`))),
    );
    for (const r of results) {
      expect(r.status).toBe("rejected");
      expect((r as PromiseRejectedResult).reason.message).toBe("Connection terminated unexpectedly");
    }
  });

  it("plans the facts afresh each time, so a grown table is probed through the pending index", async () => {
    // One connection, so every statement below runs in the session whose prepared statements are
    // listed at the end.
    const single = await openStore({
      databaseUrl: server.env.DATABASE_URL,
      dataDir: "unused",
      pgPoolSize: 1,
    });
    try {
      const tag = newNonce().slice(0, 8);
      const facts = (i: number) => [
        [firm.id],
        [`plan-${tag}-${i}`],
        [Date.now() + 300_000],
        [`R-${tag}-x${i}`],
        [`u-${tag}-x${i}`],
        ["withdrawal"],
      ];
      // More than the five executions after which a named statement keeps a generic plan.
      for (let i = 0; i < 8; i++) await single.prepared.rows(NONCES_AND_FACTS, facts(i));
      // Thousands of pending transactions, never analyzed (as in a new deployment).
      await single.db.executeQuery(
        sql`INSERT INTO transactions (firm_id, reference, type, status, amount, first_name, last_name,
              username, user_id, bank_code, iban, iban_valid, callback_url, created_at, updated_at)
            SELECT ${firm.id}, 'P-' || ${tag} || '-' || g, 'withdrawal', 'pending', 100, 'A', 'B', 'ab',
              'p-' || ${tag} || '-' || g, 'AKBANK', 'TR00', 0, 'http://127.0.0.1:9/cb', 1, 1
            FROM generate_series(1, 3000) AS g`.compile(single.db),
      );
      const prepared = await single.db.executeQuery<{ name: string }>(
        sql`SELECT name FROM pg_prepared_statements`.compile(single.db),
      );
      expect(prepared.rows.map((r) => r.name)).not.toContain(NONCES_AND_FACTS.name);

      // Planned as it is sent (unnamed, with its values), the probe takes the partial unique index.
      const c = await new pg.Client({ connectionString: server.env.DATABASE_URL });
      await c.connect();
      try {
        const plan = await c.query(`EXPLAIN ${NONCES_AND_FACTS.postgres}`, facts(99));
        const text = plan.rows.map((r) => r["QUERY PLAN"]).join("\n");
        expect(text).toContain("transactions_one_pending_uq");
        expect(text).not.toContain("transactions_status_idx");
      } finally {
        await c.end();
      }
    } finally {
      await single.close();
    }
  });
});
