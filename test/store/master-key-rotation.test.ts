import { randomBytes } from "node:crypto";
import { sql } from "kysely";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { isCheckOf, masterKeyCheck } from "../../src/crypto/key-check.js";
import { rotateMasterKey, UnopenableSecretError } from "../../src/crypto/master-key-rotation.js";
import { sealContext } from "../../src/crypto/seal-context.js";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import { openStore, type Store } from "../../src/store/engine/open.js";
import {
  createSealedSecretsStore,
  SEALED_COLUMNS,
  sealedColumnsInSchema,
} from "../../src/store/sealed-secrets.js";
import { createStoreKeyRepository } from "../../src/store/store-keys.js";
import { PG_BASE_URL, STORES, type StoreKind } from "../support/harness.js";
import { sealV1 } from "../support/legacy-seal.js";
import { depositRow, insertAccount, insertFirm } from "../support/rows.js";
import { freshStore } from "../support/store.js";
import { startTcpProxy } from "../support/tcp-proxy.js";

/**
 * The master key rotation on a real store of each kind, below the CLI: every sealed value moves
 * to the new key in one transaction with the key check, or nothing moves; and on PostgreSQL it
 * refuses while a server holds the store's serving lock.
 */
const T = 1_800_000_000_000;
/** More than two of the rotation's batches (500 rows), so that a failure can come after some. */
const TRANSACTIONS = 1_100;

type Fresh = Awaited<ReturnType<typeof freshStore>>;

/** Every sealed value, the key check and the audit log: what a refused rotation must not change. */
async function snapshot(store: Store) {
  const out: Record<string, unknown[]> = {};
  for (const [table, columns] of Object.entries(SEALED_COLUMNS)) {
    const rows = await sql<Record<string, unknown>>`SELECT id, ${sql.join(columns.map((c) => sql.ref(c)))}
      FROM ${sql.table(table)} ORDER BY id`.execute(store.db);
    out[table] = rows.rows;
  }
  out.store_keys = await store.db.selectFrom("store_keys").selectAll().execute();
  out.audit_log = await store.db.selectFrom("audit_log").selectAll().orderBy("id").execute();
  return out;
}

/** A sealed value's plaintext and the context it is sealed for, by "table.column#id". */
type Plain = Map<string, { text: string; context: string }>;

/**
 * One of everything sealed, with the plaintext and context of each, and values that are not sealed.
 * A mix of v1 values (as versions before sealing contexts wrote them) and v2 ones, as a store that
 * was upgraded holds: the firms, the operator's two columns and the transactions each have both.
 */
async function seed(store: Store, key: Buffer) {
  const box = createSecretBox(key);
  const plain: Plain = new Map();
  let n = 0;
  /** Every other value is v1. */
  const sealed = (where: string, text: string, context: string) => {
    plain.set(where, { text, context });
    return n++ % 2 === 0 ? sealV1(key, text) : box.seal(text, context);
  };
  const firms = [await insertFirm(store, T), await insertFirm(store, T)];
  for (const id of firms)
    await store.db
      .updateTable("firms")
      .set({
        secret_sealed: sealed(
          `firms.secret_sealed#${id}`,
          `sk_${id}_${randomBytes(8).toString("hex")}`,
          sealContext.firmSecret(id),
        ),
      })
      .where("id", "=", id)
      .execute();
  const channel = await store.db
    .insertInto("channels")
    .values({
      code: "CH1",
      kind: "http",
      url: "https://channel.example",
      secret_sealed: "",
      timeout_ms: 1000,
      active: 1,
      created_at: T,
      updated_at: T,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await store.db
    .updateTable("channels")
    .set({
      secret_sealed: sealed(
        `channels.secret_sealed#${channel.id}`,
        "channel-secret",
        sealContext.channelSecret(channel.id),
      ),
    })
    .where("id", "=", channel.id)
    .execute();
  await store.db
    .insertInto("channels")
    .values({
      code: "MAN",
      kind: "manual",
      url: null,
      secret_sealed: null,
      timeout_ms: 1000,
      active: 1,
      created_at: T,
      updated_at: T,
    })
    .execute();
  const operator = await store.db
    .insertInto("operators")
    .values({
      email: "a@ops.example",
      role: "admin",
      password_hash: "x",
      failed_logins: 0,
      locked_until: 0,
      active: 1,
      created_at: T,
      updated_at: T,
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  const totp = sealContext.operatorTotp(operator.id);
  await store.db
    .updateTable("operators")
    .set({
      totp_sealed: sealed(`operators.totp_sealed#${operator.id}`, "JBSWY3DPEHPK3PXP", totp),
      totp_pending_sealed: sealed(`operators.totp_pending_sealed#${operator.id}`, "KRSXG5CTMVRXEZLU", totp),
    })
    .where("id", "=", operator.id)
    .execute();
  for (const [reference, request] of [
    ["S-OPEN", '{"national_id":"12345678901"}'],
    ["S-ENDED", ""],
  ] as const) {
    const s = await store.db
      .insertInto("payment_sessions")
      .values({
        token_hash: `h-${reference}`,
        firm_id: firms[0] as number,
        reference,
        request_sealed: "",
        callback_url: "https://m.example/cb",
        return_url: null,
        status: "open",
        transaction_id: null,
        expires_at: T,
        created_at: T,
        updated_at: T,
      })
      .returning("id")
      .executeTakeFirstOrThrow();
    // A page's details are '' once dropped (store/payment-page/payment-sessions.ts scrubEnded): not a sealed value.
    if (request !== "")
      await store.db
        .updateTable("payment_sessions")
        .set({
          request_sealed: sealed(
            `payment_sessions.request_sealed#${s.id}`,
            request,
            sealContext.hostedRequest(`h-${reference}`),
          ),
        })
        .where("id", "=", s.id)
        .execute();
  }
  const account = await insertAccount(store, T);
  // The account's statement feed secret (reconciliation/feed.ts).
  await store.db
    .updateTable("payment_accounts")
    .set({
      feed_secret_sealed: sealed(
        `payment_accounts.feed_secret_sealed#${account}`,
        "fs_feed-secret",
        sealContext.feedSecret(account),
      ),
    })
    .where("id", "=", account)
    .execute();
  const nationalIds = new Map<string, { text: string; context: string }>();
  for (let start = 0; start < TRANSACTIONS; start += 100) {
    const rows = Array.from({ length: Math.min(100, TRANSACTIONS - start) }, (_, i) => {
      const k = start + i;
      const firmId = firms[k % 2] as number;
      const reference = `R-${k}`;
      const row = depositRow({ firmId, accountId: account, amount: 100, reference }, T);
      // Every third without a national id (null): not a sealed value either.
      if (k % 3 === 0) return row;
      const text = `1${String(k).padStart(10, "0")}`;
      const context = sealContext.nationalId(firmId, reference);
      nationalIds.set(reference, { text, context });
      return { ...row, national_id_sealed: k % 3 === 1 ? sealV1(key, text) : box.seal(text, context) };
    });
    await store.db.insertInto("transactions").values(rows).execute();
  }
  const txs = await store.db.selectFrom("transactions").select(["id", "reference"]).execute();
  for (const t of txs) {
    const value = nationalIds.get(t.reference);
    if (value) plain.set(`transactions.national_id_sealed#${t.id}`, value);
  }
  // The payment codes' key, as a server's first start seals it (main/payment-codes.ts).
  const codeKey = { text: randomBytes(32).toString("hex"), context: sealContext.paymentCodeKey(1) };
  await store.db
    .updateTable("payment_code_keys")
    .set({ key_sealed: box.seal(codeKey.text, codeKey.context), sealed_at: T })
    .execute();
  plain.set("payment_code_keys.key_sealed#1", codeKey);
  return { plain, firms };
}

describe.each(STORES)("master key rotation in the store (%s)", (kind: StoreKind) => {
  let fresh: Fresh;
  let store: Store;
  let oldKey: Buffer;
  let plain: Plain;
  let firms: number[];

  beforeEach(async () => {
    fresh = await freshStore(kind);
    store = fresh.store;
    oldKey = randomBytes(32);
    await createStoreKeyRepository(store.db).recordMasterCheck(masterKeyCheck(oldKey), T);
    ({ plain, firms } = await seed(store, oldKey));
  }, 60_000);
  afterEach(async () => {
    await fresh?.close();
  });

  const rotate = (s: Store, current: Buffer, next: Buffer) =>
    rotateMasterKey(
      { transaction: createSealedSecretsStore(s).transaction, now: () => T + 1, actor: "operator:test" },
      current,
      next,
    );

  it("every sealed value, v1 or v2, opens with the new key for its row to what it was, as v2; the check is the new key's", async () => {
    const before = await snapshot(store);
    const versions = (snap: typeof before) =>
      Object.keys(SEALED_COLUMNS).flatMap((t) =>
        (snap[t] as Record<string, unknown>[]).flatMap((r) =>
          Object.values(r).filter((v): v is string => typeof v === "string" && /^v[12]:/.test(v)),
        ),
      );
    // The store is a mix to begin with.
    expect(versions(before).filter((v) => v.startsWith("v1:")).length).toBeGreaterThan(300);
    expect(versions(before).filter((v) => v.startsWith("v2:")).length).toBeGreaterThan(300);

    const newKey = randomBytes(32);
    const result = await rotate(store, oldKey, newKey);
    const nationalIds = TRANSACTIONS - Math.ceil(TRANSACTIONS / 3);
    expect(result).toEqual({
      outcome: "rotated",
      secrets: plain.size,
      byColumn: {
        "firms.secret_sealed": 2,
        "channels.secret_sealed": 1,
        "operators.totp_sealed": 1,
        "operators.totp_pending_sealed": 1,
        "payment_sessions.request_sealed": 1,
        "payment_accounts.feed_secret_sealed": 1,
        "transactions.national_id_sealed": nationalIds,
        "payment_code_keys.key_sealed": 1,
      },
    });
    const after = await snapshot(store);
    const next = createSecretBox(newKey);
    const old = createSecretBox(oldKey);
    let opened = 0;
    for (const table of Object.keys(SEALED_COLUMNS) as (keyof typeof SEALED_COLUMNS)[]) {
      for (const row of after[table] as Record<string, unknown>[]) {
        for (const column of SEALED_COLUMNS[table]) {
          const value = row[column];
          const expected = plain.get(`${table}.${column}#${row.id}`);
          if (expected === undefined) {
            expect(value === null || value === "", `${table}.${column}#${row.id}`).toBe(true);
            continue;
          }
          expect((value as string).startsWith("v2:"), `${table}.${column}#${row.id}`).toBe(true);
          expect(next.open(value as string, expected.context)).toBe(expected.text);
          expect(() => next.open(value as string, `${expected.context}0`)).toThrow();
          expect(() => old.open(value as string, expected.context)).toThrow();
          opened++;
        }
      }
    }
    expect(opened).toBe(plain.size);
    const keys = after.store_keys as { purpose: string; key_check: string }[];
    expect(keys).toHaveLength(1);
    expect(isCheckOf(newKey, keys[0]?.key_check as string)).toBe(true);
    expect(after.audit_log).toEqual([
      expect.objectContaining({
        actor: "operator:test",
        action: "store.rotate_master_key",
        entity_type: "store",
        entity_id: "master_key",
        after_json: JSON.stringify({ master_key: "rotated", secrets: plain.size }),
      }),
    ]);
    for (const k of [oldKey, newKey])
      expect(JSON.stringify(after.audit_log)).not.toContain(k.toString("hex"));

    // The old key is now the wrong one, and the new one rotates on.
    expect(await rotate(store, oldKey, randomBytes(32))).toEqual({ outcome: "other_key" });
    expect((await rotate(store, newKey, randomBytes(32))).outcome).toBe("rotated");
  }, 60_000);

  it("a value the current key cannot open, after hundreds were re-sealed, stops it with nothing changed", async () => {
    // Late in the walk: firms, channels, operators, pages and two batches of transactions come first.
    const victim = await store.db
      .selectFrom("transactions")
      .select("id")
      .where("national_id_sealed", "is not", null)
      .orderBy("id", "desc")
      .executeTakeFirstOrThrow();
    const row = await store.db
      .selectFrom("transactions")
      .select(["firm_id", "reference"])
      .where("id", "=", victim.id)
      .executeTakeFirstOrThrow();
    await store.db
      .updateTable("transactions")
      .set({
        national_id_sealed: createSecretBox(randomBytes(32)).seal(
          "99999999999",
          sealContext.nationalId(row.firm_id, row.reference),
        ),
      })
      .where("id", "=", victim.id)
      .execute();
    const before = await snapshot(store);

    const failed = await rotate(store, oldKey, randomBytes(32)).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(UnopenableSecretError);
    expect((failed as Error).message).toBe(
      `transactions.national_id_sealed of row ${victim.id} does not open with the current master key`,
    );
    expect(await snapshot(store)).toEqual(before);
  }, 60_000);

  it("a v2 value copied into another row stops it, naming that row, with nothing changed", async () => {
    // Firm 1's secret is v2 (seed: every other value is v1, the first firm's first).
    const [a, b] = firms as [number, number];
    const source = await store.db
      .selectFrom("firms")
      .select("secret_sealed")
      .where("id", "=", b)
      .executeTakeFirstOrThrow();
    expect(source.secret_sealed.startsWith("v2:")).toBe(true);
    await store.db
      .updateTable("firms")
      .set({ secret_sealed: source.secret_sealed })
      .where("id", "=", a)
      .execute();
    const before = await snapshot(store);

    const failed = await rotate(store, oldKey, randomBytes(32)).catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(UnopenableSecretError);
    expect((failed as Error).message).toBe(
      `firms.secret_sealed of row ${a} does not open with the current master key`,
    );
    expect(await snapshot(store)).toEqual(before);
  });

  it("a current key that is not the store's changes nothing", async () => {
    const before = await snapshot(store);
    expect(await rotate(store, randomBytes(32), randomBytes(32))).toEqual({ outcome: "other_key" });
    expect(await snapshot(store)).toEqual(before);
  });

  it("the columns it re-seals are every *_sealed column in the schema", async () => {
    const listed = Object.entries(SEALED_COLUMNS).flatMap(([t, cs]) => cs.map((c) => `${t}.${c}`));
    expect(await sealedColumnsInSchema(store.db, store.dialect)).toEqual(listed.sort());
  });
});

describe.runIf(STORES.includes("postgres"))("master key rotation and serving instances (postgres)", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function keyedStore() {
    const fresh = await freshStore("postgres");
    cleanups.push(() => fresh.close());
    const key = randomBytes(32);
    await createStoreKeyRepository(fresh.store.db).recordMasterCheck(masterKeyCheck(key), T);
    const firm = await insertFirm(fresh.store, T);
    await fresh.store.db
      .updateTable("firms")
      .set({ secret_sealed: createSecretBox(key).seal("sk_test", sealContext.firmSecret(firm)) })
      .where("id", "=", firm)
      .execute();
    return { ...fresh, key };
  }
  const rotate = (s: Store, current: Buffer, next: Buffer) =>
    rotateMasterKey(
      { transaction: createSealedSecretsStore(s).transaction, now: () => T, actor: "operator:test" },
      current,
      next,
    );

  it("refused while an instance holds the serving lock, changing nothing; allowed once it stopped; another store's instance does not count", async () => {
    const a = await keyedStore();
    const b = await keyedStore();
    const serving = await a.open();
    await serving.holdServingLock(async () => {});
    const onB = await b.open();
    await onB.holdServingLock(async () => {});

    const before = await snapshot(a.store);
    expect(await rotate(a.store, a.key, randomBytes(32))).toEqual({ outcome: "in_use" });
    expect(await snapshot(a.store)).toEqual(before);

    // Serving on another schema of the same database: a's rotation is not b's business.
    await serving.close();
    expect((await rotate(a.store, a.key, randomBytes(32))).outcome).toBe("rotated");
    expect(await rotate(b.store, b.key, randomBytes(32))).toEqual({ outcome: "in_use" });
  });

  it("an instance whose connection was cut takes the lock again, then checks the key first", async () => {
    const { store, key } = await keyedStore();
    const where = await sql<{ database: string; schema: string }>`
      SELECT current_database() AS database, current_schema() AS schema`.execute(store.db);
    const base = new URL(PG_BASE_URL);
    const proxy = await startTcpProxy({ host: base.hostname, port: Number(base.port || 5432) });
    cleanups.push(() => proxy.close());
    const viaProxy = new URL(PG_BASE_URL);
    viaProxy.port = String(proxy.port);
    viaProxy.pathname = `/${where.rows[0]?.database}`;
    viaProxy.searchParams.set("options", `-c search_path=${where.rows[0]?.schema}`);
    const instance = await openStore({ databaseUrl: viaProxy.toString(), dataDir: "", pgPoolSize: 2 });
    cleanups.push(() => instance.close());
    const keyStillOurs: boolean[] = [];
    await instance.holdServingLock(async () => {
      const check = await createStoreKeyRepository(instance.db).masterCheck();
      keyStillOurs.push(isCheckOf(key, check as string));
    });
    expect(await rotate(store, key, randomBytes(32))).toEqual({ outcome: "in_use" });

    // Cut: the lock went with the session, so a rotation gets through (an operator who did not
    // stop this instance); back, the instance holds the lock again and finds the key moved.
    const moved = randomBytes(32);
    proxy.down();
    await waitFor(async () => (await rotate(store, key, moved)).outcome === "rotated");
    proxy.up();
    await waitFor(async () => keyStillOurs.length > 0);
    expect(keyStillOurs).toEqual([false]);
    expect(await rotate(store, moved, randomBytes(32))).toEqual({ outcome: "in_use" });
  }, 30_000);
});

async function waitFor(ok: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 100));
  }
}
