/** The transactions' searches and summaries for the operators, and the payer name keys' upkeep. */
import { type Kysely, type Selectable, sql } from "kysely";
import { type Database, MAX_INTEGER_ID, type TransactionTable } from "../schema.js";
import { nameMatch } from "./name-terms.js";
import { type IdRange, idRangeOfDays } from "./transaction-days.js";

type TransactionRow = Selectable<TransactionTable>;

export interface TransactionFilter {
  firmId?: number;
  status?: TransactionRow["status"];
  type?: TransactionRow["type"];
  /** Newest first by default. */
  order?: "newest" | "oldest";
  limit?: number;
  id?: number;
  reference?: string;
  userId?: string;
  username?: string;
  /**
   * Matches the withdrawal IBAN or the assigned IBAN of a deposit, as written or not: spaces,
   * dashes and letter case are ignored on both sides (ibanKey).
   */
  iban?: string;
  /**
   * The amount exactly, in minor units: the one decided or the one asked for (a payer who sent
   * another sum than asked is found by the statement's sum once an operator approved it as sent).
   */
  amountMinor?: number;
  /**
   * How the payout is to be sent: an operator pays FAST ones now and EFT ones within the banks'
   * EFT hours. A withdrawal stored without one (before methods were kept) is FAST (methodOf).
   */
  method?: "fast" | "eft" | "havale";
  /**
   * Folded words (domain/name-search.ts), each of which must begin a word of the payer's name, in
   * any order.
   */
  nameWords?: readonly string[];
  /** Only rows with a smaller id: the next page of a walk from the newest (an export's). */
  beforeId?: number;
  /** Created at or after / before, epoch ms. */
  from?: number;
  to?: number;
  /** Leave out test (sandbox) firms' transactions: operators never decide those. */
  liveOnly?: boolean;
}

/**
 * What an IBAN as compared in a search leaves out: every kind of space (a no-break or narrow one too:
 * pasted from a web page or a PDF statement) and dashes; letter case is folded too. A withdrawal's
 * IBAN is stored as the merchant sent it (never refused, the contract), often grouped or in lower
 * case ("tr33 0006 1005 …"), and the console shows it grouped for reading: compared as written, an
 * operator who pasted either form found nothing. Control characters never reach the store (intake
 * drops them, intake/requests.ts). One list for both sides, so the typed and the stored IBAN are
 * cleaned alike (JavaScript's \s and SQL's replace() would not agree by themselves).
 */
const IBAN_GAPS = [
  " ",
  "-",
  "\u00a0",
  "\u1680",
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
  // Zero-width space and word joiner: invisible, and pasted with an IBAN from a web page.
  "\u200b",
  "\u2060",
  "\u2028",
  "\u2029",
  "\u202f",
  "\u205f",
  "\u3000",
  "\ufeff",
];
// The dash escaped: between two characters of a class it would make a range.
const IBAN_GAP_PATTERN = new RegExp(`[${IBAN_GAPS.map((g) => (g === "-" ? "\\-" : g)).join("")}]+`, "gu");

function ibanKey(iban: string): string {
  return iban.replace(IBAN_GAP_PATTERN, "").toUpperCase();
}
/**
 * ibanKey in SQL, the same in SQLite and PostgreSQL, as text: the searches compare it, and the
 * expression indexes on it (migration 20261128T1000_operator_indexes) serve them only while both
 * are this very text (test/store/operator-indexes.test.ts says when they part).
 */
export function storedIbanKeySql(column: "iban"): string {
  return `upper(${IBAN_GAPS.reduce((inner, gap) => `replace(${inner}, '${gap}', '')`, column)})`;
}
const storedIbanKey = sql<string>`${sql.raw(storedIbanKeySql("iban"))}`;

/**
 * The payment accounts an IBAN names. A deposit's assigned IBAN is its account's, copied when it was
 * routed (accounts never change IBAN), so the deposits paid into an IBAN are found through the account
 * (transactions_account_day_idx) rather than by reading every deposit's copy.
 */
async function accountsWithIban(db: Kysely<Database>, key: string): Promise<number[]> {
  const rows = await db.selectFrom("payment_accounts").select("id").where(storedIbanKey, "=", key).execute();
  return rows.map((r) => Number(r.id));
}

/**
 * A filter as the store runs it: the IBAN's accounts looked up, and on SQLite the name's words
 * found through the full-text index (migration 20261128T1200_name_search).
 */
export type ResolvedFilter = TransactionFilter & {
  ibanAccounts?: readonly number[];
  /** The name's words are looked up in the full-text index (SQLite). */
  nameIndex?: boolean;
  /**
   * SQLite, a name with dates: the ids the dates' rows lie between (transaction-days.ts), where the
   * full-text index's matches are read. The index knows no dates: without these, a name with few
   * rows in the window would be walked back through every year.
   */
  nameIds?: IdRange;
  /** SQLite: the name's words as the full-text index is asked for them (name-terms.ts). */
  nameMatch?: string;
  /** Only these rows: a chunk of the full-text index's matches (walkNames). */
  idsIn?: readonly number[];
  /**
   * PostgreSQL, a week or less with other filters: the rows are found through the dates and then
   * ordered, never by walking another index in id order back to the range (a firm's newest rows
   * back to a day a year ago).
   */
  datesFirst?: boolean;
  /** The amount compared in this one column only (listTransactions asks each in turn). */
  amountIn?: "amount" | "original_amount";
  /**
   * PostgreSQL, a name with dates: the dates also as the name index's day numbers (migration
   * 20261201T1200_name_day_index), so that the index hands over only those days' matches.
   */
  nameDays?: boolean;
  /**
   * PostgreSQL, a name in a queue or in a week or less: checked on the rows the pending or the date
   * index finds (a few thousand at most), as an expression no index serves; on a large store the
   * planner otherwise takes the name index, which hands over a name's matches of every year.
   */
  nameUnindexed?: boolean;
};

async function resolve(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  filter: TransactionFilter,
): Promise<ResolvedFilter> {
  const named = (filter.nameWords?.length ?? 0) > 0;
  const maybeIndexed = dialect === "sqlite" && named && (!narrowed(filter) || amountOnly(filter));
  const dated = filter.from !== undefined || filter.to !== undefined;
  const nameIds = maybeIndexed && dated ? await idRangeOfDays(db, filter.from, filter.to) : undefined;
  const match = maybeIndexed ? await nameMatch(db, filter.nameWords ?? []) : undefined;
  const resolved: ResolvedFilter = {
    ...filter,
    ...(nameIds ? { nameIds } : {}),
    ...(match ? { nameMatch: match } : {}),
    nameIndex: maybeIndexed && (!narrowed(filter) || (await rareName(db, match ?? "", nameIds))),
    datesFirst: dialect === "postgres" && shortRange(filter),
    nameDays: dialect === "postgres" && named && !onFewRows(filter),
    nameUnindexed: dialect === "postgres" && named && onFewRows(filter),
  };
  if (filter.iban !== undefined) resolved.ibanAccounts = await accountsWithIban(db, ibanKey(filter.iban));
  return resolved;
}

const WEEK_MS = 7 * 86_400_000;

/**
 * Whether the filter selects few enough rows through another index that a name is best checked on
 * them (LIKE) than looked up among millions: a queue (the pending rows), a key that names a payer
 * or a transaction, an amount, or a week or less. A common first name matches a fiftieth of the
 * table; the full-text index would hand over every one of those.
 */
function narrowed(filter: TransactionFilter): boolean {
  const keys = [filter.id, filter.reference, filter.userId, filter.username, filter.iban, filter.amountMinor];
  return filter.status === "pending" || keys.some((k) => k !== undefined) || shortRange(filter);
}

/** Narrowed by an amount and nothing else that `narrowed` counts. */
const amountOnly = (filter: TransactionFilter) =>
  filter.amountMinor !== undefined && !narrowed({ ...filter, amountMinor: undefined });

/**
 * Below this many rows of the name over all time, a name with an amount is found through the name
 * (its rows, each checked for the amount) rather than through the amount. The name's rows bound
 * what that reads; the amount's walk in id order is bounded by nothing when few of a round
 * amount's rows (tens of thousands a month) match the name: it reads them back through every year.
 * A surname with a first name's prefix has several thousand rows on a large store, so the bar is
 * well above that (docs/BENCHMARKS.md, Volume).
 */
const RARE_NAME_ROWS = 50_000;

/**
 * Whether the full-text index holds fewer than RARE_NAME_ROWS rows of the name, between the ids
 * given (SQLite).
 */
async function rareName(db: Kysely<Database>, match: string, ids?: IdRange): Promise<boolean> {
  const found = await sql<{ n: number }>`SELECT count(*) AS n FROM (SELECT rowid FROM transaction_names
    WHERE transaction_names MATCH ${match}${idsBetween(ids)} LIMIT ${RARE_NAME_ROWS})`.execute(db);
  return Number(found.rows[0]?.n) < RARE_NAME_ROWS;
}

/** The full-text index's rows between two ids, as integers (better-sqlite3 binds numbers as REAL). */
const idsBetween = (ids?: IdRange) =>
  ids ? sql` AND rowid BETWEEN ${sql.lit(ids.first)} AND ${sql.lit(ids.last)}` : sql``;

/** A queue or a week or less: rows that their own index finds, few enough to check a name on. */
const onFewRows = (filter: TransactionFilter) => filter.status === "pending" || shortRange(filter);

const shortRange = (filter: TransactionFilter) =>
  filter.from !== undefined && filter.to !== undefined && filter.to - filter.from <= WEEK_MS;

/** The name index's day number of a row (20261201T1200_name_day_index), the very expression it holds. */
const utcDay = sql<number>`(created_at / 86400000)::integer`;
const utcDayOf = (at: number) => Math.floor(at / 86_400_000);

/** The rows a filter selects (TransactionFilter), for a page of them or their count. */
function filterTransactions(db: Kysely<Database>, filter: ResolvedFilter) {
  let q = db.selectFrom("transactions");
  if (filter.firmId !== undefined) q = q.where("firm_id", "=", filter.firmId);
  // A literal (one of three words), so that the planner can prove the pending index applies.
  if (filter.status !== undefined) q = q.where("status", "=", sql.lit(filter.status));
  if (filter.type !== undefined) q = q.where("type", "=", filter.type);
  if (filter.id !== undefined) q = q.where("id", "=", filter.id);
  if (filter.idsIn !== undefined) q = q.where("id", "in", filter.idsIn.length > 0 ? filter.idsIn : [0]);
  if (filter.beforeId !== undefined) q = q.where("id", "<", filter.beforeId);
  if (filter.reference !== undefined) q = q.where("reference", "=", filter.reference);
  if (filter.userId !== undefined) q = q.where("user_id", "=", filter.userId);
  if (filter.username !== undefined) q = q.where("username", "=", filter.username);
  if (filter.iban !== undefined) {
    const iban = ibanKey(filter.iban);
    const accounts = filter.ibanAccounts ?? [];
    q = q.where((eb) =>
      accounts.length === 0
        ? eb(storedIbanKey, "=", iban)
        : eb.or([eb(storedIbanKey, "=", iban), eb("account_id", "in", accounts)]),
    );
  }
  if (filter.amountMinor !== undefined) {
    const minor = filter.amountMinor;
    // In a queue (pending rows: a few thousand, read through their own index) the amounts are
    // compared as expressions, which no index serves: a common amount's index would walk years of
    // history for the handful still pending.
    const column = (name: "amount" | "original_amount") =>
      filter.status === "pending" ? sql<number>`(${sql.ref(name)} + 0)` : sql<number>`${sql.ref(name)}`;
    const only = filter.amountIn;
    q =
      only === undefined
        ? q.where((eb) =>
            eb.or([eb(column("amount"), "=", minor), eb(column("original_amount"), "=", minor)]),
          )
        : q.where(only, "=", minor);
  }
  if (filter.method === "fast")
    q = q.where((eb) => eb.or([eb("method", "=", "fast"), eb("method", "is", null)]));
  else if (filter.method !== undefined) q = q.where("method", "=", filter.method);
  // The key starts each word with a space; words are letters and digits only (no LIKE wildcards,
  // no FTS5 syntax). The index finds the candidates; LIKE keeps the meaning exact.
  const words = filter.nameWords ?? [];
  if (words.length > 0 && filter.nameIndex && filter.idsIn === undefined)
    q = q.where(
      sql<boolean>`id IN (SELECT rowid FROM transaction_names
        WHERE transaction_names MATCH ${filter.nameMatch ?? ""}${idsBetween(filter.nameIds)})`,
    );
  const nameKey = filter.nameUnindexed ? sql<string>`(payer_name_key || '')` : sql<string>`payer_name_key`;
  for (const word of words) q = q.where(nameKey, "like", `% ${word}%`);
  if (filter.from !== undefined) q = q.where("created_at", ">=", filter.from);
  if (filter.to !== undefined) q = q.where("created_at", "<", filter.to);
  if (filter.nameDays && filter.from !== undefined) q = q.where(utcDay, ">=", utcDayOf(filter.from));
  if (filter.nameDays && filter.to !== undefined) q = q.where(utcDay, "<=", utcDayOf(filter.to - 1));
  if (filter.liveOnly)
    q = q.where("firm_id", "not in", (eb) => eb.selectFrom("firms").select("id").where("sandbox", "=", 1));
  return q;
}

/** The filters that ask for nothing but a date range (and the page of it). */
const PAGING_KEYS = new Set([
  "from",
  "to",
  "beforeId",
  "order",
  "limit",
  "nameIndex",
  "nameIds",
  "nameMatch",
  "datesFirst",
  "nameDays",
  "nameUnindexed",
]);
const onlyDates = (filter: ResolvedFilter) =>
  (filter.from !== undefined || filter.to !== undefined) &&
  Object.entries(filter).every(([key, value]) => value === undefined || PAGING_KEYS.has(key));

/** A page of the filter's rows, as listTransactions runs it (exported for the planner's tests). */
export function searchQuery(db: Kysely<Database>, filter: ResolvedFilter) {
  const direction = filter.order === "oldest" ? "asc" : "desc";
  // Searches ask for at most 1,000 (their schemas say so); the console's CSV export for 50,000.
  const limit = Math.min(filter.limit ?? 100, 50_000);
  const dates = onlyDates(filter);
  // `id + 0`: the same order, which no index can give, so the dates' index finds the rows.
  const order = filter.datesFirst && !dates ? sql<number>`id + 0` : sql<number>`id`;
  const page = filterTransactions(db, filter).orderBy(order, direction).limit(limit);
  if (!dates) return page.selectAll();
  // A date range alone (a day's search, a day's export): the page's ids from the date index alone
  // (each entry holds its row's id), then those rows, rather than reading and sorting a busy day's
  // whole rows for the newest 200.
  return db
    .selectFrom("transactions")
    .selectAll()
    .where("id", "in", page.select("id"))
    .orderBy("id", direction)
    .limit(limit);
}

/** One filter asked more than once: its page and its total, or an export's pages. */
export interface TransactionSearch {
  /** The filter's rows, or those of one page of it (below `beforeId`, at most `limit`). */
  list(page?: { beforeId?: number; limit?: number }): Promise<TransactionRow[]>;
  /** How many rows `list` would give without its limit, counting no further than `cap`. */
  count(cap?: number): Promise<number>;
}

/**
 * A search whose filter is resolved once, by its first call, for all its calls: on a large SQLite
 * store a name's resolution (its indexed words, its dates' ids, how common it is) costs several
 * milliseconds, and it depends on neither the page nor the cap.
 */
export function searchTransactions(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  filter: TransactionFilter,
): TransactionSearch {
  const none = filter.firmId !== undefined && filter.firmId > MAX_INTEGER_ID;
  let resolved: Promise<ResolvedFilter> | undefined;
  const once = () => {
    resolved ??= resolve(db, dialect, filter);
    return resolved;
  };
  return {
    list: async (page = {}) => {
      if (none) return [];
      const whole = await once();
      return listResolved(db, {
        ...whole,
        beforeId: page.beforeId ?? whole.beforeId,
        limit: page.limit ?? whole.limit,
      });
    },
    count: async (cap) => (none ? 0 : countResolved(db, await once(), cap)),
  };
}

export function listTransactions(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  filter: TransactionFilter,
) {
  return searchTransactions(db, dialect, filter).list();
}

async function listResolved(db: Kysely<Database>, resolved: ResolvedFilter) {
  if (resolved.nameIndex) return walkNames(db, resolved);
  if (resolved.amountMinor === undefined || resolved.status === "pending")
    return searchQuery(db, resolved).execute();
  // An amount asked or sent: each column by its own index, in id order, a page of each, then the
  // page of both. As one OR, every row of a common amount ("1000.00") would be read and sorted.
  const [asked, sent] = await Promise.all([
    searchQuery(db, { ...resolved, amountIn: "amount" }).execute(),
    searchQuery(db, { ...resolved, amountIn: "original_amount" }).execute(),
  ]);
  const byId = new Map([...asked, ...sent].map((r) => [r.id, r]));
  const oldest = resolved.order === "oldest";
  return [...byId.values()]
    .sort((a, b) => (oldest ? a.id - b.id : b.id - a.id))
    .slice(0, Math.min(resolved.limit ?? 100, 50_000));
}

const FIRST_CHUNK = 1_000;
/** Under SQLite's 32,766 bound variables per statement: each id of a chunk is one. */
const MAX_CHUNK = 16_000;

/**
 * A name search through the full-text index, walked in the page's order a chunk of matches at a
 * time, each chunk's rows then filtered as any search's, until the page is full: the newest 200
 * rows of a common name are in the first chunk, where taking every match first would read all of
 * a common first name's rows. Chunks grow, so that a name with a rare
 * other condition still takes few round trips.
 */
async function walkNames(db: Kysely<Database>, filter: ResolvedFilter) {
  const limit = Math.min(filter.limit ?? 100, 50_000);
  const oldest = filter.order === "oldest";
  const query = filter.nameMatch ?? "";
  const rows: TransactionRow[] = [];
  const within = filter.nameIds ?? { first: 0, last: MAX_INTEGER_ID };
  let bound = oldest ? within.first - 1 : Math.min(filter.beforeId ?? MAX_INTEGER_ID + 1, within.last + 1);
  // Integers in the text: FTS5 starts its walk at a bound only if it is one, and better-sqlite3
  // binds every number as REAL (the walk then read every match from the far end each chunk).
  const end = oldest ? sql`rowid <= ${sql.lit(within.last)}` : sql`rowid >= ${sql.lit(within.first)}`;
  for (let chunk = FIRST_CHUNK; rows.length < limit; chunk = Math.min(chunk * 4, MAX_CHUNK)) {
    const ids = (
      await sql<{ id: number }>`SELECT rowid AS id FROM transaction_names
        WHERE transaction_names MATCH ${query} AND rowid ${sql.raw(oldest ? ">" : "<")} ${sql.lit(bound)} AND ${end}
        ORDER BY rowid ${sql.raw(oldest ? "ASC" : "DESC")} LIMIT ${chunk}`.execute(db)
    ).rows.map((r) => Number(r.id));
    if (ids.length === 0) break;
    rows.push(...(await searchQuery(db, { ...filter, idsIn: ids, limit: limit - rows.length }).execute()));
    if (ids.length < chunk) break;
    bound = ids.at(-1) as number;
  }
  return rows;
}

/**
 * How many rows the filter selects, counting no further than `cap` when given (a page total or an
 * export's size needs no more, and counting the rest would read them).
 */
async function countResolved(db: Kysely<Database>, resolved: ResolvedFilter, cap?: number) {
  const selected = filterTransactions(db, resolved).select("id");
  const row = await db
    .selectFrom((cap === undefined ? selected : selected.orderBy("id", "desc").limit(cap)).as("s"))
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The newest transaction's id (0 on an empty store): where an export's walk starts. */
export async function newestTransactionId(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom("transactions")
    .select((eb) => eb.fn.max("id").as("id"))
    .executeTakeFirst();
  return Number(row?.id ?? 0);
}

export function withoutNameKey(db: Kysely<Database>, afterId: number, limit: number) {
  return db
    .selectFrom("transactions")
    .select(["id", "first_name", "middle_name", "last_name"])
    .where("id", ">", afterId)
    .where("payer_name_key", "is", null)
    .orderBy("id")
    .limit(limit)
    .execute();
}

export async function setNameKeys(
  db: Kysely<Database>,
  dialect: "sqlite" | "postgres",
  keys: readonly { id: number; key: string }[],
) {
  if (keys.length === 0) return;
  await setNameKeysQuery(dialect, keys).execute(db);
}

/**
 * One statement per batch on both stores: a statement per row would be a round trip per row. On
 * the embedded store the `+` keeps SQLite from walking the keyless rows' index once per pair, which
 * its statistics, taken while the table was small (a start after an upgrade), make look cheap: a
 * second of the store's thread per batch of 500 over 12,000 keyless rows. The batch's rows are
 * looked up by id instead.
 */
export function setNameKeysQuery(
  dialect: "sqlite" | "postgres",
  keys: readonly { id: number; key: string }[],
) {
  if (dialect === "postgres")
    return sql`UPDATE transactions AS t SET payer_name_key = v.key
      FROM unnest(${keys.map((k) => k.id)}::bigint[], ${keys.map((k) => k.key)}::text[]) AS v(id, key)
      WHERE t.id = v.id AND t.payer_name_key IS NULL`;
  const pairs = JSON.stringify(keys.map((k) => [k.id, k.key]));
  return sql`UPDATE transactions AS t SET payer_name_key = v.key
    FROM (SELECT value ->> 0 AS id, value ->> 1 AS key FROM json_each(${pairs})) AS v
    WHERE t.id = v.id AND +t.payer_name_key IS NULL`;
}
