import { sealContext } from "../crypto/seal-context.js";
import { openOrUndefined, type SecretBox } from "../crypto/secret-box.js";
import type { Firm } from "../domain/firm.js";
import type { FirmRepository, FirmWithProvider } from "../store/firms/firms.js";

/**
 * Finds the firm behind an API key. Lookups are cached briefly, which keeps a database read off the
 * hot path. Operators' changes empty the cache at once: on this instance directly, on the others
 * when PostgreSQL tells them (store/engine/change-feed.ts), so a rotated secret stops working everywhere
 * at once. The 500 ms lifetime is the bound when such a notice is missed.
 */
export interface FirmDirectory {
  findByApiKey(apiKey: string): Promise<Firm | undefined>;
  /**
   * A firm's current secret, for signing its callbacks: cached and evicted like lookups by key.
   * Undefined for no such firm, null when its sealed secret does not open (as Firm.secret).
   */
  secretOf(firmId: number): Promise<string | null | undefined>;
  evictAll(): void;
}

const TTL_MS = 500;
const MAX_ENTRIES = 10_000;
/**
 * Our keys are 27 characters (management/checks.ts newApiKey). A longer header is no key of
 * ours: it is neither looked up nor kept, so a flood of large made-up keys (up to the header limit
 * each) cannot fill the cache of unknown keys with megabytes.
 */
const MAX_API_KEY_LENGTH = 64;

/**
 * The firm's secret, or null when its sealed value does not open for it: moved from another firm's
 * row or altered. That firm then fails authentication as a wrong signature does (a 401, the same
 * for every request), never a 500 on each of them; `unopenable` lets the operators know.
 */
function secretOf(
  row: { id: number; secret_sealed: string },
  box: SecretBox,
  unopenable?: (firmId: number) => void,
) {
  const secret = openOrUndefined(box, row.secret_sealed, sealContext.firmSecret(row.id));
  if (secret === undefined) unopenable?.(row.id);
  return secret ?? null;
}

export function toFirm(row: FirmWithProvider, box: SecretBox, unopenable?: (firmId: number) => void): Firm {
  const providerUrl =
    row.provider_kind === "platform" || row.provider_kind === "aggregator" ? row.provider_callback_url : null;
  return {
    id: row.id,
    name: row.name,
    secret: secretOf(row, box, unopenable),
    active: row.active === 1,
    webhookUrl: row.webhook_url,
    providerCallbackUrl: providerUrl,
    legacyHttp: row.legacy_http === 1,
    callbackMiddleName: row.callback_middle_name === 1,
    answerPaymentCode: row.answer_payment_code === 1,
    depositMin: row.deposit_min,
    depositMax: row.deposit_max,
    maxPendingCount: row.max_pending_count === null ? null : Number(row.max_pending_count),
    maxPendingAmount: row.max_pending_amount === null ? null : Number(row.max_pending_amount),
    maxCapShare: row.max_cap_share,
    depositsOpen: row.deposits_open === 1,
    withdrawalsOpen: row.withdrawals_open === 1,
    rateLimitPerSecond: row.rate_limit_per_second,
    sandbox: row.sandbox === 1,
  };
}

export function createFirmDirectory(
  repo: FirmRepository,
  box: SecretBox,
  now = () => Date.now(),
  /** A firm's sealed secret did not open (at most once per lookup that reads the database). */
  unopenable?: (firmId: number) => void,
): FirmDirectory {
  const cache = new Map<string, { firm: Firm | undefined; until: number }>();
  const secrets = new Map<number, { secret: string | null; until: number }>();
  /** Bumped by each eviction: a read that started before one is not cached after it. */
  let generation = 0;
  return {
    async secretOf(firmId) {
      const hit = secrets.get(firmId);
      const t = now();
      if (hit && hit.until > t) return hit.secret;
      const started = generation;
      const row = await repo.get(firmId);
      if (!row) return undefined;
      const secret = secretOf(row, box, unopenable);
      if (started !== generation) return secret;
      if (secrets.size >= MAX_ENTRIES) secrets.clear();
      secrets.set(firmId, { secret, until: t + TTL_MS });
      return secret;
    },
    async findByApiKey(apiKey) {
      if (apiKey.length > MAX_API_KEY_LENGTH) return undefined;
      const hit = cache.get(apiKey);
      const t = now();
      if (hit && hit.until > t) return hit.firm;
      const started = generation;
      const row = await repo.findByApiKey(apiKey);
      const firm = row ? toFirm(row, box, unopenable) : undefined;
      if (started !== generation) return firm;
      // Unknown keys are cached too, so a flood of bad keys costs one read per key per TTL.
      if (cache.size >= MAX_ENTRIES) cache.clear();
      cache.set(apiKey, { firm, until: t + TTL_MS });
      return firm;
    },
    evictAll() {
      generation++;
      cache.clear();
      secrets.clear();
    },
  };
}
