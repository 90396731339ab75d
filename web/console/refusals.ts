import type { T } from "./i18n";

/** The server's refusal of a decision in the console's language (its texts are English, for the API). */
export function refusalIn(message: string | undefined, t: T): string {
  const decided = /^transaction is not pending \(status: (approved|rejected)\)/.exec(message ?? "");
  if (decided) return t("decidedAlready").replace("{status}", t(decided[1] as "approved").toLowerCase());
  if (message?.startsWith("amount must be a decimal amount")) return t("badDecisionAmount");
  return message ?? "";
}
