import type { SecretBox } from "../crypto/secret-box.js";
import type { Firm } from "../domain/firm.js";
import type { FirmRepository, FirmWithProvider } from "../store/firms.js";

/**
 * Finds the firm behind an API key. Lookups are cached briefly, which keeps a database read off the
 * hot path. Operators' changes empty the cache at once: on this instance directly, on the others
 * when PostgreSQL tells them (store/change-feed.ts), so a rotated secret stops working everywhere
 * at once. The 500 ms lifetime is the bound when such a notice is missed.
 */
export interface FirmDirectory {
  findByApiKey(apiKey: string): Promise<Firm | undefined>;
  /** A firm's current secret, for signing its callbacks: cached and evicted like lookups by key. */
  secretOf(firmId: number): Promise<string | undefined>;
  evictAll(): void;
}

const TTL_MS = 500;
const MAX_ENTRIES = 10_000;
/**
 * Our keys are 27 characters (backoffice/management.ts newApiKey). A longer header is no key of
 * ours: it is neither looked up nor kept, so a flood of large made-up keys (up to the header limit
 * each) cannot fill the cache of unknown keys with megabytes.
 */
const MAX_API_KEY_LENGTH = 64;

export function toFirm(row: FirmWithProvider, box: SecretBox): Firm {
  const providerUrl =
    row.provider_kind === "platform" || row.provider_kind === "aggregator" ? row.provider_callback_url : null;
  return {
    id: row.id,
    name: row.name,
    secret: box.open(row.secret_sealed),
    active: row.active === 1,
    webhookUrl: row.webhook_url,
    providerCallbackUrl: providerUrl,
    legacyHttp: row.legacy_http === 1,
    callbackMiddleName: row.callback_middle_name === 1,
    depositMin: row.deposit_min,
    depositMax: row.deposit_max,
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
): FirmDirectory {
  const cache = new Map<string, { firm: Firm | undefined; until: number }>();
  const secrets = new Map<number, { secret: string; until: number }>();
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
      const secret = box.open(row.secret_sealed);
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
      const firm = row ? toFirm(row, box) : undefined;
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
