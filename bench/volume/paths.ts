import { formatMinor } from "../../src/domain/money.js";
import { plainLower } from "../shared/names.js";
import { type Answer, adminCall, merchantCall, timedRequest, withQuery } from "../shared/timed-http.js";
import type { PathGroup } from "./measure.js";
import type { Person } from "./people.js";
import type { ConsoleSession, Provisioned } from "./provision.js";
import type { Fixture, SeedTransaction } from "./rows.js";
import type { Samples } from "./samples.js";

/**
 * The paths merchants and the admin API use, timed through the real server (the console's are in
 * console-paths.ts). Each call gets its own parameters from the samples.
 */
export interface PathContext {
  url: string;
  adminToken: string;
  session: ConsoleSession;
  fx: Fixture;
  firms: Provisioned["firms"];
  size: number;
  /** Unique to the run and size: the merchant paths' new references and users. */
  tag: string;
  samples: Samples;
  people(firmIndex: number, userIndex: number): Person;
  /** What the merchant paths wrote at this size: the empty store's lookups find these. */
  written: { firmIndex: number; reference: string; id?: number }[];
}

export interface PathSpec {
  name: string;
  group: PathGroup;
  /** The CSV export: its first byte is reported too. */
  csv?: boolean;
  call(ctx: PathContext, i: number): Promise<Answer>;
}

const MERCHANT_API = "/paymentapi/v1";
/** Users of the merchant paths' new transactions: none of the seeded ones, so nothing refuses them. */
const NEW_USERS = 5_000_000;

export const liveFirms = (ctx: PathContext) => ctx.firms.filter((f) => !f.sandbox);
export const liveFirm = (ctx: PathContext, i: number) => {
  const live = liveFirms(ctx);
  return live[i % live.length] as PathContext["firms"][number];
};
const firmIndexOf = (ctx: PathContext, firmId: number) => ctx.firms.findIndex((f) => f.id === firmId);

/** A payer's name as operators type it: from a statement in capitals without Turkish letters, as written, or begun. */
export function nameQuery(tx: SeedTransaction, i: number): string {
  if (i % 3 === 0) return `${plainLower(tx.first_name)} ${plainLower(tx.last_name)}`.toUpperCase();
  if (i % 3 === 1) return `${tx.first_name} ${tx.last_name}`;
  return `${tx.last_name} ${tx.first_name.slice(0, 3)}`;
}

export const amountText = (tx: SeedTransaction) => formatMinor(tx.amount);

export function consoleGet(
  ctx: PathContext,
  path: string,
  query: Record<string, string | number | undefined> = {},
) {
  return timedRequest(ctx.url, "GET", withQuery(`/ops/api${path}`, query), { cookie: ctx.session.cookie });
}

function adminGet(ctx: PathContext, path: string, query: Record<string, string | number | undefined> = {}) {
  return adminCall(ctx.url, ctx.adminToken, "GET", withQuery(`/admin/v1${path}`, query));
}

function payer(ctx: PathContext, firmIndex: number, i: number) {
  const person = ctx.people(firmIndex, NEW_USERS + i);
  return {
    bank_code: person.bank.code,
    first_name: person.first,
    last_name: person.last,
    ...(person.middle === null ? {} : { middle_name: person.middle }),
    username: person.username,
    user_id: `vb-${ctx.tag}-${i}`,
    ...(person.nationalId === null ? {} : { national_id: person.nationalId }),
    iban: person.iban,
  };
}

async function create(ctx: PathContext, i: number, kind: "deposits" | "withdrawals"): Promise<Answer> {
  const firm = liveFirm(ctx, i);
  const firmIndex = ctx.firms.indexOf(firm);
  const like = kind === "deposits" ? ctx.samples.deposit(i) : ctx.samples.withdrawal(i);
  const { iban, ...person } = payer(ctx, firmIndex, i);
  const reference = `VB-${ctx.tag}-${kind === "deposits" ? "D" : "W"}${i}`;
  const body = {
    amount: amountText(like),
    ...person,
    reference,
    method: like.method ?? "fast",
    ...(kind === "withdrawals" ? { iban } : {}),
  };
  const answer = await merchantCall(
    ctx.url,
    firm.creds,
    "POST",
    `${MERCHANT_API}/${kind}`,
    JSON.stringify(body),
  );
  if (answer.status === 200) ctx.written.push({ firmIndex, reference });
  return answer;
}

/** A row to look up: one the merchant paths wrote on the empty store, else a seeded one. */
function lookup(ctx: PathContext, i: number, needId: boolean): PathContext["written"][number] {
  const written = ctx.written.filter((w) => !needId || w.id !== undefined);
  const w = written[i % Math.max(1, written.length)];
  if (ctx.size === 0 && w) return w;
  const tx = ctx.samples.any(i);
  return { firmIndex: firmIndexOf(ctx, tx.firm_id), reference: tx.reference, id: tx.id };
}

export const MERCHANT_PATHS: PathSpec[] = [
  { name: "merchant: deposit", group: "merchant", call: (ctx, i) => create(ctx, i, "deposits") },
  { name: "merchant: withdrawal", group: "merchant", call: (ctx, i) => create(ctx, i, "withdrawals") },
  {
    name: "merchant: query by reference",
    group: "merchant",
    async call(ctx, i) {
      const row = lookup(ctx, i, false);
      const firm = ctx.firms[row.firmIndex] as PathContext["firms"][number];
      const path = `${MERCHANT_API}/transactions/by-reference/${encodeURIComponent(row.reference)}`;
      const answer = await merchantCall(ctx.url, firm.creds, "GET", path);
      // The empty store's query by id looks up the ids these answers give.
      if (answer.status === 200 && row.id === undefined) row.id = JSON.parse(answer.text).data.id as number;
      return answer;
    },
  },
  {
    name: "merchant: query by id",
    group: "merchant",
    call(ctx, i) {
      const row = lookup(ctx, i, true);
      const firm = ctx.firms[row.firmIndex] as PathContext["firms"][number];
      return merchantCall(ctx.url, firm.creds, "GET", `${MERCHANT_API}/transactions/${row.id ?? 0}`);
    },
  },
];

export const ADMIN_PATHS: PathSpec[] = [
  { name: "admin: transactions", group: "admin", call: (ctx) => adminGet(ctx, "/transactions") },
  {
    name: "admin: transactions of a firm",
    group: "admin",
    call: (ctx, i) => adminGet(ctx, "/transactions", { firm: liveFirm(ctx, i).id }),
  },
  {
    name: "admin: pending transactions",
    group: "admin",
    call: (ctx) => adminGet(ctx, "/transactions", { status: "pending" }),
  },
  { name: "admin: callbacks", group: "admin", call: (ctx) => adminGet(ctx, "/callbacks") },
  {
    name: "admin: failed callbacks",
    group: "admin",
    call: (ctx) => adminGet(ctx, "/callbacks", { status: "failed" }),
  },
  {
    name: "admin: callbacks of a firm",
    group: "admin",
    call: (ctx, i) => adminGet(ctx, "/callbacks", { firm: liveFirm(ctx, i).id }),
  },
];
