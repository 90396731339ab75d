/**
 * Who did something, as the audit log, decisions and claims record it, and the rules that depend
 * on who it was. Every part names an actor through these, never by building the text itself.
 */

/** Who changed something through the admin API (CLI and automation, one shared token). */
export const ADMIN_API = "admin-api";

/** An operator signed in to the console, by their email: `operator:<email>`. */
export const operatorActor = (email: string): string => `operator:${email}`;

/** An operator's role, least first: each may do what the ones before it may. */
export type OperatorRole = "viewer" | "operator" | "admin";

/** Who approves a transaction, as far as the rules of approving go. */
export type Approver = { kind: "operator"; role: OperatorRole } | { kind: "admin_api" } | { kind: "sandbox" };

/**
 * Whether this approver may approve more than the amount asked (a payer who paid more): an admin
 * in the console, the admin API (an admin's automation) and a test firm rehearsing any outcome;
 * an operator only up to the amount asked.
 */
export function mayApproveMoreThanAsked(by: Approver): boolean {
  return by.kind !== "operator" || by.role === "admin";
}
