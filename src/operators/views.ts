/** What the operators' own routes answer the console: the session, a second factor started, the operators' list. */
import type { ConsoleOperator } from "./operator.js";
import type { listOperators } from "./operator-accounts.js";
import type { ConsoleService } from "./service.js";

/** An operator account as the operators' list answers it. */
export type OperatorListView = Awaited<ReturnType<typeof listOperators>>[number];

/** What signing in and the session's own route answer: who, the CSRF token and the console's settings. */
export type SignedInView = {
  operator: ConsoleOperator;
  csrf_token: string;
  /** The session's route only: how many recovery codes the operator has left (0 without a second factor). */
  recovery_codes_left?: number;
} & ConsoleService["settings"];

/** A second factor started: its secret, shown once, its URI and its QR code's rows of 0 and 1. */
export interface SecondFactorStartView {
  secret: string;
  uri: string;
  qr: string[];
}
