import type { T } from "./i18n";
import { money2, type Role } from "./ui";

/**
 * An API amount as the management screens show it, as the queues do: `500.000,00 TL`; none as a
 * dash. The space before TL does not break, so a narrow column never leaves the unit on a line of
 * its own (a range breaks between its two amounts instead).
 */
export const shownAmount = (amount: string | null): string =>
  amount === null ? "—" : `${money2(amount)}\u00a0TL`;

/**
 * An API amount as an operator types it into an edit field (`500.000,00`): `amountInput` reads it
 * back to the very same value, so a save that left the field alone sends no change for it.
 */
export const typedAmount = (amount: string | null): string => (amount === null ? "" : money2(amount));

/** A range of amounts (an account's, a firm's deposits): both ends, one of them, or a dash. */
export function shownRange(min: string | null, max: string | null, t: T): string {
  if (min !== null && max !== null) return `${shownAmount(min)} – ${shownAmount(max)}`;
  if (min !== null) return `${t("min")} ${shownAmount(min)}`;
  if (max !== null) return `${t("max")} ${shownAmount(max)}`;
  return "—";
}

const ROLE_WORDS = {
  admin: "mgmtRoleAdmin",
  operator: "mgmtRoleOperator",
  viewer: "mgmtRoleViewer",
} as const satisfies Record<Role, string>;

/** An operator's role in the console's language ("yönetici"); the API's value stays the select's value. */
export const roleLabel = (role: Role, t: T): string => t(ROLE_WORDS[role]);

const BREAKER_WORDS: Record<string, "mgmtBreakerClosed" | "mgmtBreakerOpen" | "mgmtBreakerHalfOpen"> = {
  closed: "mgmtBreakerClosed",
  open: "mgmtBreakerOpen",
  half_open: "mgmtBreakerHalfOpen",
};

/** A channel's breaker state in the console's language; one this console does not know, as it came. */
export function breakerLabel(state: string, t: T): string {
  const key = BREAKER_WORDS[state];
  return key ? t(key) : state;
}
