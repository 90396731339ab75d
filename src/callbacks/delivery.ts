import type { Config } from "../config/config.js";
import type { CallbackRepository } from "../store/callbacks/callbacks.js";
import { type CallbackSender, createCallbackSender } from "./sender.js";
import { createOutboxWorker, type OutboxLog, type OutboxWorker } from "./worker.js";

export interface CallbackDeliveryDeps {
  settings: Config["callbacks"];
  allowPrivate: boolean;
  callbacks: CallbackRepository;
  /** The firm's current secret; undefined for no such firm, null when its sealed secret does not open. */
  secretOf(firmId: number): Promise<string | null | undefined>;
  /** Told the outcome of every attempt (metrics). */
  onAttempt(outcome: "delivered" | "retry" | "failed"): void;
  settle(): Promise<void>;
  now(): number;
  log: OutboxLog;
}

/** The sender (guarded HTTP to merchants' receivers) and the outbox worker that feeds it. */
export function createCallbackDelivery(deps: CallbackDeliveryDeps): {
  sender: CallbackSender;
  outbox: OutboxWorker;
} {
  const { settings, now } = deps;
  const sender = createCallbackSender({
    allowPrivate: deps.allowPrivate,
    timeoutMs: settings.timeoutMs,
    // Hanging attempts hold connections of their own beside the counted ones.
    perOrigin: settings.perOrigin + settings.hangingPerOrigin,
    now,
  });
  const outbox = createOutboxWorker({
    callbacks: deps.callbacks,
    onAttempt: deps.onAttempt,
    async secretFor(firmId) {
      // Cached like firm lookups and evicted with them on every instance, so a rotated secret signs
      // callbacks from the next attempt on, as it authenticates requests.
      const secret = await deps.secretOf(firmId);
      if (secret === undefined) return { unsignable: `firm ${firmId} not found: no callback is signed` };
      // A failed attempt like any other, until the firm is given a new secret.
      if (secret === null)
        return { unsignable: `firm ${firmId}'s secret key does not open: no callback is signed` };
      return { secret };
    },
    sender,
    settle: deps.settle,
    now,
    random: Math.random,
    log: deps.log,
    options: {
      concurrency: settings.concurrency,
      perOrigin: settings.perOrigin,
      hangingPerOrigin: settings.hangingPerOrigin,
      pollMs: settings.pollMs,
      leaseMs: settings.leaseMs,
      slowAfterMs: settings.timeoutMs / 2,
    },
  });
  return { sender, outbox };
}
