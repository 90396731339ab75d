import type { FirmDirectory } from "../auth/firm-directory.js";
import type { RateLimiter } from "../auth/rate-limiter.js";
import type { Config } from "../config/config.js";
import type { QueueNotices } from "../console/queue-notices.js";
import type { SecretBox } from "../crypto/secret-box.js";
import type { IntakePorts } from "../domain/intake.js";
import type { HostedSessions } from "../hosted/sessions.js";
import type { Metrics } from "../metrics/metrics.js";
import type { TargetCheck } from "../net/callback-target.js";
import type { Repositories } from "../store/index.js";

/** Everything the HTTP layer needs, built once at start (main/wiring.ts) and passed in. */
export interface AppContext {
  config: Config;
  repos: Repositories;
  firms: FirmDirectory;
  box: SecretBox;
  rateLimiter: RateLimiter;
  callbackTargetAllowed: TargetCheck;
  intake: IntakePorts;
  hosted: HostedSessions;
  adminToken: string;
  /** Set when a graceful stop begins: answers then close their connections. */
  draining: boolean;
  metrics: Metrics;
  /** A store round trip for /readyz. */
  ping(): Promise<void>;
  /**
   * Whether this instance holds its serving lock (store/serving-lock.ts; always on the embedded
   * store). Without it nothing is sealed, so /readyz says not ready.
   */
  servingLockHeld(): boolean;
  /** The open consoles' notices that the pending queues changed. */
  queueNotices: QueueNotices;
  /** Resolves once all writes so far are durable (see Store.settle). */
  settle(): Promise<void>;
  now(): number;
}
