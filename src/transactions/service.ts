import { notFound } from "../domain/refusal.js";
import type { TransactionFilter } from "../store/transactions/transactions.js";
import { revealNationalId, type TransactionDeps, transactionDetail } from "./detail.js";
import { exportOf } from "./export.js";
import { operatorTransactionView } from "./views.js";

/**
 * Transactions as operators look for them: lists and pages of a search, one transaction and its
 * detail (detail.ts), the national id shown to an admin, and exports (export.ts) with their audit
 * entry.
 */
export function createTransactionService(deps: TransactionDeps) {
  const { repos } = deps;
  return {
    async listTransactions(filter: TransactionFilter) {
      return (await repos.transactions.list(filter)).map(operatorTransactionView);
    },

    exportOf: (
      filter: TransactionFilter,
      limit: number,
      pageSize: number,
      firmName: (id: number) => string,
    ) => exportOf(repos, filter, limit, pageSize, firmName),

    /**
     * A page of the filter's transactions and how many it selects in all: counted only when the
     * page is full (a shorter page is all of them).
     */
    async pageOfTransactions(filter: TransactionFilter & { limit: number }) {
      const search = repos.transactions.search(filter);
      const rows = await search.list();
      // Counted after the page: rows decided in between may make it smaller than the page.
      const total = rows.length < filter.limit ? rows.length : Math.max(rows.length, await search.count());
      return { rows: rows.map(operatorTransactionView), total };
    },

    async showTransaction(id: number) {
      const row = await repos.transactions.get(id);
      return row ? { ok: true as const, value: operatorTransactionView(row) } : notFound("transaction");
    },

    transactionDetail: (id: number) => transactionDetail(deps, id),
    revealNationalId: (id: number, actor: string) => revealNationalId(deps, id, actor),

    /**
     * An export of transactions (personal data: names, full IBANs) is logged with what it asked
     * for and how many rows it carried, before it is sent.
     */
    async recordExport(
      actor: string,
      details: { filter: Record<string, unknown>; rows: number; format: "csv" | "excel" },
    ) {
      await repos.audited.event(
        { actor, action: "transactions.exported", at: deps.now() },
        "export",
        "transactions",
        null,
        details,
      );
    },
  };
}

export type TransactionService = ReturnType<typeof createTransactionService>;
