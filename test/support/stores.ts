/** The stores every suite runs against, unless PAYINTAKE_TEST_STORES narrows it (e.g. "sqlite"). */
export type StoreKind = "sqlite" | "postgres";

export const STORES: StoreKind[] = (process.env.PAYINTAKE_TEST_STORES ?? "sqlite,postgres")
  .split(",")
  .map((s) => s.trim())
  .filter((s): s is StoreKind => s === "sqlite" || s === "postgres");

export const PG_BASE_URL =
  process.env.PAYINTAKE_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
