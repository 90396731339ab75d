import { amountText, consoleGet, liveFirm, nameQuery, type PathContext, type PathSpec } from "./paths.js";
import { DECIDERS, type SeedTransaction } from "./rows.js";

/**
 * The operators' console, path by path: the queue with each of its filters, the transaction search
 * by each field alone and in the combinations operators use, a transaction's detail, the summary,
 * a day's CSV export and the audit log. Signed in as an admin with a second factor.
 */
type Query = Record<string, string | number | undefined>;

const queue = (name: string, query: (ctx: PathContext, i: number) => Query): PathSpec => ({
  name: `queue: ${name}`,
  group: "console",
  call: (ctx, i) => consoleGet(ctx, "/queue", query(ctx, i)),
});

const search = (name: string, query: (ctx: PathContext, i: number) => Query): PathSpec => ({
  name: `search: ${name}`,
  group: "console",
  call: (ctx, i) => consoleGet(ctx, "/transactions", query(ctx, i)),
});

const audit = (name: string, query: (ctx: PathContext, i: number) => Query): PathSpec => ({
  name: `audit: ${name}`,
  group: "console",
  call: (ctx, i) => consoleGet(ctx, "/audit", query(ctx, i)),
});

const STATUSES = ["approved", "rejected", "pending"] as const;
const METHODS = ["fast", "eft", "havale"] as const;
const kindOf = (i: number) => (i % 2 === 0 ? "deposit" : "withdrawal");

/** An IBAN as an operator pastes it: compact, or grouped as the console and statements show it. */
const ibanQuery = (tx: SeedTransaction, i: number) => {
  const iban = (tx.iban ?? tx.assigned_iban ?? "").replace(/\s+/g, "");
  return i % 3 === 0 ? iban.replace(/(.{4})/g, "$1 ").trim() : iban;
};

/** Every field of one row at once, the time as the hour around its creation. */
function everyField(ctx: PathContext, i: number): Query {
  const tx = ctx.samples.withdrawal(i);
  return {
    id: tx.id,
    reference: tx.reference,
    user_id: tx.user_id,
    username: tx.username,
    iban: ibanQuery(tx, i),
    status: tx.status,
    type: tx.type,
    firm: tx.firm_id,
    amount: amountText(tx),
    name: nameQuery(tx, i),
    from: new Date(tx.created_at - 3_600_000).toISOString(),
    to: new Date(tx.created_at + 3_600_000).toISOString(),
  };
}

const QUEUE_PATHS: PathSpec[] = [
  queue("deposits, oldest first", () => ({ type: "deposit" })),
  queue("withdrawals, oldest first", () => ({ type: "withdrawal" })),
  queue("newest first", (_ctx, i) => ({ type: kindOf(i), order: "newest" })),
  queue("firm", (ctx, i) => ({ type: kindOf(i), firm: liveFirm(ctx, i).id })),
  queue("amount", (ctx, i) => {
    const tx = ctx.samples.pending(i);
    return { type: tx.type, amount: amountText(tx) };
  }),
  queue("name", (ctx, i) => {
    const tx = ctx.samples.pending(i);
    return { type: tx.type, name: nameQuery(tx, i) };
  }),
  queue("method", (_ctx, i) => ({ type: kindOf(i), method: METHODS[i % METHODS.length] })),
];

const SEARCH_PATHS: PathSpec[] = [
  search("id", (ctx, i) => ({ id: ctx.samples.any(i).id })),
  search("reference", (ctx, i) => ({ reference: ctx.samples.any(i).reference })),
  search("user_id", (ctx, i) => ({ user_id: ctx.samples.any(i).user_id })),
  search("username", (ctx, i) => ({ username: ctx.samples.any(i).username })),
  search("iban", (ctx, i) => ({ iban: ibanQuery(ctx.samples.withdrawal(i), i) })),
  search("status", (_ctx, i) => ({ status: STATUSES[i % STATUSES.length] })),
  search("type", (_ctx, i) => ({ type: kindOf(i) })),
  search("firm", (ctx, i) => ({ firm: liveFirm(ctx, i).id })),
  search("amount", (ctx, i) => ({ amount: amountText(ctx.samples.any(i)) })),
  search("name", (ctx, i) => ({ name: nameQuery(ctx.samples.any(i), i) })),
  search("a day", (ctx, i) => ctx.samples.day(i)),
  search("name + amount", (ctx, i) => {
    const tx = ctx.samples.any(i);
    return { name: nameQuery(tx, i), amount: amountText(tx) };
  }),
  search("firm + status + type", (ctx, i) => ({
    firm: liveFirm(ctx, i).id,
    status: STATUSES[i % STATUSES.length],
    type: kindOf(i),
  })),
  search("user_id + firm", (ctx, i) => {
    const tx = ctx.samples.any(i);
    return { user_id: tx.user_id, firm: tx.firm_id };
  }),
  search("iban + status", (ctx, i) => ({
    iban: ibanQuery(ctx.samples.withdrawal(i), i),
    status: "approved",
  })),
  search("firm + a day", (ctx, i) => ({ firm: liveFirm(ctx, i).id, ...ctx.samples.day(i) })),
  search("name + a day", (ctx, i) => ({ name: nameQuery(ctx.samples.any(i), i), ...ctx.samples.day(i) })),
  search("every field of one row", everyField),
];

const SCREEN_PATHS: PathSpec[] = [
  {
    name: "transaction detail",
    group: "console",
    call(ctx, i) {
      const written = ctx.written.filter((w) => w.id !== undefined);
      const id = ctx.size === 0 ? written[i % Math.max(1, written.length)]?.id : ctx.samples.decided(i).id;
      return consoleGet(ctx, `/transactions/${id ?? 1}`);
    },
  },
  { name: "summary (dashboard)", group: "console", call: (ctx) => consoleGet(ctx, "/dashboard") },
  {
    name: "CSV export of a day",
    group: "console",
    csv: true,
    call: (ctx, i) => consoleGet(ctx, "/transactions.csv", ctx.samples.day(i)),
  },
  audit("newest", () => ({})),
  audit("one transaction", (ctx, i) => ({
    entity_type: "transaction",
    entity_id: String(ctx.samples.decided(i).id),
  })),
  audit("actor", (_ctx, i) => ({ actor: DECIDERS[i % DECIDERS.length] })),
  audit("action", (_ctx, i) => ({ action: i % 2 === 0 ? "transaction.approve" : "transaction.reject" })),
  audit("a day", (ctx, i) => ctx.samples.day(i)),
];

export const CONSOLE_PATHS: PathSpec[] = [...QUEUE_PATHS, ...SEARCH_PATHS, ...SCREEN_PATHS];
