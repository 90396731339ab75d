import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { request } from "undici";
import { turkishIbanFor } from "../../../src/domain/iban.js";
import { type ChannelSimulator, startChannelSimulator } from "../../../src/routing/channels/simulator.js";
import { type Receiver, startReceiver } from "../receiver.js";
import { type Server, sleep, startServe } from "../spawn.js";
import { PG_BASE_URL } from "../stores.js";

/**
 * The payouts chaos run's world (issue 47): real `dist/` server processes on one fresh PostgreSQL
 * schema (two `api`, one `worker`), the merchant's callback receiver, and a payout channel
 * simulator per channel account. Every request goes through `call`, which counts answers by kind
 * and status and knows which requests are in flight on which process, so a kill can be aimed at one.
 */
export type SlotName = "api-0" | "api-1" | "worker";
export type CallKind =
  | "withdrawal"
  | "query"
  | "batch"
  | "file"
  | "sent"
  | "release"
  | "cancel"
  | "reject"
  | "import"
  | "read";

export interface Slot {
  name: SlotName;
  role: "api" | "worker";
  server: Server | undefined;
  dataDir: string;
  restarts: number;
  inFlight: Map<CallKind, number>;
}

export interface Answer {
  status: number;
  json: any;
  text: string;
  slot: SlotName;
}

export interface Accounts {
  /** Paid by hand: the bank file uploaded, marked sent, proven by the statement. */
  file: { id: number; iban: string };
  /** An http channel whose final "paid" approves (channel_final_approves). */
  channelApproves: { id: number; iban: string; sim: ChannelSimulator };
  /** An http channel whose "paid" waits for the statement. */
  channelStatement: { id: number; iban: string; sim: ChannelSimulator };
}

export interface World {
  env: Record<string, string>;
  slots: Slot[];
  receiver: Receiver;
  firm: { id: number; apiKey: string; secret: string };
  accounts: Accounts;
  db: pg.Client;
  /** status counts per kind; 0 is "no answer" (connection refused or cut). */
  answers: Map<CallKind, Map<number, number>>;
  /** Every 5xx answer: kind, status and the first bytes of its body. */
  serverErrors: { kind: CallKind; slot: SlotName; status: number; body: string }[];
  call(
    kind: CallKind,
    method: string,
    path: string,
    opts?: {
      body?: unknown;
      raw?: string;
      contentType?: string;
      slot?: SlotName;
      headers?: Record<string, string>;
    },
  ): Promise<Answer>;
  apiUp(name: SlotName): Server | undefined;
  close(): Promise<void>;
}

export const SLOT_NAMES: SlotName[] = ["api-0", "api-1", "worker"];

async function freshSchema(): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `chaos_${randomBytes(6).toString("hex")}`;
  const c = new pg.Client({ connectionString: PG_BASE_URL });
  await c.connect();
  await c.query(`CREATE SCHEMA ${schema}`);
  await c.end();
  const sep = PG_BASE_URL.includes("?") ? "&" : "?";
  return {
    url: `${PG_BASE_URL}${sep}options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    async drop() {
      const d = new pg.Client({ connectionString: PG_BASE_URL });
      await d.connect();
      await d.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await d.end();
    },
  };
}

export async function startSlot(world: Pick<World, "env">, slot: Slot): Promise<void> {
  slot.server = await startServe({
    ...world.env,
    PAYINTAKE_ROLE: slot.role,
    PAYINTAKE_DATA_DIR: slot.dataDir,
  });
}

/** Kills the slot's process with SIGKILL and waits for it to be gone. */
export async function killSlot(slot: Slot): Promise<void> {
  const server = slot.server;
  if (!server) return;
  slot.server = undefined;
  server.child.kill("SIGKILL");
  await server.child.exited;
}

function counter(world: Pick<World, "answers">, kind: CallKind, status: number) {
  const byStatus = world.answers.get(kind) ?? new Map<number, number>();
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  world.answers.set(kind, byStatus);
}

/** The api slot to send to: the one asked for when up, else another api slot up (waits for one). */
async function apiSlot(world: World, wanted: SlotName | undefined): Promise<Slot> {
  const apis = world.slots.filter((s) => s.role === "api");
  for (let i = 0; i < 400; i++) {
    const preferred = apis.find((s) => s.name === wanted && s.server);
    const any = apis.filter((s) => s.server);
    const chosen = preferred ?? any[Math.floor(Math.random() * any.length)];
    if (chosen) return chosen;
    await sleep(50);
  }
  throw new Error("no api instance came up within 20 s");
}

function makeCall(world: World): World["call"] {
  return async (kind, method, path, opts = {}) => {
    const slot = await apiSlot(world, opts.slot);
    const server = slot.server as Server;
    slot.inFlight.set(kind, (slot.inFlight.get(kind) ?? 0) + 1);
    try {
      const admin = path.startsWith("/admin/");
      const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
      const res = await request(`${server.url}${path}`, {
        method: method as "GET",
        headers: {
          ...(admin ? { authorization: `Bearer ${world.env.PAYINTAKE_ADMIN_TOKEN}` } : {}),
          ...(body === undefined ? {} : { "content-type": opts.contentType ?? "application/json" }),
          ...opts.headers,
        },
        body,
        reset: true,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      });
      const text = await res.body.text();
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      counter(world, kind, res.statusCode);
      // 503 statement_imports_busy is the documented answer past two imports at once per server.
      const busy = res.statusCode === 503 && json?.code === "statement_imports_busy";
      if (res.statusCode >= 500 && !busy)
        world.serverErrors.push({ kind, slot: slot.name, status: res.statusCode, body: text.slice(0, 300) });
      return { status: res.statusCode, json, text, slot: slot.name };
    } catch {
      counter(world, kind, 0);
      return { status: 0, json: undefined, text: "", slot: slot.name };
    } finally {
      slot.inFlight.set(kind, (slot.inFlight.get(kind) ?? 1) - 1);
    }
  };
}

const BANK_CODES = ["0010", "0012", "0015"];
export const accountIban = (n: number) =>
  turkishIbanFor(`${BANK_CODES[n % 3]}0${String(900_000_000 + n).padStart(17, "0")}`);

/** Set-up: schema, processes (the worker first, which migrates), receiver, simulators, firm, accounts. */
export async function startWorld(extraEnv: Record<string, string> = {}): Promise<World> {
  const schema = await freshSchema();
  const env: Record<string, string> = {
    DATABASE_URL: schema.url,
    PAYINTAKE_PG_POOL_SIZE: "10",
    PAYINTAKE_MASTER_KEY: randomBytes(32).toString("hex"),
    PAYINTAKE_ADMIN_TOKEN: randomBytes(24).toString("hex"),
    PAYINTAKE_ALLOW_PRIVATE_CALLBACKS: "true",
    PAYINTAKE_CALLBACK_POLL_MS: "200",
    PAYINTAKE_CALLBACK_LEASE_MS: "3000",
    PAYINTAKE_PAYOUT_WATCH_INTERVAL_MS: "500",
    LOG_LEVEL: "warn",
    ...extraEnv,
  };
  const slots: Slot[] = SLOT_NAMES.map((name) => ({
    name,
    role: name === "worker" ? "worker" : "api",
    server: undefined,
    dataDir: mkdtempSync(join(tmpdir(), `payintake-chaos-${name}-`)),
    restarts: 0,
    inFlight: new Map(),
  }));
  const receiver = await startReceiver();
  const sims: ChannelSimulator[] = [];
  const db = new pg.Client({ connectionString: schema.url });
  const world = {
    env,
    slots,
    receiver,
    db,
    answers: new Map(),
    serverErrors: [],
    apiUp: (name: SlotName) => slots.find((s) => s.name === name)?.server,
    async close() {
      for (const s of slots) await killSlot(s);
      for (const sim of sims) await sim.close();
      await receiver.close();
      await db.end().catch(() => undefined);
      if (process.env.CHAOS_KEEP_SCHEMA === "1") process.stderr.write(`schema kept: ${schema.url}\n`);
      else await schema.drop();
      for (const s of slots) rmSync(s.dataDir, { recursive: true, force: true });
    },
  } as unknown as World;
  world.call = makeCall(world);
  try {
    await startSlot(world, slots[2] as Slot);
    await Promise.all(slots.slice(0, 2).map((s) => startSlot(world, s)));
    await db.connect();
    world.firm = await makeFirm(world);
    world.accounts = await makeAccounts(world, sims);
  } catch (err) {
    await world.close();
    throw err;
  }
  return world;
}

async function admin(world: World, method: string, path: string, body: unknown, expected: number) {
  const res = await world.call("read", method, path, { body });
  if (res.status !== expected) throw new Error(`${method} ${path}: ${res.status} ${res.text}`);
  return res.json;
}

async function makeFirm(world: World) {
  const firm = await admin(
    world,
    "POST",
    "/admin/v1/firms",
    { name: "Chaos Payouts", webhook_url: world.receiver.url, rate_limit_per_second: 100_000 },
    201,
  );
  // The run is about paying once, not about the firm's balance (it makes no deposits): not held to it.
  const on = { payouts: true, balance_guard: false, actor: "chaos" };
  await admin(world, "PATCH", "/admin/v1/payouts/settings", on, 200);
  const rules = { two_person_batch_above: "none", two_person_payout_above: "none", actor: "chaos" };
  await admin(world, "PATCH", "/admin/v1/payouts/settings", rules, 200);
  return { id: firm.id as number, apiKey: firm.api_key as string, secret: firm.secret_key as string };
}

async function makeAccounts(world: World, sims: ChannelSimulator[]): Promise<Accounts> {
  const account = async (n: number, channel?: string) => {
    const iban = accountIban(n);
    const made = await admin(
      world,
      "POST",
      "/admin/v1/accounts",
      {
        bank_name: `Chaos bank ${n}`,
        holder_name: "Ödeme Hizmetleri A.Ş.",
        iban,
        ...(channel ? { channel } : {}),
      },
      201,
    );
    return { id: made.id as number, iban };
  };
  const channelAccount = async (n: number, approves: boolean) => {
    const sim = await startChannelSimulator({ payoutBehaviour: { kind: "payout-paid" } });
    sims.push(sim);
    const code = `CHAOS${n}`;
    await admin(
      world,
      "POST",
      "/admin/v1/channels",
      { code, kind: "http", url: sim.url, timeout_ms: 2_000 },
      201,
    );
    const made = await account(n, code);
    const body = { account: made.id, channel_final_approves: approves, actor: "chaos" };
    await admin(world, "PATCH", "/admin/v1/payouts/settings", body, 200);
    return { ...made, sim };
  };
  return {
    file: await account(1),
    channelApproves: await channelAccount(2, true),
    channelStatement: await channelAccount(3, false),
  };
}
