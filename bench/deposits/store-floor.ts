import { randomBytes } from "node:crypto";
import Fastify from "fastify";
import { DEFAULT_PG_POOL_SIZE } from "../../src/config/config.js";
import { openStore } from "../../src/store/engine/open.js";
import { createRepositories } from "../../src/store/index.js";
import { DEPOSIT_PATH } from "../shared/load.js";

/**
 * The second reference: payintake's store alone. A Fastify server whose deposit route makes exactly
 * the store calls a payintake deposit makes, through payintake's own store layer (the nonce and the
 * business facts in one call, then the insert, then waiting until the write is durable), and
 * nothing else: no authentication, validation, routing, sealing, metrics or logging. What it
 * reaches is the most any deposit handler built on this store could reach on this machine; the gap
 * between it and payintake is the cost of everything else a deposit does.
 *
 * Run as a child process by bench/deposits/run.ts, on a fresh store: DATABASE_URL for PostgreSQL, else an
 * embedded store in FLOOR_DATA_DIR. Prints its URL.
 */
const store = await openStore({
  databaseUrl: process.env.DATABASE_URL || undefined,
  dataDir: process.env.FLOOR_DATA_DIR ?? "",
  pgPoolSize: DEFAULT_PG_POOL_SIZE,
  // The machinery under measurement (bench/deposits/engines.ts): on unless told otherwise.
  engine: {
    sqliteThread: process.env.FLOOR_SQLITE_THREAD !== "false",
    pgBatches: process.env.FLOOR_PG_BATCHES !== "false",
  },
});
await store.migrate();
const repos = createRepositories(store);

const at = Date.now();
const audit = { actor: "bench:floor", action: "create", at };
const firm = await repos.firms.create({
  provider_id: null,
  name: "Floor Firm",
  api_key: `floor-${randomBytes(8).toString("hex")}`,
  secret_sealed: "v1:unused",
  webhook_url: "http://127.0.0.1:9/cb",
  legacy_http: 0,
  callback_middle_name: 0,
  deposit_min: null,
  deposit_max: null,
  deposits_open: 1,
  withdrawals_open: 1,
  active: 1,
  rate_limit_per_second: 1_000_000,
  max_pending_count: null,
  max_pending_amount: null,
  sandbox: 0,
  created_at: at,
  updated_at: at,
});
const account = await repos.audited.insert(
  "payment_accounts",
  {
    bank_name: "Akbank",
    holder_name: "Ödeme Hizmetleri A.Ş.",
    iban: "TR330006100519786457841326",
    min_amount: null,
    max_amount: null,
    active: 1,
    channel_id: null,
    bank_code: "AKBANK",
    daily_cap: null,
    created_at: at,
    updated_at: at,
  },
  audit,
);

const app = Fastify({ logger: false });
// The body as bytes, parsed by the route, as payintake does (it verifies the signature over them).
app.removeAllContentTypeParsers();
app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: 65_536 }, (_req, body, done) => {
  done(null, body);
});
app.addHook("onSend", async () => {
  await store.settle();
});

app.post(DEPOSIT_PATH, async (request, reply) => {
  const body = JSON.parse((request.body as Buffer).toString("utf8")) as Record<string, string>;
  const reference = body.reference ?? "";
  const userId = body.user_id ?? "";
  const now = Date.now();
  const read = await repos.transactions.nonceAndFacts(
    { firmId: firm.id, nonce: String(request.headers["x-nonce"]), expiresAt: now + 300_000 },
    { reference, userId, type: "deposit" },
  );
  const { referenceUsed, userBanned, pendingExists } = read.facts;
  if (!read.nonceFresh || referenceUsed || userBanned || pendingExists)
    return reply.code(409).send({ success: false, message: "refused" });
  const inserted = await repos.transactions.insert({
    firm_id: firm.id,
    reference,
    type: "deposit",
    status: "pending",
    amount: 15_000,
    method: "fast",
    first_name: body.first_name ?? "",
    last_name: body.last_name ?? "",
    middle_name: null,
    username: body.username ?? "",
    user_id: userId,
    national_id_masked: "123******01",
    national_id_sealed: "v1:unused",
    bank_code: body.bank_code ?? "",
    iban: null,
    iban_valid: null,
    account_id: account.id,
    assigned_bank_name: account.bank_name,
    assigned_holder_name: account.holder_name,
    assigned_iban: account.iban,
    callback_url: "http://127.0.0.1:9/cb",
    routing_log: "[]",
    // The stored value as deposits write it (a folded name), without the folding's cost.
    payer_name_key: "ayse yilmaz",
    ignored_fields: null,
    created_at: now,
    updated_at: now,
  });
  if (!inserted.ok) return reply.code(409).send({ success: false, message: "refused" });
  return {
    success: true,
    message: "Yatırım talebiniz alındı",
    assigned_bank_name: account.bank_name,
    assigned_holder_name: account.holder_name,
    assigned_iban: account.iban,
  };
});

const stop = () => {
  app
    .close()
    .then(() => store.close())
    .then(
      () => process.exit(0),
      () => process.exit(1),
    );
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);

const url = await app.listen({ port: 0, host: "127.0.0.1" });
process.stdout.write(`store floor listening on ${url}\n`);
