import type { Migration } from "./migration.js";

/**
 * Payment codes keyed by a secret of the store's own (docs/adr/0015-keyed-payment-codes.md): one
 * row holding that key, sealed with the master key, and the highest transaction id at this
 * migration. Deposits up to that id were shown the keyless code and keep it; every later one gets
 * the keyed code. The key itself is not made here (SQL cannot seal it): the first start after
 * this migration seals 32 random bytes into `key_sealed` where it is still null, and every start
 * reads what is there, so instances starting at once all take the first one written.
 *
 * The cutover counts ids handed out as well as ids written: the highest id ever inserted (SQLite's
 * AUTOINCREMENT sequence, PostgreSQL's identity sequence) as well as the highest still there, so
 * that a deposit whose insert is in flight meanwhile, or one deleted, is never on the keyed side
 * of the line with a keyless code shown.
 */
const table = (bigint: string) => `
CREATE TABLE payment_code_keys (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  key_sealed TEXT,
  legacy_through ${bigint} NOT NULL,
  sealed_at ${bigint}
);
`;

const sqlite = `${table("INTEGER")}
INSERT INTO payment_code_keys (id, key_sealed, legacy_through, sealed_at)
SELECT 1, NULL, MAX(
  COALESCE((SELECT MAX(id) FROM transactions), 0),
  COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'transactions'), 0)
), NULL;
`;

const postgres = `${table("BIGINT")}
INSERT INTO payment_code_keys (id, key_sealed, legacy_through, sealed_at)
SELECT 1, NULL, GREATEST(
  COALESCE((SELECT MAX(id) FROM transactions), 0),
  COALESCE(pg_sequence_last_value(pg_get_serial_sequence('transactions', 'id')::regclass), 0)
), NULL;
`;

export const paymentCodeKey: Migration = {
  version: "20261204T1000_payment_code_key",
  sqlite,
  postgres,
};
