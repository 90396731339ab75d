/**
 * The outbox as operators see it (admin API, console, a test firm's sandbox helpers): callbacks,
 * one with its attempts, this instance's receivers, and sending again.
 */
import { ADMIN_API } from "../domain/actors.js";
import type { ReceiverReport } from "../domain/receiver-report.js";
import { notFound } from "../domain/refusal.js";
import type { Repositories } from "../store/index.js";
import { callbackAttemptView, callbackView, receiverView } from "./outbox-views.js";

export interface OutboxServiceDeps {
  repos: Pick<Repositories, "callbacks">;
  now(): number;
  /** Called after a callback was made due, so it goes out at once. */
  callbackQueued(): void;
  /** Receivers this instance's callback worker sends to, with their speed (worker.ts). */
  callbackReceivers(): ReceiverReport[];
}

export function createOutboxService(deps: OutboxServiceDeps) {
  const { repos } = deps;
  return {
    /**
     * Receivers as this instance's callback worker sees them: whether each is treated as slow (one
     * attempt at a time) and how many attempts hang. Empty on an api-only instance.
     */
    callbackReceivers() {
      return deps.callbackReceivers().map(receiverView);
    },

    async listCallbacks(filter: {
      status?: "pending" | "delivered" | "failed";
      firmId?: number;
      limit?: number;
    }) {
      return (await repos.callbacks.list(filter)).map(callbackView);
    },

    async showCallback(id: number) {
      const row = await repos.callbacks.get(id);
      if (!row) return notFound("callback");
      // Attempts are read after the row; one recorded in between is left out, so the two agree.
      const attempts = (await repos.callbacks.attempts(id)).filter((a) => a.attempt <= row.attempts);
      return {
        ok: true as const,
        value: { ...callbackView(row), payload: row.payload, attempts: attempts.map(callbackAttemptView) },
      };
    },

    /** Sends a callback again with a fresh retry schedule (whatever its status). */
    async redeliver(id: number, actor = ADMIN_API) {
      const row = await repos.callbacks.redeliver(id, {
        actor,
        action: "callback.redeliver",
        at: deps.now(),
      });
      if (!row) return notFound("callback");
      deps.callbackQueued();
      return { ok: true as const, value: callbackView(row) };
    },

    /** After a merchant outage: every callback that failed at or after `since` goes out again. */
    async redeliverFailedSince(since: number, actor = ADMIN_API) {
      const ids = await repos.callbacks.redeliverFailedSince(since, {
        actor,
        action: "callback.redeliver_failed",
        at: deps.now(),
      });
      if (ids.length > 0) deps.callbackQueued();
      return { ok: true as const, value: { redelivered: ids.length, callback_ids: ids } };
    },
  };
}

export type OutboxService = ReturnType<typeof createOutboxService>;
