import type { Firm } from "../../domain/firm.js";
import type { PaymentCodes } from "../../domain/payment-code.js";
import type { HttpContext } from "../../http/context.js";
import type { TargetCheck } from "../../net/callback-target.js";
import type { FirmDirectory } from "../firm-directory.js";
import type { IntakePorts } from "../intake.js";
import type { DepositRequest } from "../requests.js";

/**
 * Where a hosted deposit goes to wait for its amount: the payment page's sessions
 * (payment-page/sessions.ts) answer it. Named here so the merchant API needs nothing of the page.
 */
export interface HostedDepositOpener {
  open(firm: Firm, req: DepositRequest, callbackUrl: string): Promise<{ token: string }>;
}

/** What the merchant API's routes use. */
export interface IntakeContext extends HttpContext {
  firms: FirmDirectory;
  callbackTargetAllowed: TargetCheck;
  intake: IntakePorts;
  hosted: HostedDepositOpener;
  /** The deposits' payment codes, for a firm that has them in its answers (answer_payment_code). */
  paymentCodes: PaymentCodes;
}
