/** A pending deposit or withdrawal as the queue lists it: a withdrawal's carries its payout mark. */
import type { PayoutMarkView, TransactionView } from "../../src/transactions/views.js";

export type QueueRow = TransactionView & Partial<PayoutMarkView>;
