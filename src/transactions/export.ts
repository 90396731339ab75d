import type { Repositories } from "../store/index.js";
import type { TransactionFilter } from "../store/transactions/transactions.js";
import { exportTransactionView } from "./views.js";

/**
 * An export's rows: those the filter selects up to the newest row when it starts, newest first, at
 * most `limit` (a row that leaves the filter meanwhile, decided while a status is asked, is not sent). `rows` counts them (without reading them) so that the audit row can say
 * how many leave before the first is sent; `pages` then reads them a page at a time, so that an
 * export of any size holds one page in memory.
 */
export async function exportOf(
  repos: Repositories,
  filter: TransactionFilter,
  limit: number,
  pageSize: number,
  firmName: (id: number) => string,
) {
  // Newest first whatever the filter said: the walk goes down from below each page's last id.
  const pinned = { ...filter, order: "newest" as const, beforeId: (await repos.transactions.newestId()) + 1 };
  const search = repos.transactions.search(pinned);
  const counted = await search.count(limit + 1);
  const rows = Math.min(counted, limit);
  async function* pages() {
    let left = rows;
    let beforeId = pinned.beforeId;
    while (left > 0) {
      const page = await search.list({ beforeId, limit: Math.min(pageSize, left) });
      if (page.length === 0) return;
      left -= page.length;
      beforeId = page[page.length - 1]?.id ?? 0;
      yield page.map((t) => exportTransactionView(t, firmName(t.firm_id)));
    }
  }
  return { rows, limited: counted > limit, pages };
}
