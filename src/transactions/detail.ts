import { callbackAttemptView, callbackView } from "../callbacks/outbox-views.js";
import { sealContext } from "../crypto/seal-context.js";
import type { SecretBox } from "../crypto/secret-box.js";
import { openOrUndefined } from "../crypto/secret-box.js";
import { formatMinor } from "../domain/money.js";
import { notFound } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import type { StatementLineRow } from "../store/statements/statement-lines.js";
import { operatorTransactionView, type PayoutMarkView } from "./views.js";

/** What the transactions' service works with. */
export interface TransactionDeps {
  repos: Repositories;
  box: SecretBox;
  now(): number;
}

/**
 * Everything operators may see about one transaction: its fields and routing attempts, the
 * decision history, and the callback with every attempt. The national id masked: the full one
 * is `revealNationalId`'s, an admin's, asked for and logged each time.
 */
export async function transactionDetail(deps: TransactionDeps, id: number) {
  const { repos } = deps;
  const row = await repos.transactions.get(id);
  if (!row) return notFound("transaction");
  const [history, callbacks, paying, line] = await Promise.all([
    repos.audited.list({ entityType: "transaction", entityId: String(id) }),
    repos.callbacks.list({ transactionId: id }),
    // A pending payout's mark, so that deciding it from the detail names who is paying it.
    row.type === "withdrawal" && row.status === "pending"
      ? repos.payoutClaims.of([id]).then((claims) => claims.get(id))
      : undefined,
    row.type === "deposit" ? repos.statements.settling(id) : undefined,
  ]);
  const deliveries = await Promise.all(
    callbacks.map(async (c) => ({
      ...callbackView(c),
      attempts: (await repos.callbacks.attempts(c.id)).map(callbackAttemptView),
    })),
  );
  return {
    ok: true as const,
    value: {
      ...operatorTransactionView(row),
      ...(row.type === "withdrawal" &&
        ({
          paying_by: paying?.operator ?? null,
          paying_since: paying ? new Date(paying.claimedAt).toISOString() : null,
        } satisfies PayoutMarkView)),
      history: history.map((a) => ({
        actor: a.actor,
        action: a.action,
        before: a.before_json === null ? null : JSON.parse(a.before_json),
        after: a.after_json === null ? null : JSON.parse(a.after_json),
        at: new Date(a.at).toISOString(),
      })),
      callbacks: deliveries,
      ...(row.type === "deposit" && { statement_line: line ? settlingLineView(line) : null }),
    },
  };
}

/** One transaction's detail as operators see it (`transactionDetail`'s answer). */
export type TransactionDetail = Extract<Awaited<ReturnType<typeof transactionDetail>>, { ok: true }>["value"];

/** The bank's line that paid a deposit (docs/reconciliation.md), as its detail shows it. */
function settlingLineView(line: StatementLineRow) {
  return {
    id: Number(line.id),
    state: line.state,
    amount: formatMinor(Number(line.amount)),
    booked_at: new Date(Number(line.booked_at)).toISOString(),
    date_only: line.date_only === 1,
    sender_name: line.sender_name,
    description: line.description,
    source: line.source,
    decided_by: line.decided_by,
  };
}

/**
 * A transaction's full national id, for an admin who asked for it: logged first
 * (`transaction.national_id_viewed`, in its history), so no one sees one unrecorded. Null when
 * it has none, or when its sealed value does not open for this transaction (moved from another
 * row or altered in the database): never another's, nor a 500.
 */
export async function revealNationalId(deps: TransactionDeps, id: number, actor: string) {
  const { repos, box } = deps;
  const row = await repos.transactions.get(id);
  if (!row) return notFound("transaction");
  await repos.audited.event(
    { actor, action: "transaction.national_id_viewed", at: deps.now() },
    "transaction",
    String(id),
    null,
    null,
  );
  const full =
    row.national_id_sealed === null
      ? undefined
      : openOrUndefined(box, row.national_id_sealed, sealContext.nationalId(row.firm_id, row.reference));
  return { ok: true as const, value: { national_id_full: full ?? null } };
}
