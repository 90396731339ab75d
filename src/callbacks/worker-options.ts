/** The outbox worker's settings, from the PAYINTAKE_CALLBACK_* variables (config/config.ts). */
export interface OutboxWorkerOptions {
  concurrency: number;
  perOrigin: number;
  /** Hanging attempts one receiver may have beside its `perOrigin` counted ones. */
  hangingPerOrigin: number;
  pollMs: number;
  /** A lease's length; the heartbeat renews it every third of this. */
  leaseMs: number;
  /** The longest an attempt waits before it hangs, and what marks an answer late (half the send timeout). */
  slowAfterMs: number;
}
