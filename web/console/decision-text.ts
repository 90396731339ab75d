import { bareAmount, dottedThousands, readAmount } from "../../src/payment-page/browser/amount.js";
import type { T } from "./i18n";
import { fill } from "./manage";
import { amountInput, isAdmin, isAmountInput, money, money2, payerName, type Role } from "./ui";

/** The server's refusal of a decision in the console's language (its texts are English, for the API). */
export function refusalIn(message: string | undefined, t: T): string {
  const decided = /^transaction is not pending \(status: (approved|rejected)\)/.exec(message ?? "");
  if (decided) return t("decidedAlready").replace("{status}", t(decided[1] as "approved").toLowerCase());
  if (message?.startsWith("amount must be a decimal amount")) return t("badDecisionAmount");
  if (message?.startsWith("approving more than the amount asked for")) return t("aboveAskedNeedsAdmin");
  return message ?? "";
}

/**
 * The amount an operator typed to approve with, read as the queue and the detail read it: none (the
 * amount asked for), one the console cannot read (said so before any confirmation shows a guess),
 * or an amount in the API's form, with the line that confirms it when it differs from the one asked
 * for (it moves money the merchant did not expect).
 */
export function typedApproval(
  tx: { id: number; amount: string },
  typed: string | undefined,
  t: T,
  /** Only an admin may approve more than was asked for (the server refuses it from others too). */
  role: Role,
): { ok: false; message: string } | { ok: true; amount?: string; change?: string } {
  // Nothing typed: the amount asked for. Anything typed that is not an amount ("TL" alone too, which
  // the button shows as "Onayla: ?") is refused, never taken as nothing.
  if (!typed?.trim()) return { ok: true };
  const amount = readAmount(typed);
  if (amount === null) {
    // "1.500": most likely 1500, possibly 1,5; said for what was typed, as the payment page says it.
    const bare = bareAmount(typed);
    const text = dottedThousands(bare)
      ? fill(t("dottedThousands"), { typed: bare, plain: bare.replace(".", "") })
      : t("badDecisionAmount");
    return { ok: false, message: `#${tx.id}: ${text}` };
  }
  const typedMinor = minorOf(amount);
  const askedMinor = minorOf(tx.amount);
  if (typedMinor === askedMinor) return { ok: true, amount };
  if (typedMinor > askedMinor && !isAdmin(role))
    return { ok: false, message: `#${tx.id} (${money(tx.amount)} TL): ${t("aboveAskedNeedsAdmin")}` };
  return { ok: true, amount, change: `#${tx.id}: ${money(tx.amount)} TL → ${money2(amount)} TL` };
}

/** The approve button's words: the amount typed, when there is one (`Onayla: 149,50 TL`, or `?`). */
export function approveLabel(typed: string | undefined, t: T): string {
  if (!typed?.trim()) return t("approve");
  return isAmountInput(typed)
    ? `${t("approveAs")} ${money2(amountInput(typed) ?? "")} TL`
    : `${t("approveAs")} ?`;
}

/** "1250.5" as 125050: amounts compared in whole kuruş, never as floating point. */
function minorOf(amount: string): number {
  const [whole = "0", cents = ""] = amount.split(".");
  return Number(whole) * 100 + Number(cents.padEnd(2, "0").slice(0, 2));
}

/**
 * A queue button's name for a screen reader: its visible words and the row it decides ("Onayla —
 * #1234, 1.500,00 TL, Ayşe Yılmaz"), so that a list of buttons is not twenty identical "Onayla".
 */
export function decisionName(
  visible: string,
  row: { id: number; amount: string; first_name: string; middle_name?: string | null; last_name: string },
): string {
  return `${visible} — #${row.id}, ${money(row.amount)} TL, ${payerName(row)}`;
}
