/**
 * One step of a deposit's routing (routing/router.ts), as the transaction's routing log keeps it and
 * operators read it in the transaction's detail.
 */
export interface RoutingStep {
  account_id: number;
  /** The channel's code; null for a manual account, and for a channel that was not active. */
  channel: string | null;
  /** Only when the account's channel was not active: its id (its code was not read). */
  channel_id?: number;
  outcome: "accepted" | "declined" | "failed" | "skipped";
  reason?: string;
  ms: number;
}
