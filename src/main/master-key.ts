import { join, resolve } from "node:path";
import { type Config, ConfigError } from "../config/config.js";
import {
  newLocalSecret,
  readLocalSecret,
  removeLocalSecret,
  replaceLocalSecret,
  saveLocalSecret,
} from "../config/local-secrets.js";
import { checkMasterKey, isCheckOf, type KeyCheckOutcome } from "../crypto/key-check.js";
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
  if (isCheckOf(Buffer.from(choice.hex, "hex"), recorded)) return;
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

const HEX_KEY = /^[0-9a-fA-F]{64}$/;
const isKeyOf = (hex: string | undefined, check: string) =>
  hex !== undefined && HEX_KEY.test(hex) && isCheckOf(Buffer.from(hex, "hex"), check);

/**
 * Completes or undoes a rotation of the embedded store's master.key that stopped half-way; call it
 * with the store open (this process holds it alone) and before the key is read from the file.
 *
 * The rotation writes the new key to master.key.new (durably), then commits the re-sealed store
 * with the new key's check, then renames master.key.new over master.key. Whichever step a crash
 * cut, the store's check says which of the two files is right: master.key.new when the commit
 * happened (the rename is finished here), master.key when it did not (master.key.new is a key the
 * store never used, and goes). A check that is neither's leaves both files alone: the start is
 * then refused as for any wrong key, and nothing an operator might need is deleted.
 */
export function finishKeyFileRotation(
  dataDir: string,
  recordedCheck: string | undefined,
): "none" | "finished" | "undone" {
  const next = readLocalSecret(dataDir, "master.key.new");
  if (next === undefined || recordedCheck === undefined) return "none";
  if (isKeyOf(next, recordedCheck)) {
    replaceLocalSecret(dataDir, "master.key.new", "master.key");
    return "finished";
  }
  if (isKeyOf(readLocalSecret(dataDir, "master.key"), recordedCheck)) {
    removeLocalSecret(dataDir, "master.key.new");
    return "undone";
  }
  return "none";
}

/**
 * For a serving instance that lost its serving lock (its connection to PostgreSQL broke) and took
 * it again: a rotation may have run in between. If the store is no longer under this instance's
 * key it must stop at once, since whatever it sealed from then on would be under a key the store
 * no longer has. Crash-only, like a failed commit (store/engine/open.ts): a supervisor's restart is
 * refused with the message that names PAYINTAKE_MASTER_KEY.
 */
export function stopIfKeyMoved(masterKey: MasterKeyChoice, keys: StoreKeyRepository): () => Promise<void> {
  const key = Buffer.from(masterKey.hex, "hex");
  return async () => {
    const recorded = await keys.masterCheck();
    if (recorded === undefined || isCheckOf(key, recorded)) return;
    process.stderr.write(
      "payintake: fatal: the store's secrets were sealed again under another master key while this instance was disconnected from the database; start it with the new PAYINTAKE_MASTER_KEY\n",
    );
    process.exit(2);
  };
}
