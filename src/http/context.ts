import type { Config } from "../config/config.js";
import type { SecretBox } from "../crypto/secret-box.js";
import type { Metrics } from "../metrics/metrics.js";
import type { Repositories } from "../store/index.js";
import type { RateLimiter } from "./rate-limit/rate-limiter.js";

/**
 * What every part's routes may use, built once at start (main/wiring.ts) and passed in. Each part
 * widens it with what its own routes need (intake/http/context.ts, payment-page/routes.ts); the
 * object main/app.ts is given holds all of it.
 */
export interface HttpContext {
  config: Config;
  repos: Repositories;
  box: SecretBox;
  rateLimiter: RateLimiter;
  /** Set when a graceful stop begins: answers then close their connections. */
  draining: boolean;
  metrics: Metrics;
  /** A store round trip for /readyz. */
  ping(): Promise<void>;
  /**
   * Whether this instance holds its serving lock (store/engine/serving-lock.ts; always on the embedded
   * store). Without it nothing is sealed, so /readyz says not ready.
   */
  servingLockHeld(): boolean;
  /** Resolves once all writes so far are durable (see Store.settle). */
  settle(): Promise<void>;
  now(): number;
}
