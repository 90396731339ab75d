/**
 * What a line says about a transfer beyond its money (its EndToEndIds, a return's reason, whether
 * it is a bank's charge), kept under the rule every statement text follows (statement-file.ts,
 * statement-limits.ts): control characters refuse the file, layout marks are dropped, an id past
 * its length refuses (a cut id is no longer the bank's), a reason past its length is cut.
 */
import { statementText } from "../domain/text-rules.js";
import { StatementError } from "./amounts.js";
import { feeInNarrative, returnInNarrative } from "./narrative.js";
import type { StatementLine } from "./statement.js";
import { cutText, STATEMENT_LIMITS } from "./statement-limits.js";

/** An EndToEndId as the bank wrote it, or null for none (ISO's NOTPROVIDED is none). */
export function endToEndIdOf(value: string): string | null {
  const text = statementText(value);
  if (text === undefined) throw new StatementError("an EndToEndId holds control characters (a NUL, for one)");
  if (text.length > STATEMENT_LIMITS.endToEndId)
    throw new StatementError(`an EndToEndId is longer than ${STATEMENT_LIMITS.endToEndId} characters`);
  return text === "" || text === "NOTPROVIDED" ? null : text;
}

/** A return's reason as the bank gave it (code and words), or null when it gave none. */
export function returnReasonOf(value: string | null): string | null {
  if (value === null) return null;
  const text = statementText(value);
  if (text === undefined)
    throw new StatementError("a return's reason holds control characters (a NUL, for one)");
  return text === "" ? null : cutText(text, STATEMENT_LIMITS.returnReason);
}

/**
 * The line with what its narrative says where the bank's codes said nothing: an "İADE" on a credit
 * is a payout's return, a charge's words on a debit are a fee (narrative.ts). A mark already set
 * stays as it is. Only a credit returns a payout: a debit's "İADE" is money we send back.
 */
export function withNarrativeMarks(line: StatementLine): StatementLine {
  if (line.direction === "credit") {
    if (line.returnInfo?.reason != null) return line;
    // A return marked by its code alone (MT940 RTI) takes the reason its narrative names.
    const found = returnInNarrative(line.description);
    return found ? { ...line, returnInfo: found } : line;
  }
  return line.fee === undefined && feeInNarrative(line.description) ? { ...line, fee: true } : line;
}
