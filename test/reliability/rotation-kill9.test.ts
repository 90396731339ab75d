import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { isCheckOf } from "../../src/crypto/key-check.js";
import { sealContext } from "../../src/crypto/seal-context.js";
import { createSecretBox } from "../../src/crypto/secret-box.js";
import { SEAL_CONTEXTS, SEALED_COLUMNS } from "../../src/store/sealed-secrets.js";
import { adminCommands } from "../support/admin-commands.js";
import { STORES, storeEnv } from "../support/harness.js";
import { sealV1 } from "../support/legacy-seal.js";
import { eventually } from "../support/receiver.js";
import { depositRow, insertAccount } from "../support/rows.js";
import { SEED, seeded } from "../support/seed.js";
import {
  Child,
  killAll,
  NOT_FOUND_TEXT,
  PROBE_PATH,
  sendSigned,
  sleep,
  startServe,
  stopServe,
} from "../support/spawn.js";
import { withStore } from "../support/stored.js";

/**
 * `payintake master-key rotate` killed with SIGKILL at seeded random moments while it re-seals a
 * store of some thousands of secrets: after every kill the store is wholly under one key (every
 * sealed value opens with the key its check names), and a server started as the operator would
 * (the embedded default reading master.key, which the start puts right; on PostgreSQL the key
 * whose check the store holds) serves the firm written before.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  await killAll();
  for (const c of cleanups.splice(0).reverse()) await c();
});

type Env = Record<string, string | undefined>;
const NATIONAL_IDS = 12_000;
const KILLS = 6;
const T = 1_800_000_000_000;

/**
 * Every sealed value in the store opens with `hex` for its row, and the store's check is that
 * key's. Returns how many opened, and how many of them are v1 (written before sealing contexts).
 */
async function whollyUnder(env: Env, hex: string): Promise<{ opened: number; v1: number }> {
  const key = Buffer.from(hex, "hex");
  const box = createSecretBox(key);
  return withStore(env, async (store) => {
    const check = await store.db.selectFrom("store_keys").select("key_check").executeTakeFirstOrThrow();
    expect(isCheckOf(key, check.key_check)).toBe(true);
    let opened = 0;
    let v1 = 0;
    for (const table of Object.keys(SEALED_COLUMNS) as (keyof typeof SEALED_COLUMNS)[]) {
      const columns = SEALED_COLUMNS[table];
      const context = SEAL_CONTEXTS[table];
      const read = [...new Set(["id", ...context.reads, ...columns])].map((c) => sql.ref(c));
      const rows = await sql<Record<string, unknown> & { id: number }>`SELECT ${sql.join(read)}
        FROM ${sql.table(table)}`.execute(store.db);
      for (const row of rows.rows)
        for (const column of columns) {
          const value = row[column];
          if (typeof value !== "string" || value === "") continue;
          box.open(value, context.of(row));
          opened++;
          if (value.startsWith("v1:")) v1++;
        }
    }
    return { opened, v1 };
  });
}

describe.each(STORES)(`kill -9 during a master key rotation on %s (seed ${SEED})`, (kind) => {
  it(`${KILLS} kills: the store is always wholly under one key, and a server with that key serves`, async () => {
    const random = seeded(SEED + (kind === "postgres" ? 11 : 10));
    // The embedded default keeps its key in master.key (the file's crash ordering is the point);
    // PostgreSQL takes it from the environment.
    let env: Env;
    if (kind === "sqlite") {
      const dir = mkdtempSync(join(tmpdir(), "payintake-rotate-kill-"));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      env = { PAYINTAKE_DATA_DIR: dir };
    } else {
      const store = await storeEnv(kind);
      cleanups.push(() => store.cleanup());
      env = store.env;
    }
    env = { ...env, PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true" };
    const server = await startServe(env);
    const firm = await adminCommands(server.url, server.env).ok(
      "firm",
      "create",
      "--name",
      "Kept",
      "--webhook-url",
      "http://127.0.0.1:9/cb",
      // 12,000 pending deposits written straight into the store: past the default bound.
      "--max-pending-count",
      "none",
      "--max-pending-amount",
      "none",
    );
    const creds = { apiKey: firm.api_key as string, secret: firm.secret_key as string };
    expect(await stopServe(server)).toEqual({ code: 0, signal: null });
    const keyFile = join(env.PAYINTAKE_DATA_DIR as string, "master.key");
    let current =
      kind === "sqlite" ? readFileSync(keyFile, "utf8").trim() : (env.PAYINTAKE_MASTER_KEY as string);

    // Thousands of national ids, so the rotation runs long enough to be cut in the middle: every
    // other one as an older version wrote it (v1, no context), the rest sealed for their row.
    await withStore(env, async (store) => {
      const key = Buffer.from(current, "hex");
      const box = createSecretBox(key);
      const account = await insertAccount(store, T);
      for (let start = 0; start < NATIONAL_IDS; start += 500) {
        const rows = Array.from({ length: 500 }, (_, i) => {
          const reference = `K-${start + i}`;
          const nationalId = String(10_000_000_000 + start + i);
          return {
            ...depositRow({ firmId: firm.id, accountId: account, amount: 100, reference }, T),
            national_id_sealed:
              i % 2 === 0
                ? sealV1(key, nationalId)
                : box.seal(nationalId, sealContext.nationalId(firm.id, reference)),
          };
        });
        await store.db.insertInto("transactions").values(rows).execute();
      }
    });
    // The national ids, the firm's secret and the payment codes' key (made by the server's start).
    const sealed = NATIONAL_IDS + 2;
    expect(await whollyUnder(env, current)).toEqual({ opened: sealed, v1: NATIONAL_IDS / 2 });

    const rotateEnv = (next: string): Env =>
      kind === "sqlite" ? env : { ...env, PAYINTAKE_MASTER_KEY: current, PAYINTAKE_NEW_MASTER_KEY: next };
    const rotateArgs = kind === "sqlite" ? ["master-key", "rotate", "--generate"] : ["master-key", "rotate"];

    // One whole rotation first, to learn how long one takes here.
    let next = randomBytes(32).toString("hex");
    const started = Date.now();
    const whole = new Child(rotateArgs, rotateEnv(next));
    expect(await whole.waitExit(120_000), whole.stderr).toEqual({ code: 0, signal: null });
    const fullMs = Date.now() - started;
    current = kind === "sqlite" ? readFileSync(keyFile, "utf8").trim() : next;
    expect(await whollyUnder(env, current)).toEqual({ opened: sealed, v1: 0 });

    const outcomes: string[] = [];
    for (let k = 0; k < KILLS; k++) {
      next = randomBytes(32).toString("hex");
      const child = new Child(rotateArgs, rotateEnv(next));
      await sleep(Math.floor(random() * fullMs * 1.1));
      child.kill("SIGKILL");
      const exit = await child.waitExit(60_000);
      const before = current;
      const leftover = kind === "sqlite" && existsSync(`${keyFile}.new`);

      // The start settles the key file (embedded default); on PostgreSQL the check says which key,
      // once the killed process's session has ended: a COMMIT it sent before dying may still be
      // under way there, and the check read before it lands names the old key.
      if (kind === "postgres") {
        await noOtherSession(env.DATABASE_URL as string);
        const check = await withStore(env, (s) =>
          s.db.selectFrom("store_keys").select("key_check").executeTakeFirstOrThrow(),
        );
        if (isCheckOf(Buffer.from(next, "hex"), check.key_check)) current = next;
      }
      const restarted = await startServe(kind === "sqlite" ? env : { ...env, PAYINTAKE_MASTER_KEY: current });
      expect((await sendSigned(restarted.url, creds, { path: PROBE_PATH })).text).toBe(NOT_FOUND_TEXT);
      expect(await stopServe(restarted)).toEqual({ code: 0, signal: null });
      if (kind === "sqlite") current = readFileSync(keyFile, "utf8").trim();
      const moved = current !== before ? "after its commit" : "before its commit";
      outcomes.push(
        exit.code === 0 ? "finished" : `killed ${moved}${leftover ? " (master.key.new left)" : ""}`,
      );
      expect(await whollyUnder(env, current), `after kill ${k} (${outcomes[k]})`).toEqual({
        opened: sealed,
        v1: 0,
      });
    }
    console.log(`rotation kill -9 on ${kind}: one rotation ${fullMs} ms; ${outcomes.join("; ")}`);
  }, 300_000);
});

/** Waits until no session but this one is connected to the database (the store's own). */
async function noOtherSession(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await eventually(async () => {
      const others = await client.query(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
      return others.rows[0].n === 0 ? true : undefined;
    }, 30_000);
  } finally {
    await client.end();
  }
}
