import { join, resolve } from "node:path";
import { type Config, ConfigError } from "../config/config.js";
import { newLocalSecret, readLocalSecret, saveLocalSecret } from "../config/local-secrets.js";
import { checkMasterKey, type KeyCheckOutcome, masterKeyCheck, sameCheck } from "../crypto/key-check.js";
import type { SecretBox } from "../crypto/secret-box.js";
import type { StoreKeyRepository } from "../store/store-keys.js";

/** The master key and where it came from, for a message that says which one to fix. */
export interface MasterKeyChoice {
  hex: string;
  /** `generated`: the embedded default made one for this start; it is saved once the store accepts it. */
  source: "env" | "file" | "generated";
}

/**
 * The embedded store may fall back to a key in the data directory; PostgreSQL deployments run
 * several instances, which must share one key, so there it has to come from the environment.
 */
export function chooseMasterKey(config: Config, warnings: string[]): MasterKeyChoice {
  if (config.masterKeyHex) return { hex: config.masterKeyHex, source: "env" };
  if (config.databaseUrl) {
    throw new ConfigError(
      "invalid configuration:\n  PAYINTAKE_MASTER_KEY: required with DATABASE_URL (64 hex characters)",
    );
  }
  warnings.push("PAYINTAKE_MASTER_KEY is not set: using the key in the data directory; set it in production");
  const saved = readLocalSecret(config.dataDir, "master.key");
  return saved === undefined
    ? { hex: newLocalSecret(32), source: "generated" }
    : { hex: saved, source: "file" };
}

/**
 * Refuses to start (a ConfigError naming PAYINTAKE_MASTER_KEY, before anything is written) unless
 * the key is the one the store's secrets are sealed with; records the key's check on a store that
 * has none. Returns true when it recorded one.
 */
export async function acceptMasterKey(
  choice: MasterKeyChoice,
  dataDir: string,
  box: SecretBox,
  keys: StoreKeyRepository,
  now: () => number,
): Promise<boolean> {
  const outcome = await checkMasterKey(Buffer.from(choice.hex, "hex"), box, {
    recorded: () => keys.masterCheck(),
    record: (check) => keys.recordMasterCheck(check, now()),
    oldestSealedSecret: () => keys.oldestSealedSecret(),
    beforeRecording() {
      if (choice.source === "generated") saveLocalSecret(dataDir, "master.key", choice.hex);
    },
  });
  if (outcome === "other_key" || outcome === "cannot_open")
    throw new ConfigError(
      `invalid configuration:\n  PAYINTAKE_MASTER_KEY: ${refusal(choice, dataDir, outcome)}`,
    );
  return outcome === "recorded";
}

/**
 * The same refusal, made before the migrations when the store already keeps a check: a start
 * with another key must not apply a new version's migrations to a store it then refuses to serve
 * (the key's check is all it reads). A store without a check yet is judged after migrating, by
 * acceptMasterKey, which needs the migrated tables to find a sealed secret.
 */
export async function refuseOtherKeyBeforeMigrating(
  choice: MasterKeyChoice,
  dataDir: string,
  keys: StoreKeyRepository,
): Promise<void> {
  const recorded = await keys.masterCheck();
  if (recorded === undefined) return;
  if (sameCheck(recorded, masterKeyCheck(Buffer.from(choice.hex, "hex")))) return;
  throw new ConfigError(
    `invalid configuration:\n  PAYINTAKE_MASTER_KEY: ${refusal(choice, dataDir, "other_key")}`,
  );
}

function refusal(choice: MasterKeyChoice, dataDir: string, outcome: KeyCheckOutcome): string {
  const wrong =
    outcome === "cannot_open"
      ? "does not open the secrets already sealed in this store"
      : "is not the key this store's secrets are sealed with";
  const file = resolve(join(dataDir, "master.key"));
  switch (choice.source) {
    case "env":
      return `${wrong}; set it to the key this store was started with before`;
    case "file":
      return `not set, and the key in ${file} ${wrong}; restore the master.key this store was started with, or set PAYINTAKE_MASTER_KEY to that key`;
    case "generated":
      return `not set, and ${file} is missing, but this store's secrets are sealed with a key; restore that master.key from a backup, or set PAYINTAKE_MASTER_KEY to that key`;
  }
}
