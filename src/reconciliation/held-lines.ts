/**
 * A statement's money the ledger takes in as its lines are written (docs/ledger.md, "What posts
 * when"): credits that pay nobody yet (unmatched, only suggested, after a cancellation, not ours)
 * are held in suspense, and the bank's fees go to bank fees, one posting of each per written batch.
 * Cash is posted once per lira: a held line later given to a deposit moves its money from
 * suspense (`fromSuspense`), never into cash again.
 */
import { cashIbanOf, type PostingDraft } from "../domain/ledger.js";
import { bankFee, lineHeld } from "../ledger/postings.js";
import type { HeldLine, HoldLines } from "../store/statements/statement-lines.js";

/** The hold of a batch of one bank account's lines; undefined when its IBAN is none the ledger can name. */
export function holdLines(iban: string, at: number, actor: string): HoldLines | undefined {
  const bankForm = cashIbanOf(iban);
  if (bankForm === null) return undefined;
  return ({ held, fees }) => {
    const made: { draft: PostingDraft; lineIds: number[] }[] = [];
    const batch = (lines: HeldLine[], rule: typeof lineHeld | typeof bankFee) => {
      const first = lines[0];
      if (!first) return;
      const amount = lines.reduce((sum, l) => sum + l.amount, 0);
      const memo = lines.length === 1 ? `line ${first.lineId}` : `${lines.length} lines from ${first.lineId}`;
      made.push({
        draft: { ...rule({ lineId: first.lineId, iban: bankForm, amount, at, actor }), memo },
        lineIds: lines.map((l) => l.lineId),
      });
    };
    batch(held, lineHeld);
    batch(fees, bankFee);
    return made;
  };
}

/** An approval's posting whose money a held line brought in: from suspense instead of the bank's cash. */
export function fromSuspense(draft: PostingDraft | null): PostingDraft | null {
  if (draft === null) return null;
  return {
    ...draft,
    lines: draft.lines.map((l) => (l.account.startsWith("cash:") ? { ...l, account: "suspense" } : l)),
  };
}
