import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { FIRST_NAMES, LAST_NAMES } from "../../bench/shared/names.js";
import { payerNameKey } from "../../src/domain/name-search.js";
import { type StoreKind, storeEnv } from "./harness.js";
import { depositRow } from "./rows.js";
import { sleep, startServe, stopServe } from "./spawn.js";
import { camtFile, type Entry } from "./statement-files.js";
import { storedPaymentCodes, withStore } from "./stored.js";

/**
 * A large bank statement and the pending deposits it pays, for the reliability tests of its import
 * (test/reliability/statement-import-*.test.ts), with the true answer of every line and what the
 * store must hold after any number of imports, whole or cut short.
 *
 * The account and the firm are made through the real server (admin API); the deposits, thousands
 * of them, are written straight into the store while no server runs (SQLite admits one process),
 * as intake writes them, each with its own amount. Of the deposits, nine in ten are paid by a line
 * (half by the payment code, half by the payer's name and the exact amount); the tenth stays
 * pending. Between the paying lines: credits no deposit fits (unmatched), and debits.
 */
export type Expected = { state: "approved"; depositId: number } | { state: "unmatched" } | { state: "debit" };

export interface ImportScene {
  kind: StoreKind;
  /** The server's environment: the store, its keys, the admin token, a TMPDIR of its own. */
  env: Record<string, string>;
  accountId: number;
  firmId: number;
  /** Every deposit made, in order of creation. */
  depositIds: number[];
  /** The camt.053 file. */
  file: string;
  /** The lines' bank references in file order, and what each must become. */
  refs: string[];
  expected: Map<string, Expected>;
  /** What one clean import of the file gives. */
  totals: { lines: number; credits: number; approved: number; unmatched: number; debits: number };
  cleanup(): Promise<void>;
}

/** Lines written per database transaction: the server's own figure. */
export { BATCH } from "../../src/reconciliation/line-matcher.js";

const IBAN = "TR330006100519786457841326";

export async function adminCall(
  url: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

/** The store, the account and firm (through a server, stopped again), the deposits, the file. */
export async function importScene(
  kind: StoreKind,
  opts: { deposits: number; webhookUrl: string },
): Promise<ImportScene> {
  const store = await storeEnv(kind);
  // The server spools an upload to its temp dir: inside the data dir, so a killed import's spool
  // file goes with the store.
  const tmp = join(store.env.PAYINTAKE_DATA_DIR as string, "tmp");
  mkdirSync(tmp, { recursive: true });
  const env: Record<string, string> = {
    ...store.env,
    TMPDIR: tmp,
    PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
    PAYINTAKE_CALLBACK_POLL_MS: "100",
    PAYINTAKE_CALLBACK_LEASE_MS: "2000",
    PAYINTAKE_CALLBACK_TIMEOUT_MS: "2000",
    // Thousands of callbacks to one local receiver: delivered within seconds once approved.
    PAYINTAKE_CALLBACK_PER_ORIGIN: "32",
    LOG_LEVEL: "warn",
  };
  try {
    const server = await startServe(env);
    const token = env.PAYINTAKE_ADMIN_TOKEN as string;
    const account = await adminCall(server.url, token, "POST", "/admin/v1/accounts", {
      bank_name: "Ziraat Bankası",
      holder_name: "Ödeme Hizmetleri A.Ş.",
      iban: IBAN,
    });
    const firm = await adminCall(server.url, token, "POST", "/admin/v1/firms", {
      name: "Statement Firm",
      webhook_url: opts.webhookUrl,
      rate_limit_per_second: 100_000,
      // Thousands of pending deposits at once: past the default bound of pending deposits.
      max_pending_count: null,
      max_pending_amount: null,
    });
    expect([account.status, firm.status]).toEqual([201, 201]);
    expect((await stopServe(server)).code).toBe(0);
    const made = await insertDeposits(env, account.json.id, firm.json.id, opts.deposits, opts.webhookUrl);
    return {
      kind,
      env,
      accountId: account.json.id,
      firmId: firm.json.id,
      depositIds: made.map((d) => d.id),
      ...statementOf(made),
      cleanup: () => store.cleanup(),
    };
  } catch (err) {
    await store.cleanup();
    throw err;
  }
}

interface Made {
  id: number;
  first: string;
  last: string;
  amountMinor: number;
  at: number;
  /** Its payment code, under the store's key (the server that made the firm made the key). */
  code: string;
}

async function insertDeposits(
  env: Record<string, string>,
  accountId: number,
  firmId: number,
  count: number,
  callbackUrl: string,
): Promise<Made[]> {
  // One every ten minutes, the last an hour ago: a line's day before it holds 144 of them.
  const start = Date.now() - 3_600_000 - count * 600_000;
  const made: Made[] = [];
  await withStore(env, async (s) => {
    for (let from = 0; from < count; from += 200) {
      const rows = [];
      for (let i = from; i < Math.min(count, from + 200); i++) {
        const first = FIRST_NAMES[i % FIRST_NAMES.length] as string;
        const last = LAST_NAMES[Math.floor(i / FIRST_NAMES.length) % LAST_NAMES.length] as string;
        // Every amount its own (10.00 TRY up, 0.37 apart): a name with its amount proves one deposit.
        const amountMinor = 1_000 + i * 37;
        const at = start + i * 600_000;
        made.push({ id: 0, first, last, amountMinor, at, code: "" });
        rows.push({
          ...depositRow({ firmId, accountId, amount: amountMinor, reference: `STM-${i}` }, at),
          first_name: first,
          last_name: last,
          // As intake writes it: a row without it is one the server's backfill goes back to.
          payer_name_key: payerNameKey(first, null, last),
          assigned_iban: IBAN,
          callback_url: callbackUrl,
        });
      }
      const ids = await s.db.insertInto("transactions").values(rows).returning("id").execute();
      ids.forEach((r, k) => {
        (made[from + k] as Made).id = Number(r.id);
      });
    }
    const codes = await storedPaymentCodes(s, env);
    for (const d of made) d.code = codes.of(d.id);
  });
  return made;
}

const decimal = (minor: number) => `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, "0")}`;

function statementOf(made: Made[]): Pick<ImportScene, "file" | "refs" | "expected" | "totals"> {
  const entries: Entry[] = [];
  const expected = new Map<string, Expected>();
  const add = (entry: Entry & { ref: string }, truth: Expected) => {
    entries.push(entry);
    expected.set(entry.ref, truth);
  };
  made.forEach((d, i) => {
    const at = d.at + 60_000;
    if (i % 10 !== 9) {
      const byCode = i % 2 === 0;
      add(
        {
          amount: decimal(d.amountMinor),
          name: byCode ? "BASKA BIRI" : `${d.last} ${d.first}`.toLocaleUpperCase("tr"),
          description: byCode ? `ODEME ${d.code}` : "HAVALE",
          ref: `P-${i}`,
          at,
        },
        { state: "approved", depositId: d.id },
      );
    }
    if (i % 9 === 0)
      add(
        { amount: decimal(5_000_000 + i * 100), name: `YABANCI ${i}`, description: "EFT", ref: `U-${i}`, at },
        { state: "unmatched" },
      );
    if (i % 15 === 0)
      add(
        { amount: decimal(100 + i), direction: "debit", description: "EFT MASRAFI", ref: `D-${i}`, at },
        { state: "debit" },
      );
  });
  const states = [...expected.values()].map((e) => e.state);
  const n = (state: Expected["state"]) => states.filter((s) => s === state).length;
  return {
    file: camtFile({ iban: IBAN, entries }),
    refs: entries.map((e) => e.ref as string),
    expected,
    totals: {
      lines: entries.length,
      credits: n("approved") + n("unmatched"),
      approved: n("approved"),
      unmatched: n("unmatched"),
      debits: n("debit"),
    },
  };
}

/** POST the statement; resolves with the answer, or rejects if the server dies first. */
export async function postStatement(
  url: string,
  scene: ImportScene,
): Promise<{ status: number; json: any; at: number }> {
  const res = await fetch(`${url}/admin/v1/accounts/${scene.accountId}/statements`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${scene.env.PAYINTAKE_ADMIN_TOKEN}`,
      "content-type": "application/xml",
    },
    body: scene.file,
  });
  return { status: res.status, json: await res.json().catch(() => undefined), at: Date.now() };
}

/** The id of the account's newest statement line, through the API (0 when none). */
export async function newestLineId(url: string, scene: ImportScene): Promise<number> {
  const r = await adminCall(
    url,
    scene.env.PAYINTAKE_ADMIN_TOKEN as string,
    "GET",
    `/admin/v1/statement-lines?account=${scene.accountId}&limit=1`,
  );
  expect(r.status).toBe(200);
  return (r.json[0]?.id as number | undefined) ?? 0;
}

/** Polls `probe` until it returns a value, failing after `timeoutMs` or when `abort` says why. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  opts: { timeoutMs?: number; everyMs?: number; abort?: () => string | undefined } = {},
): Promise<T> {
  const deadline = Date.now() + (opts.timeoutMs ?? 30_000);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    const why = opts.abort?.();
    if (why) throw new Error(`while waiting for ${what}: ${why}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(opts.everyMs ?? 10);
  }
}

export interface StoredLine {
  id: number;
  bank_ref: string | null;
  state: string;
  transaction_id: number | null;
  import_id: number | null;
  created_at: number;
}

export interface StoredState {
  lines: StoredLine[];
  deposits: { id: number; status: string; decided_by: string | null; decision_note: string | null }[];
  audits: { entity_id: string; actor: string; action: string }[];
  callbacks: { transaction_id: number; event: string; status: string }[];
  imports: { id: number; created_at: number }[];
}

/** Everything the import writes, read straight from the store (no server may hold SQLite's). */
export function storedState(scene: ImportScene): Promise<StoredState> {
  return withStore(scene.env, async (s) => {
    const lines = await s.db
      .selectFrom("statement_lines")
      .select(["id", "bank_ref", "state", "transaction_id", "import_id", "created_at"])
      .where("account_id", "=", scene.accountId)
      .orderBy("id")
      .execute();
    const deposits = await s.db
      .selectFrom("transactions")
      .select(["id", "status", "decided_by", "decision_note"])
      .where("firm_id", "=", scene.firmId)
      .orderBy("id")
      .execute();
    const audits = await s.db
      .selectFrom("audit_log")
      .select(["entity_id", "actor", "action"])
      .where("entity_type", "=", "transaction")
      .execute();
    const callbacks = await s.db
      .selectFrom("callbacks")
      .select(["transaction_id", "event", "status"])
      .where("firm_id", "=", scene.firmId)
      .execute();
    const imports = await s.db
      .selectFrom("statement_imports")
      .select(["id", "created_at"])
      .where("account_id", "=", scene.accountId)
      .orderBy("id")
      .execute();
    return {
      lines: lines.map((l) => ({
        ...l,
        id: Number(l.id),
        transaction_id: l.transaction_id === null ? null : Number(l.transaction_id),
        import_id: l.import_id === null ? null : Number(l.import_id),
        created_at: Number(l.created_at),
      })),
      deposits: deposits.map((d) => ({ ...d, id: Number(d.id) })),
      audits,
      callbacks: callbacks.map((c) => ({ ...c, transaction_id: Number(c.transaction_id) })),
      imports: imports.map((i) => ({ id: Number(i.id), created_at: Number(i.created_at) })),
    };
  });
}

const countBy = <T>(items: T[], key: (t: T) => string | number) => {
  const m = new Map<string | number, number>();
  for (const t of items) m.set(key(t), (m.get(key(t)) ?? 0) + 1);
  return m;
};

/**
 * What the store must hold after any imports of the scene's file, finished or cut short: each line
 * once and as the matching makes it; every approving line's deposit approved by service:reconcile,
 * naming that line; every deposit so approved settled by exactly one line, with exactly one audit
 * entry and one callback in the outbox; every other deposit pending, with neither. Returns the
 * numbers of lines and approved deposits found.
 */
export function expectConsistent(scene: ImportScene, s: StoredState): { lines: number; approved: number } {
  const refs = s.lines.map((l) => l.bank_ref ?? "(none)");
  expect(
    [...countBy(refs, (r) => r).values()].filter((n) => n > 1),
    "lines recorded twice",
  ).toEqual([]);
  const deposits = new Map(s.deposits.map((d) => [d.id, d]));
  const lineOf = new Map<number, StoredLine>();
  const wrong: string[] = [];
  for (const line of s.lines) {
    const want = scene.expected.get(line.bank_ref ?? "");
    if (!want) {
      wrong.push(`line ${line.id}: ${line.bank_ref} is not in the file`);
      continue;
    }
    const wantTx = want.state === "approved" ? want.depositId : null;
    if (line.state !== want.state || line.transaction_id !== wantTx)
      wrong.push(`line ${line.bank_ref}: ${line.state}/${line.transaction_id}, not ${want.state}/${wantTx}`);
    if (line.transaction_id === null) continue;
    if (lineOf.has(line.transaction_id)) wrong.push(`deposit ${line.transaction_id} settled by two lines`);
    lineOf.set(line.transaction_id, line);
    const d = deposits.get(line.transaction_id);
    if (
      d?.status !== "approved" ||
      d.decided_by !== "service:reconcile" ||
      d.decision_note !== `bank statement line ${line.id}`
    )
      wrong.push(`line ${line.bank_ref} approves deposit ${line.transaction_id}: ${JSON.stringify(d)}`);
  }
  const approveAudits = countBy(
    s.audits.filter((a) => a.action === "transaction.approve" && a.actor === "service:reconcile"),
    (a) => Number(a.entity_id),
  );
  const otherAudits = countBy(
    s.audits.filter((a) => !(a.action === "transaction.approve" && a.actor === "service:reconcile")),
    (a) => Number(a.entity_id),
  );
  const callbacks = countBy(s.callbacks, (c) => c.transaction_id);
  let approved = 0;
  for (const d of s.deposits) {
    const audits = approveAudits.get(d.id) ?? 0;
    const cbs = callbacks.get(d.id) ?? 0;
    if (d.status === "approved") {
      approved++;
      if (d.decided_by !== "service:reconcile") wrong.push(`deposit ${d.id} approved by ${d.decided_by}`);
      if (!lineOf.has(d.id)) wrong.push(`deposit ${d.id} approved with no line`);
      if (audits !== 1 || cbs !== 1) wrong.push(`deposit ${d.id}: ${audits} audit entries, ${cbs} callbacks`);
    } else if (d.status !== "pending" || d.decided_by !== null || audits + cbs > 0) {
      wrong.push(
        `deposit ${d.id}: ${d.status} by ${d.decided_by}, ${audits} audit entries, ${cbs} callbacks`,
      );
    }
    if (otherAudits.has(d.id)) wrong.push(`deposit ${d.id}: an audit entry other than the approval`);
  }
  expect(wrong.slice(0, 20), `${wrong.length} inconsistencies`).toEqual([]);
  expect(s.callbacks.every((c) => c.event === "deposit.approved")).toBe(true);
  return { lines: s.lines.length, approved };
}
