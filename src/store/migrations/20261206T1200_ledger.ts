import type { Migration } from "./migration.js";

/**
 * The double-entry ledger (issue 48, docs/ledger.md, ADR 0019). The rules money depends on are the
 * database's, whoever writes:
 *
 * - A posting is written in one statement: its row carries its entries (`lines`, a JSON array of
 *   `{account, account_kind, ref, amount, kind, currency}`), and the posting's AFTER INSERT trigger
 *   checks them (at least two, none zero, integers, summing to zero), makes any account it names
 *   that does not exist yet, and writes the entries, the balance counters and the day figures.
 *   A statement is atomic on both stores, so no half posting is ever seen, not even inside the
 *   writer's own transaction. On SQLite, which has no deferred trigger, this is the whole answer:
 *   an entry is refused unless its posting is still being written (fewer entries so far than its
 *   lines), so no entry can join a posting afterwards.
 * - On PostgreSQL likewise an entry is refused unless its posting is still being written, and a
 *   deferred constraint trigger on `ledger_postings` checks again at commit that each posting written
 *   in the transaction has exactly its lines' entries and sums to zero.
 * - An entry's account is the one its line names, joined by the trigger: no foreign key to the
 *   accounts, whose check would lock a firm's account row for every posting (PostgreSQL's FOR KEY
 *   SHARE), the one row all of a firm's concurrent decisions share.
 * - Entries and postings are never updated or deleted (nor truncated); a correction is a new
 *   posting naming the one it corrects (`corrects`).
 * - Turkish lira only (`ledger_entry_try_only`), kuruş as integers, never zero.
 * - `idempotency_key` is unique: a retried event posts once (store/ledger/ledger.ts answers it
 *   with the posting already there).
 *
 * Balances (ADR 0019): `ledger_balances` holds SHARDS counters per account, the shard picked from
 * the posting's id, so that two transactions posting to one firm at once rarely wait on one row; a
 * balance is the sum of its few counters. `ledger_days` holds each account's movements per
 * Türkiye day, entry kind and shard: a day's figures read a few rows, and a balance as of a past
 * moment is the balance now less the days after that moment's day, less that day's entries after
 * it. Both are kept only by the posting's trigger; every update is an increment, so concurrent
 * postings commute. On PostgreSQL a posting's rows are upserted in the accounts' order, so two
 * postings meeting on a shard wait for each other in one order and never deadlock.
 */
export const LEDGER_SHARDS = 8;

const DAY = "86400000";
const OFFSET = "10800000";
const dayOf = (at: string) => `${at} - ((${at} + ${OFFSET}) % ${DAY})`;

const tables = (bigint: string, serial: string, shape: (col: string) => string) => `
CREATE TABLE ledger_accounts (
  id ${serial},
  key TEXT NOT NULL UNIQUE,
  kind TEXT NOT NULL CHECK (${shape("kind")}),
  ref TEXT,
  created_at ${bigint} NOT NULL,
  CONSTRAINT ledger_account_key CHECK (key = kind || coalesce(':' || ref, ''))
);
CREATE TABLE ledger_postings (
  id ${serial},
  idempotency_key TEXT NOT NULL UNIQUE CHECK (length(idempotency_key) BETWEEN 3 AND 240),
  kind TEXT NOT NULL CHECK (${shape("kind")}),
  at ${bigint} NOT NULL CHECK (at > 0),
  actor TEXT NOT NULL CHECK (actor <> ''),
  corrects ${bigint} REFERENCES ledger_postings(id),
  memo TEXT,
  flag TEXT,
  lines TEXT NOT NULL
);
CREATE INDEX ledger_postings_at_idx ON ledger_postings (at);
CREATE INDEX ledger_postings_corrects_idx ON ledger_postings (corrects) WHERE corrects IS NOT NULL;
CREATE TABLE ledger_entries (
  id ${serial},
  posting_id ${bigint} NOT NULL REFERENCES ledger_postings(id),
  account_id ${bigint} NOT NULL,
  kind TEXT NOT NULL CHECK (${shape("kind")}),
  amount ${bigint} NOT NULL CONSTRAINT ledger_entry_amount CHECK (amount <> 0),
  currency TEXT NOT NULL CONSTRAINT ledger_entry_try_only CHECK (currency = 'TRY'),
  at ${bigint} NOT NULL
);
CREATE INDEX ledger_entries_account_at_idx ON ledger_entries (account_id, at, id);
CREATE INDEX ledger_entries_posting_idx ON ledger_entries (posting_id);
CREATE TABLE ledger_balances (
  account_id ${bigint} NOT NULL,
  shard INTEGER NOT NULL,
  balance ${bigint} NOT NULL,
  PRIMARY KEY (account_id, shard)
);
CREATE TABLE ledger_days (
  account_id ${bigint} NOT NULL,
  day_start ${bigint} NOT NULL,
  kind TEXT NOT NULL,
  shard INTEGER NOT NULL,
  amount ${bigint} NOT NULL,
  entries ${bigint} NOT NULL,
  PRIMARY KEY (account_id, day_start, kind, shard)
);
CREATE TABLE firm_commissions (
  id ${serial},
  firm_id INTEGER NOT NULL REFERENCES firms(id),
  kind TEXT NOT NULL CHECK (kind IN ('deposit','withdrawal')),
  percent_bp INTEGER NOT NULL CHECK (percent_bp BETWEEN 0 AND 10000),
  fixed ${bigint} NOT NULL CHECK (fixed >= 0),
  min ${bigint} CHECK (min >= 0),
  max ${bigint} CHECK (max >= 0),
  from_at ${bigint} NOT NULL,
  created_by TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  CHECK (min IS NULL OR max IS NULL OR min <= max),
  UNIQUE (firm_id, kind, from_at)
);
`;

const sqliteShape = (col: string) => `${col} <> '' AND ${col} NOT GLOB '*[^a-z_]*'`;
const pgShape = (col: string) => `${col} ~ '^[a-z_]+$'`;

const refused = (name: string, words: string) => `RAISE(ABORT, '${name}: ${words}')`;

const sqliteTriggers = `
CREATE TRIGGER ledger_posting_written AFTER INSERT ON ledger_postings
BEGIN
  SELECT ${refused("ledger_posting_lines", "a posting carries its entries as a JSON array")}
  WHERE json_valid(NEW.lines) = 0 OR json_type(NEW.lines) <> 'array';
  SELECT ${refused("ledger_posting_too_few_entries", "a posting has at least two entries")}
  WHERE json_array_length(NEW.lines) < 2;
  SELECT ${refused("ledger_entry_amount", "an entry is a whole number of kurus, never zero")}
  WHERE EXISTS (SELECT 1 FROM json_each(NEW.lines)
    WHERE json_type(value, '$.amount') <> 'integer' OR json_extract(value, '$.amount') = 0);
  SELECT ${refused("ledger_posting_unbalanced", "a posting''s entries sum to zero")}
  WHERE (SELECT sum(json_extract(value, '$.amount')) FROM json_each(NEW.lines)) <> 0;
  SELECT ${refused("ledger_correction_unknown", "a correction names an earlier posting")}
  WHERE NEW.corrects IS NOT NULL AND (NEW.corrects >= NEW.id
    OR NOT EXISTS (SELECT 1 FROM ledger_postings WHERE id = NEW.corrects));
  INSERT INTO ledger_accounts (key, kind, ref, created_at)
  SELECT json_extract(value, '$.account'), json_extract(value, '$.account_kind'), json_extract(value, '$.ref'), NEW.at
  FROM json_each(NEW.lines) WHERE true
  ON CONFLICT (key) DO NOTHING;
  INSERT INTO ledger_entries (posting_id, account_id, kind, amount, currency, at)
  SELECT NEW.id, a.id, json_extract(j.value, '$.kind'), json_extract(j.value, '$.amount'),
    json_extract(j.value, '$.currency'), NEW.at
  FROM json_each(NEW.lines) j JOIN ledger_accounts a ON a.key = json_extract(j.value, '$.account')
  ORDER BY j.key;
  INSERT INTO ledger_balances (account_id, shard, balance)
  SELECT account_id, NEW.id % ${LEDGER_SHARDS}, sum(amount) FROM ledger_entries WHERE posting_id = NEW.id
  GROUP BY account_id
  ON CONFLICT (account_id, shard) DO UPDATE SET balance = balance + excluded.balance;
  INSERT INTO ledger_days (account_id, day_start, kind, shard, amount, entries)
  SELECT account_id, ${dayOf("NEW.at")}, kind, NEW.id % ${LEDGER_SHARDS}, sum(amount), count(*)
  FROM ledger_entries WHERE posting_id = NEW.id
  GROUP BY account_id, kind
  ON CONFLICT (account_id, day_start, kind, shard)
  DO UPDATE SET amount = amount + excluded.amount, entries = entries + excluded.entries;
END;
CREATE TRIGGER ledger_entry_added BEFORE INSERT ON ledger_entries
BEGIN
  SELECT ${refused("ledger_entry_outside_posting", "entries are written only with their posting")}
  WHERE (SELECT count(*) FROM ledger_entries WHERE posting_id = NEW.posting_id)
    >= coalesce((SELECT json_array_length(lines) FROM ledger_postings WHERE id = NEW.posting_id), 0);
  SELECT ${refused("ledger_entry_amount", "an entry is a whole number of kurus, never zero")}
  WHERE typeof(NEW.amount) <> 'integer';
END;
CREATE TRIGGER ledger_posting_updated BEFORE UPDATE ON ledger_postings
BEGIN SELECT ${refused("ledger_immutable", "a posting is never changed; post a correction")}; END;
CREATE TRIGGER ledger_posting_deleted BEFORE DELETE ON ledger_postings
BEGIN SELECT ${refused("ledger_immutable", "a posting is never deleted; post a correction")}; END;
CREATE TRIGGER ledger_entry_updated BEFORE UPDATE ON ledger_entries
BEGIN SELECT ${refused("ledger_immutable", "an entry is never changed; post a correction")}; END;
CREATE TRIGGER ledger_entry_deleted BEFORE DELETE ON ledger_entries
BEGIN SELECT ${refused("ledger_immutable", "an entry is never deleted; post a correction")}; END;
`;

const raise = (name: string, words: string) =>
  `RAISE EXCEPTION '${name}: ${words}' USING ERRCODE = 'check_violation', CONSTRAINT = '${name}'`;

/**
 * The posting's trigger on PostgreSQL, with the number of balance shards given: the migration uses
 * LEDGER_SHARDS; bench/ledger/shards.ts makes it again with another number to measure what they buy.
 */
export function pgPostingFunction(shards: number): string {
  return `
CREATE OR REPLACE FUNCTION ledger_posting_written() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  lines jsonb := NEW.lines::jsonb;
BEGIN
  IF jsonb_typeof(lines) IS DISTINCT FROM 'array' THEN
    ${raise("ledger_posting_lines", "a posting carries its entries as a JSON array")};
  END IF;
  IF jsonb_array_length(lines) < 2 THEN
    ${raise("ledger_posting_too_few_entries", "a posting has at least two entries")};
  END IF;
  IF EXISTS (SELECT 1 FROM jsonb_array_elements(lines) e
      WHERE jsonb_typeof(e->'amount') IS DISTINCT FROM 'number'
        OR (e->>'amount')::numeric <> trunc((e->>'amount')::numeric) OR (e->>'amount')::numeric = 0) THEN
    ${raise("ledger_entry_amount", "an entry is a whole number of kurus, never zero")};
  END IF;
  IF (SELECT sum((e->>'amount')::numeric) FROM jsonb_array_elements(lines) e) <> 0 THEN
    ${raise("ledger_posting_unbalanced", "a posting''s entries sum to zero")};
  END IF;
  IF NEW.corrects IS NOT NULL AND NEW.corrects >= NEW.id THEN
    ${raise("ledger_correction_unknown", "a correction names an earlier posting")};
  END IF;
  INSERT INTO ledger_accounts (key, kind, ref, created_at)
  SELECT DISTINCT e->>'account', e->>'account_kind', e->>'ref', NEW.at FROM jsonb_array_elements(lines) e
  WHERE NOT EXISTS (SELECT 1 FROM ledger_accounts a WHERE a.key = e->>'account')
  ORDER BY 1
  ON CONFLICT (key) DO NOTHING;
  INSERT INTO ledger_entries (posting_id, account_id, kind, amount, currency, at)
  SELECT NEW.id, a.id, x.e->>'kind', (x.e->>'amount')::bigint, x.e->>'currency', NEW.at
  FROM jsonb_array_elements(lines) WITH ORDINALITY AS x(e, n)
  JOIN ledger_accounts a ON a.key = x.e->>'account'
  ORDER BY x.n;
  INSERT INTO ledger_balances AS b (account_id, shard, balance)
  SELECT account_id, NEW.id % ${shards}, sum(amount) FROM ledger_entries WHERE posting_id = NEW.id
  GROUP BY account_id ORDER BY account_id
  ON CONFLICT (account_id, shard) DO UPDATE SET balance = b.balance + EXCLUDED.balance;
  INSERT INTO ledger_days AS d (account_id, day_start, kind, shard, amount, entries)
  SELECT account_id, ${dayOf("NEW.at")}, kind, NEW.id % ${shards}, sum(amount), count(*)
  FROM ledger_entries WHERE posting_id = NEW.id
  GROUP BY account_id, kind ORDER BY account_id, kind
  ON CONFLICT (account_id, day_start, kind, shard)
  DO UPDATE SET amount = d.amount + EXCLUDED.amount, entries = d.entries + EXCLUDED.entries;
  RETURN NULL;
END $$;`;
}

const postgresTriggers = `
${pgPostingFunction(LEDGER_SHARDS)}
CREATE TRIGGER ledger_posting_written AFTER INSERT ON ledger_postings
  FOR EACH ROW EXECUTE FUNCTION ledger_posting_written();
CREATE FUNCTION ledger_entry_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF (SELECT count(*) FROM ledger_entries WHERE posting_id = NEW.posting_id)
      >= coalesce((SELECT jsonb_array_length(lines::jsonb) FROM ledger_postings WHERE id = NEW.posting_id), 0) THEN
    ${raise("ledger_entry_outside_posting", "entries are written only with their posting")};
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_entry_added BEFORE INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entry_added();
CREATE FUNCTION ledger_posting_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  found_entries bigint;
  total numeric;
BEGIN
  SELECT count(*), coalesce(sum(amount), 0) INTO found_entries, total
  FROM ledger_entries WHERE posting_id = NEW.id;
  IF total <> 0 OR found_entries < 2 OR found_entries <> jsonb_array_length(NEW.lines::jsonb) THEN
    ${raise("ledger_posting_unbalanced", "at commit, a posting''s entries are its own lines and sum to zero")};
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER ledger_posting_balanced AFTER INSERT ON ledger_postings
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_posting_balanced();
CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  ${raise("ledger_immutable", "postings and entries are never changed or deleted; post a correction")};
END $$;
CREATE TRIGGER ledger_postings_fixed BEFORE UPDATE OR DELETE ON ledger_postings
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER ledger_entries_fixed BEFORE UPDATE OR DELETE ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER ledger_postings_kept BEFORE TRUNCATE ON ledger_postings
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER ledger_entries_kept BEFORE TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
`;

export const ledger: Migration = {
  version: "20261206T1200_ledger",
  sqlite: tables("INTEGER", "INTEGER PRIMARY KEY AUTOINCREMENT", sqliteShape) + sqliteTriggers,
  postgres: tables("BIGINT", "BIGSERIAL PRIMARY KEY", pgShape) + postgresTriggers,
};
