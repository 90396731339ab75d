import { type Config, ConfigError, sharedSecretProblems } from "../config/config.js";
import { readOrCreateLocalSecret } from "../config/local-secrets.js";
import { createSecretBox, type SecretBox, sealOnlyWhile } from "../crypto/secret-box.js";
import type { PaymentCodes } from "../domain/payment-code.js";
import { openStore, type Store } from "../store/engine/open.js";
import { keyCheck } from "../store/migrations/20261124T2100_key_check.js";
import { migrations } from "../store/migrations/index.js";
import { createPaymentCodeKeyRepository } from "../store/statements/payment-code-keys.js";
import { createStoreKeyRepository } from "../store/store-keys.js";
import {
  acceptMasterKey,
  chooseMasterKey,
  finishKeyFileRotation,
  type MasterKeyChoice,
  refuseOtherKeyBeforeMigrating,
  stopIfKeyMoved,
} from "./master-key.js";
import { loadPaymentCodes } from "./payment-codes.js";

/** Settings that are allowed but that an operator should hear about at every start. */
export function configurationWarnings(config: Config): string[] {
  const warnings: string[] = [];
  // Names only, never values: a misspelt PAYINTAKE_MASTER_KEY would still be a secret.
  if (config.unknownVariables.length > 0)
    warnings.push(
      `${config.unknownVariables.join(", ")}: not a setting payintake reads, ignored (misspelt? the settings are listed in docs/configuration.md)`,
    );
  // Allowed (a development server), but a merchant that redirects to a relative payment_url sends
  // its payer to a path on its own site. Only instances that answer the API open hosted sessions.
  if (config.role !== "worker" && config.paymentPageUrl === undefined)
    warnings.push(
      "PAYMENT_PAGE_URL is not set: hosted deposits answer a relative payment_url (/t/<token>), which " +
        "a merchant's redirect resolves against its own site; set PAYMENT_PAGE_URL to the public base " +
        "URL payers reach this server at (e.g. https://pay.example.com)",
    );
  const shared = sharedPageOrigin(config);
  if (shared !== undefined)
    warnings.push(
      `PAYMENT_PAGE_URL and PAYINTAKE_URL (the console's and admin API's address) share one origin, ${shared}: ` +
        "a script injected into either page could then read the other's storage and call the console's " +
        "API with an operator's cookies; serve the payment page from a host of its own (e.g. " +
        "https://pay.example.com beside https://ops.example.com), see docs/operations.md",
    );
  return warnings;
}

/**
 * The origin the payment page and the console would share, if they do: the payment page at
 * PAYMENT_PAGE_URL, the console at /ops of this server's own address (PAYINTAKE_URL, which the
 * CLI also uses). A browser isolates pages by origin only, so on one origin a script injected into
 * either page reads the other's storage and sends requests with its cookies. A loopback address
 * is a development machine's, where both are expected on one origin: not warned of.
 */
function sharedPageOrigin(config: Config): string | undefined {
  if (config.role === "worker" || config.paymentPageUrl === undefined) return undefined;
  const page = new URL(config.paymentPageUrl);
  const server = new URL(config.serverUrl);
  if (page.origin !== server.origin || isLoopbackHost(page.hostname)) return undefined;
  return page.origin;
}

function isLoopbackHost(hostname: string): boolean {
  return (
    hostname === "localhost" ||
    hostname.endsWith(".localhost") ||
    hostname === "[::1]" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)
  );
}

/**
 * On PostgreSQL every instance must share its master key and admin token, so both come from the
 * environment: a server missing them says so for both at once, not one per start.
 */
export function requireSharedSecrets(config: Config): void {
  const missing = sharedSecretProblems(config);
  if (missing.length > 0) throw new ConfigError(`invalid configuration:\n  ${missing.join("\n  ")}`);
}

/**
 * The admin token: the environment's, or on the embedded store one generated into the data
 * directory. PostgreSQL deployments run several instances, which must share one, so there it has to
 * come from the environment.
 */
export function adminTokenOf(config: Config): string {
  if (config.adminToken) return config.adminToken;
  if (config.databaseUrl) {
    throw new ConfigError("invalid configuration:\n  PAYINTAKE_ADMIN_TOKEN: required with DATABASE_URL");
  }
  return readOrCreateLocalSecret(config.dataDir, "admin.token", 24);
}

export interface KeyedStore {
  store: Store;
  /** Seals and opens with the master key, and seals only while this instance holds its serving lock. */
  box: SecretBox;
  lockHeld(): boolean;
  /** Deposits' payment codes, under the store's own key (main/payment-codes.ts). */
  paymentCodes: PaymentCodes;
}

/**
 * Opens and migrates the store under the master key: a rotation that stopped half-way is settled
 * first, a key that is not the store's stops the start before anything is read or written, and the
 * serving lock is held from before the key check on; then the payment codes' key is opened (made
 * at the first start). The store is closed again if any of it fails.
 */
export async function openKeyedStore(
  config: Config,
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void },
  chosen: MasterKeyChoice,
  now: () => number,
): Promise<KeyedStore> {
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    pgPoolSize: config.pgPoolSize,
    pgStatementTimeoutMs: config.pgStatementTimeoutMs,
    engine: config.storeEngine,
  });
  try {
    let masterKey = chosen;
    const storeKeys = createStoreKeyRepository(store.db);
    const applied = await store.appliedMigrations();
    // A store keeps a key check from that migration on; only such a store can have been rotated.
    const keysKept = applied.includes(keyCheck.version);
    if (keysKept && masterKey.source !== "env") {
      const settled = finishKeyFileRotation(config.dataDir, await storeKeys.masterCheck());
      if (settled !== "none") {
        log.warn(
          { rotation: settled },
          "master.key: a master key rotation that stopped half-way was completed or undone",
        );
        masterKey = chooseMasterKey(config, []);
      }
    }
    // A start with another key must not apply a newer version's migrations to a store it then
    // refuses: with migrations pending, the key is compared before them.
    if (keysKept && migrations.some((m) => !applied.includes(m.version)))
      await refuseOtherKeyBeforeMigrating(masterKey, config.dataDir, storeKeys);
    await store.migrate();
    const missing = await store.missingIndexes();
    if (missing.length > 0)
      log.warn(
        { missing },
        "PostgreSQL: indexes missing because their extensions could not be installed; payer name searches read more of the table until they are (CREATE EXTENSION pg_trgm and btree_gin, as each entry names them, by a role allowed to), and the next start builds them",
      );
    // Held from before the key check to the end: a rotation (which needs the store to itself)
    // cannot slip in between this instance's check and the secrets it seals afterwards.
    const lockHeld = await store.holdServingLock(stopIfKeyMoved(masterKey, storeKeys));
    const box = sealOnlyWhile(createSecretBox(Buffer.from(masterKey.hex, "hex")), lockHeld);
    // Before anything else reads or writes the store: a key that is not the store's must stop the
    // start here, not fail every signed request and seal new secrets under a second key.
    if (await acceptMasterKey(masterKey, config.dataDir, box, storeKeys, now))
      log.info({}, "the master key's check is recorded in the store: a start with another key will refuse");
    // After the key check: the payment code key is sealed with a key the store is known to keep.
    const paymentCodes = await loadPaymentCodes(createPaymentCodeKeyRepository(store.db), box, now);
    return { store, box, lockHeld, paymentCodes };
  } catch (err) {
    await store.close();
    throw err;
  }
}
