import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import { callbackDraft } from "../backoffice/decisions.js";
import { bad, notFound } from "../backoffice/management-checks.js";
import { paymentCodeFor } from "../domain/payment-code.js";
import type { Outcome } from "../domain/refusal.js";
import type { DecisionWrite } from "../store/decisions.js";
import type { Repositories } from "../store/index.js";
import type { StatementLineState } from "../store/schema.js";
import type { CandidateRow, LineOutcome, LineRecord } from "../store/statement-lines.js";
import { StatementError } from "./amounts.js";
import { type DepositCandidate, type MatchOutcome, matchLine } from "./matching.js";
import { lineKey, type StatementLine } from "./statement.js";
import { readStatementFile, type StatementTally } from "./statement-file.js";

/**
 * A statement file for one payment account, read, checked and matched line by line: each line
 * recorded once with its outcome, an approval written with its line (store/statement-lines.ts).
 * The CLI's, the admin API's and the console's upload all come here.
 */
export interface ReconcileDeps {
  repos: Repositories;
  now(): number;
  /** After lines approved deposits: their callbacks go out at once, the queues drop them. */
  decisionsMade(): void;
}

/**
 * `lines` every entry read, `duplicates` those already known, `credits` the new credits, and
 * approved + suggested + unmatched = credits: `approved` counts the lines whose deposit is approved
 * (now, or already: `settled` of them), `unmatched` those that approve nothing and suggest nothing
 * (`after_cancellation` of them paid a deposit already cancelled). Debits count in none of the four.
 */
export interface ImportSummary {
  lines: number;
  credits: number;
  approved: number;
  suggested: number;
  unmatched: number;
  duplicates: number;
  settled: number;
  after_cancellation: number;
  /** Each statement of the file: its number and why it does not add up, if it does not. */
  statements: { import_id: number; sequence: string | null; doubts: string[] }[];
}

/** The actor of every decision a statement makes (the audit log's). */
export const RECONCILE_ACTOR = "service:reconcile";
/** How far back a credit looks for its deposit: a payment a day late is an operator's to place. */
export const LOOKBACK_MS = 24 * 3_600_000;
const DAY_MS = 86_400_000;
const CLOCK_TOLERANCE_MS = 2 * 60_000;
/**
 * Lines written per database transaction: each line with its approval is whole either way, and a
 * crash loses at most the batch being written, which the same file imported again writes.
 */
const BATCH = 500;

const compactIban = (iban: string) => iban.replace(/\s+/g, "").toUpperCase();

export async function importStatement(
  deps: ReconcileDeps,
  accountId: number,
  chunks: AsyncIterable<Uint8Array | string>,
  importedBy: string,
): Promise<Outcome<ImportSummary>> {
  const accounts = await deps.repos.statements.accountsWithIbanOf(accountId);
  if (!accounts) return notFound("account");
  // Read twice: once to check the whole file while it is kept on disk (a fault anywhere in it
  // refuses it before anything is written), then to match and write its lines a batch at a time,
  // so that the server holds a batch, not the file, whatever its size.
  const dir = await mkdtemp(join(tmpdir(), "payintake-statement-"));
  const kept = join(dir, "statement");
  try {
    let read: Awaited<ReturnType<typeof readStatementFile>>;
    try {
      read = await readStatementFile(keptWhileRead(chunks, kept));
    } catch (err) {
      if (err instanceof StatementError) return bad(`statement refused: ${err.message}`);
      throw err;
    }
    for (const s of read.statements) {
      const iban = s.header.accountIban;
      if (iban === null || compactIban(iban) !== compactIban(accounts.iban))
        return bad(
          `statement refused: it is for the account ${iban ?? "(none named)"}, not for account ${accountId} (${accounts.iban})`,
        );
    }
    const summary = emptySummary();
    const matchers: StatementMatcher[] = [];
    for (const statement of read.statements) {
      const importId = await deps.repos.statements.createImport({
        account_id: accountId,
        format: read.format,
        sequence: statement.header.sequence,
        opening_amount: statement.header.openingMinor,
        closing_amount: statement.header.closingMinor,
        doubts: statement.doubts.join("\n"),
        lines_read: statement.lines,
        imported_by: importedBy,
        created_at: deps.now(),
      });
      summary.statements.push({
        import_id: importId,
        sequence: statement.header.sequence,
        doubts: statement.doubts,
      });
      matchers.push(
        statementMatcher(deps, { accountId, accountIds: accounts.ids, importId, tally: statement }, summary),
      );
    }
    let at = 0;
    await readStatementFile(createReadStream(kept), {
      line: (line) => matchers[at]?.line(line),
      statement: async () => {
        await matchers[at++]?.finish();
      },
    });
    if (summary.approved > summary.settled) deps.decisionsMade();
    return { ok: true, value: summary };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The chunks as they come, written to `path` on the way (waiting for the disk when it lags). */
async function* keptWhileRead(chunks: AsyncIterable<Uint8Array | string>, path: string) {
  const out = createWriteStream(path);
  // A disk that fails (full, gone) fails this import, not the process: `finished` holds the error.
  const done = finished(out);
  done.catch(() => {});
  try {
    for await (const chunk of chunks) {
      if (!out.write(chunk)) await Promise.race([once(out, "drain"), done]);
      yield chunk;
    }
  } finally {
    out.end();
    await done;
  }
}

function emptySummary(): ImportSummary {
  return {
    lines: 0,
    credits: 0,
    approved: 0,
    suggested: 0,
    unmatched: 0,
    duplicates: 0,
    settled: 0,
    after_cancellation: 0,
    statements: [],
  };
}

/** The deposits the statement's lines may be for, in order of creation. */
async function poolFor(deps: ReconcileDeps, accountIds: number[], tally: StatementTally) {
  if (tally.firstBooked === null || tally.lastBooked === null) return [];
  const rows = await deps.repos.statements.candidates(
    accountIds,
    tally.firstBooked - LOOKBACK_MS,
    tally.lastBooked + DAY_MS + CLOCK_TOLERANCE_MS,
  );
  return rows.map(toCandidate);
}

type Pooled = DepositCandidate & { row: CandidateRow };

function toCandidate(row: CandidateRow): Pooled {
  return {
    id: row.id,
    firmId: row.firm_id,
    accountId: row.account_id,
    status: row.status,
    amountMinor: row.amount,
    createdAt: row.created_at,
    payer: { firstName: row.first_name, middleName: row.middle_name, lastName: row.last_name },
    paymentCode: paymentCodeFor(row.id),
    userId: row.user_id,
    reference: row.reference,
    sandbox: row.firm_sandbox === 1,
    settled: row.settled === 1,
    row,
  };
}

/** The pooled deposits made within a line's reach (the pool is in order of creation). */
function within(pool: readonly Pooled[], line: StatementLine): Pooled[] {
  const from = line.bookedAt - LOOKBACK_MS;
  const to = line.bookedAt + (line.dateOnly ? DAY_MS : 0) + CLOCK_TOLERANCE_MS;
  let lo = 0;
  let hi = pool.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((pool[mid] as Pooled).createdAt < from) lo = mid + 1;
    else hi = mid;
  }
  const out: Pooled[] = [];
  for (let i = lo; i < pool.length && (pool[i] as Pooled).createdAt <= to; i++) out.push(pool[i] as Pooled);
  return out;
}

interface StatementMatcher {
  line(line: StatementLine): Promise<void>;
  finish(): Promise<void>;
}

/** One statement's lines matched as they come, and written a batch at a time. */
function statementMatcher(
  deps: ReconcileDeps,
  where: { accountId: number; accountIds: number[]; importId: number; tally: StatementTally },
  summary: ImportSummary,
): StatementMatcher {
  let pool: Pooled[] | undefined;
  let byId = new Map<number, Pooled>();
  let policies = new Map<number, { autoApprove: boolean; nameMayApprove: boolean }>();
  const firmsCallbackMiddle = new Map<number, boolean>();
  const ctx = {
    pendingWindowMs: LOOKBACK_MS,
    clockToleranceMs: CLOCK_TOLERANCE_MS,
    policyOf: (firmId: number) => policies.get(firmId) ?? { autoApprove: false, nameMayApprove: false },
  };
  const batch: { line: StatementLine; item: LineRecord }[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const results = await deps.repos.statements.recordBatch(batch.map((b) => b.item));
    for (const [i, result] of results.entries()) {
      if (result.kind === "duplicate") summary.duplicates++;
      else if (batch[i]?.line.direction === "credit") count(summary, result.state);
    }
    batch.length = 0;
  };
  return {
    async line(line) {
      if (!pool) {
        pool = await poolFor(deps, where.accountIds, where.tally);
        byId = new Map(pool.map((c) => [c.id, c]));
        policies = new Map(
          pool.map((c) => [
            c.firmId,
            { autoApprove: c.row.reconcile_auto === 1, nameMayApprove: c.row.reconcile_by_name === 1 },
          ]),
        );
      }
      summary.lines++;
      const outcome = matchLine(line, within(pool, line), ctx);
      const item = await recordOf(
        deps,
        where.accountId,
        where.importId,
        line,
        outcome,
        byId,
        firmsCallbackMiddle,
      );
      // The pool as the write will leave it, for the next lines: a deposit approved or settled here
      // is no one else's. Should the write find it decided meanwhile, it was no candidate anyway.
      const taken =
        outcome.kind === "approve" || outcome.kind === "settles" ? byId.get(outcome.depositId) : undefined;
      if (taken) {
        taken.settled = true;
        if (outcome.kind === "approve") taken.status = "approved";
      }
      batch.push({ line, item });
      if (batch.length >= BATCH) await flush();
    },
    finish: flush,
  };
}

/** The line's row, its outcome, and the approval it makes, as the store records them. */
async function recordOf(
  deps: ReconcileDeps,
  accountId: number,
  importId: number,
  line: StatementLine,
  outcome: MatchOutcome,
  byId: Map<number, Pooled>,
  firmsCallbackMiddle: Map<number, boolean>,
): Promise<LineRecord> {
  const now = deps.now();
  const plan = planOf(outcome, now);
  const approved = outcome.kind === "approve" ? byId.get(outcome.depositId) : undefined;
  let decision: ((lineId: number) => DecisionWrite) | undefined;
  if (approved) {
    const middle = await callbackMiddleName(deps, firmsCallbackMiddle, approved.firmId);
    decision = (lineId) => ({
      transactionId: approved.id,
      status: "approved",
      amount: approved.amountMinor,
      originalAmount: null,
      decidedBy: RECONCILE_ACTOR,
      note: `bank statement line ${lineId}`,
      now,
      callback: (decided) => callbackDraft(decided, { callbackMiddleName: middle }),
    });
  }
  return {
    line: {
      account_id: accountId,
      line_key: lineKey(line),
      import_id: importId,
      source: "file",
      booked_at: line.bookedAt,
      date_only: line.dateOnly ? 1 : 0,
      amount: line.amountMinor,
      direction: line.direction,
      currency: line.currency,
      sender_name: line.senderName,
      sender_iban: line.senderIban,
      description: line.description,
      bank_ref: line.bankRef,
      created_at: now,
    },
    outcome: plan.outcome,
    fallback: plan.fallback,
    decision,
  };
}

function count(summary: ImportSummary, state: StatementLineState): void {
  summary.credits++;
  if (state === "approved" || state === "settled") summary.approved++;
  else if (state === "suggested") summary.suggested++;
  else summary.unmatched++;
  if (state === "settled") summary.settled++;
  if (state === "after_cancellation") summary.after_cancellation++;
}

/** The line's state and evidence for an outcome, and what it becomes if the write finds it moot. */
function planOf(outcome: MatchOutcome, now: number): { outcome: LineOutcome; fallback: StatementLineState } {
  const evidence = JSON.stringify(outcome);
  const base = { evidence, now, decidedBy: null, transactionId: null };
  switch (outcome.kind) {
    case "debit":
      return { outcome: { ...base, state: "debit" }, fallback: "debit" };
    case "approve":
      return {
        outcome: { ...base, state: "approved", transactionId: outcome.depositId, decidedBy: RECONCILE_ACTOR },
        fallback: "suggested",
      };
    case "settles":
      return {
        outcome: { ...base, state: "settled", transactionId: outcome.depositId },
        fallback: "unmatched",
      };
    case "after_cancellation":
      return {
        outcome: { ...base, state: "after_cancellation", transactionId: outcome.depositId },
        fallback: "unmatched",
      };
    case "suggest":
      return { outcome: { ...base, state: "suggested" }, fallback: "suggested" };
    case "unmatched":
      return { outcome: { ...base, state: "unmatched" }, fallback: "unmatched" };
  }
}

async function callbackMiddleName(
  deps: ReconcileDeps,
  cache: Map<number, boolean>,
  firmId: number,
): Promise<boolean> {
  const known = cache.get(firmId);
  if (known !== undefined) return known;
  const firm = await deps.repos.firms.get(firmId);
  const middle = firm?.callback_middle_name === 1;
  cache.set(firmId, middle);
  return middle;
}
