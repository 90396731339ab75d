/** How a merchant's callback receiver is being treated by this instance's worker (callbacks/receiver-limits.ts). */
export interface ReceiverReport {
  origin: string;
  /** Most of its recent attempts hung or answered late: one attempt at a time (plus one hanging). */
  slow: boolean;
  /** Attempts in flight, of which `hanging` are past the receiver's usual time. */
  inFlight: number;
  hanging: number;
  usualMs: number | null;
}
