/**
 * `GET /admin/v1/accounts/{id}/statement-sample`: a sample statement paying the account's pending
 * deposits (sample-statement.ts), or why none is made. A sample approves what it names once
 * imported, though no money came: it is made only where that can mislead no one
 * (docs/reconciliation.md, "Sample statements").
 */
import { formatMinor } from "../domain/money.js";
import { notFound, type Outcome, refusal } from "../domain/refusal.js";
import { LOOKBACK_MS } from "./candidate-pool.js";
import type { ReconcileDeps } from "./import.js";
import { type SampleDeposit, type SampleFormat, sampleStatement } from "./sample-statement.js";

/** The most deposits one sample pays: a development store's, never a busy account's day. */
export const SAMPLE_MAX_DEPOSITS = 500;

export const SAMPLE_PURPOSE =
  "A sample statement made by payintake, not a bank's: importing it approves the deposits it names although no money arrived. For trying reconciliation on a development store only (docs/reconciliation.md, Sample statements).";

export interface SampleAnswer {
  purpose: string;
  format: SampleFormat;
  account_id: number;
  iban: string;
  /** The deposits the file pays, and their sum. */
  deposits: number;
  total: string;
  /** Pending deposits made before the matching's 24 hours: no line of today's can approve them. */
  pending_before_window: number;
  content_type: string;
  file: string;
}

const TEST_FIRMS = refusal(
  "test_firm_line",
  "the sandbox account holds test firms' deposits, which no bank line approves: decide them with the sandbox helpers (docs/sandbox.md); a sample statement is for a live firm's deposits on a development store",
);

const NOT_DEVELOPMENT = refusal(
  "statement_refused",
  "no sample statement on this store: it holds statement lines from a bank, the feed or an operator, so it is no development store, and a sample imported here would approve deposits whose money never arrived (docs/reconciliation.md, Sample statements)",
);

export async function statementSample(
  deps: ReconcileDeps,
  accountId: number,
  format: SampleFormat,
): Promise<Outcome<SampleAnswer>> {
  const account = await deps.repos.statements.accountsWithIbanOf(accountId);
  if (!account) return notFound("account");
  const sandbox = await deps.repos.accounts.sandbox();
  if (sandbox && account.ids.includes(Number(sandbox.id))) return TEST_FIRMS;
  if (await deps.repos.sampleStatements.holdsBankLines()) return NOT_DEVELOPMENT;

  const now = deps.now();
  const read = await deps.repos.sampleStatements.pendingDeposits(
    account.ids,
    { from: now - LOOKBACK_MS, to: now },
    SAMPLE_MAX_DEPOSITS,
  );
  const deposits: SampleDeposit[] = read.deposits.map((d) => ({
    id: d.id,
    amountMinor: d.amount,
    payerName: [d.first_name, d.middle_name, d.last_name].filter((w) => w).join(" "),
    paymentCode: deps.paymentCodes.of(d.id),
    createdAt: d.created_at,
  }));
  return {
    ok: true,
    value: {
      purpose: SAMPLE_PURPOSE,
      format,
      account_id: accountId,
      iban: account.iban,
      deposits: deposits.length,
      total: formatMinor(deposits.reduce((sum, d) => sum + d.amountMinor, 0)),
      pending_before_window: read.pendingBefore,
      content_type: format === "camt053" ? "application/xml" : "text/plain",
      file: sampleStatement({ format, iban: account.iban, deposits, now }),
    },
  };
}
