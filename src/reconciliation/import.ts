/**
 * A statement file for one payment account, read, checked and matched line by line: each line
 * recorded once with its outcome, an approval written with its line (store/statements/statement-lines.ts).
 * The CLI's, the admin API's and the console's upload all come here.
 */
import { once } from "node:events";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { finished } from "node:stream/promises";
import type { Outcome } from "../domain/refusal.js";
import { notFound, refusal } from "../domain/refusal.js";
import { checkStatement, type LedgerCheckView, ledgerCheckView, statementEnd } from "../ledger/bank-check.js";
import { StatementError } from "./amounts.js";
import { heapBudget } from "./heap-budget.js";
import {
  emptyCounts,
  type LineCounts,
  type LineMatcher,
  lineMatcher,
  type ReconcileDeps,
} from "./line-matcher.js";
import { readStatementFile, type StatementTally } from "./statement-file.js";

export type { ReconcileDeps };

/** The counts (line-matcher.ts, LineCounts), and each statement of the file. */
export interface ImportSummary extends LineCounts {
  /**
   * Each statement of the file: its number, why it does not add up, if it does not, and the bank's
   * check of the ledger at its end (null for an account whose IBAN the ledger cannot name).
   */
  statements: {
    import_id: number;
    sequence: string | null;
    doubts: string[];
    ledger_check: LedgerCheckView | null;
  }[];
}

/** What a large import may add to the server's heap before it asks for a collection (heap-budget.ts). */
const IMPORT_HEAP_BUDGET_BYTES = 40 * 1024 * 1024;

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
  // One "today" for both readings: the second reads exactly what the first checked.
  const options = { now: deps.now() };
  try {
    let read: Awaited<ReturnType<typeof readStatementFile>>;
    try {
      read = await readStatementFile(keptWhileRead(chunks, kept), {}, options);
    } catch (err) {
      if (err instanceof StatementError)
        return refusal("statement_refused", `statement refused: ${err.message}`);
      throw err;
    }
    for (const s of read.statements) {
      const iban = s.header.accountIban;
      if (iban === null || compactIban(iban) !== compactIban(accounts.iban))
        return refusal(
          "statement_wrong_account",
          `statement refused: it is for the account ${iban ?? "(none named)"}, not for account ${accountId} (${accounts.iban})`,
        );
    }
    const summary = emptySummary();
    const matchers: LineMatcher[] = [];
    // The highest number seen: an old statement imported again is no step back.
    let previous = (await deps.repos.statements.recentSequences(accountId)).reduce<string | null>(
      laterSequence,
      null,
    );
    for (const statement of read.statements) {
      const gap = sequenceGap(previous, statement.header.sequence);
      if (gap) statement.doubts.push(gap);
      previous = laterSequence(previous, statement.header.sequence);
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
        ledger_check: null,
      });
      matchers.push(
        lineMatcher(
          deps,
          {
            accountId,
            accountIds: accounts.ids,
            iban: accounts.iban,
            importId,
            source: "file",
            span: statement,
            approvalsHeld: statement.unbalanced && {
              code: "unbalanced",
              differenceMinor: statement.unbalanced.differenceMinor,
              why: `an unbalanced statement approves nothing: ${statement.unbalanced.message}`,
            },
          },
          summary,
        ),
      );
    }
    let at = 0;
    let written = 0;
    const budget = heapBudget(IMPORT_HEAP_BUDGET_BYTES);
    await readStatementFile(
      createReadStream(kept),
      {
        line: (line) => {
          if (++written % 256 === 0) budget.check();
          return matchers[at]?.line(line);
        },
        statement: async () => {
          await matchers[at++]?.finish();
        },
      },
      options,
    );
    if (summary.approved > summary.settled || summary.payouts_paid > 0) deps.decisionsMade();
    await checkTheLedger(deps, { accountId, ...accounts }, read.statements, summary);
    return { ok: true, value: summary };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Each statement's closing balance against the ledger, once its lines are written (ledger/bank-check.ts). */
async function checkTheLedger(
  deps: ReconcileDeps,
  account: { accountId: number; ids: number[]; iban: string },
  statements: readonly StatementTally[],
  summary: ImportSummary,
): Promise<void> {
  const now = deps.now();
  for (const [i, statement] of statements.entries()) {
    const made = summary.statements[i];
    if (!made) continue;
    const check = await checkStatement(
      deps.repos,
      {
        accountId: account.accountId,
        accountIds: account.ids,
        iban: account.iban,
        importId: made.import_id,
        source: "file",
        closing: statement.header.closingMinor,
        end: statementEnd(statement.header.periodTo, statement.lastBooked, now),
      },
      now,
    );
    made.ledger_check = check && ledgerCheckView(check);
  }
}

/** A statement's number as a count: camt.053's ElctrncSeqNb, MT940's :28C: before its "/". */
function sequenceNumber(sequence: string | null): number | null {
  const m = sequence === null ? null : /^0*(\d{1,9})(?:\/\d+)?$/.exec(sequence.trim());
  return m ? Number(m[1]) : null;
}

/**
 * Statements are numbered one after another per account: a number more than one past the last one
 * imported means statements in between never came, and with them payments no one has seen. A
 * number at or below it is a statement again (its lines are duplicates), which is no gap.
 */
export function sequenceGap(last: string | null, next: string | null): string | null {
  const a = sequenceNumber(last);
  const b = sequenceNumber(next);
  if (a === null || b === null || b <= a + 1) return null;
  const missing = b - a === 2 ? `${a + 1}` : `${a + 1} to ${b - 1}`;
  return `statement ${b} follows statement ${a}: statement ${missing} was never imported, its payments are unseen`;
}

function laterSequence(last: string | null, next: string | null): string | null {
  const a = sequenceNumber(last);
  const b = sequenceNumber(next);
  if (b === null) return last;
  return a === null || b > a ? next : last;
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
  return { ...emptyCounts(), statements: [] };
}
