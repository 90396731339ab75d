/**
 * `payintake master-key rotate`: seals every secret at rest again under a new master key, with no
 * server running on the store (crypto/master-key-rotation.ts has the transaction). The current key
 * is found as `serve` finds it; the new one is PAYINTAKE_NEW_MASTER_KEY, or, for a key kept in the
 * embedded store's master.key, one generated with --generate.
 */
import { join, resolve } from "node:path";
import { type Config, ConfigError } from "../config/config.js";
import {
  newLocalSecret,
  readLocalSecret,
  removeLocalSecret,
  replaceLocalSecret,
  saveLocalSecretDurably,
} from "../config/local-secrets.js";
import { isCheckOf } from "../crypto/key-check.js";
import { rotateMasterKey, UnopenableSecretError } from "../crypto/master-key-rotation.js";
import { openStore, StoreLockedError } from "../store/engine/open.js";
import { keyCheck } from "../store/migrations/20261124T2100_key_check.js";
import { createSealedSecretsStore } from "../store/sealed-secrets.js";
import { createStoreKeyRepository } from "../store/store-keys.js";
import { type Flags, UsageError } from "./commands.js";
import { finishKeyFileRotation } from "./master-key.js";

/** A refusal the operator can act on: printed as it is, with its exit code, and nothing changed. */
export class RotationRefused extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

export interface RotationReport {
  rotated: true;
  secrets: number;
  by_column: Record<string, number>;
  /** Where the new key was written (the embedded store's master.key). */
  key_file?: string;
  /** Only when generated here: the one time it is shown. */
  new_master_key?: string;
}

const NOTHING_CHANGED = "nothing was changed";

export async function rotateCommand(config: Config, flags: Flags, actor: string): Promise<RotationReport> {
  const generate = readGenerateFlag(flags);
  // Kept in the data directory: the embedded store with no PAYINTAKE_MASTER_KEY, as `serve` runs it.
  const inFile = config.masterKeyHex === undefined && config.databaseUrl === undefined;
  if (config.databaseUrl !== undefined && config.masterKeyHex === undefined)
    throw new ConfigError(
      "invalid configuration:\n  PAYINTAKE_MASTER_KEY: required with DATABASE_URL (the key the store is sealed with now)",
    );
  if (generate && config.newMasterKeyHex !== undefined)
    throw new UsageError("give the new key in PAYINTAKE_NEW_MASTER_KEY or ask for --generate, not both");
  if (!generate && config.newMasterKeyHex === undefined)
    throw new UsageError(
      `the new key is missing: set PAYINTAKE_NEW_MASTER_KEY (64 hex characters: openssl rand -hex 32)${inFile ? " or pass --generate" : ""}`,
    );
  // A generated key must be on disk before the store is sealed under it: in master.key, written
  // before the commit. One that only this command's output would hold is lost if the output is
  // (a closed terminal, a COMMIT whose answer never came), and the store with it.
  if (generate && !inFile)
    throw new UsageError(
      "--generate is for the embedded store's master.key; with PAYINTAKE_MASTER_KEY, generate the new key first (openssl rand -hex 32), keep it where the current one is kept, and pass it as PAYINTAKE_NEW_MASTER_KEY",
    );

  const store = await openStore(config).catch((err: unknown) => {
    if (err instanceof StoreLockedError)
      throw new RotationRefused(
        `a payintake server is running on the data directory ${resolve(config.dataDir)}: stop it, then rotate; ${NOTHING_CHANGED}`,
        1,
      );
    throw err;
  });
  try {
    // Nothing is written, migrations included, until the current key is known to be the store's:
    // a newer version run with a wrong key must not migrate a store it then refuses to rotate. A
    // store from before the key check has nothing to compare with: it is refused below.
    const keys = createStoreKeyRepository(store.db);
    const keysKept = (await store.appliedMigrations()).includes(keyCheck.version);
    if (inFile && keysKept) finishKeyFileRotation(config.dataDir, await keys.masterCheck());
    const currentHex = config.masterKeyHex ?? readLocalSecret(config.dataDir, "master.key");
    const keyFile = resolve(join(config.dataDir, "master.key"));
    if (currentHex === undefined)
      throw new ConfigError(
        `invalid configuration:\n  PAYINTAKE_MASTER_KEY: not set, and there is no ${keyFile}: the current key is needed to open the secrets`,
      );
    const nextHex = config.newMasterKeyHex ?? newLocalSecret(32);
    const current = Buffer.from(currentHex, "hex");
    const next = Buffer.from(nextHex, "hex");
    if (current.equals(next)) throw new UsageError("PAYINTAKE_NEW_MASTER_KEY is the current master key");

    // Checked before anything is written; the transaction checks again.
    const recorded = keysKept ? await keys.masterCheck() : undefined;
    if (recorded === undefined) throw noCheck();
    if (!isCheckOf(current, recorded)) throw otherKey(inFile, keyFile);
    await store.migrate();

    const now = (await store.databaseTime()) ?? Date.now();
    if (inFile) saveLocalSecretDurably(config.dataDir, "master.key.new", nextHex);
    let result: Awaited<ReturnType<typeof rotateMasterKey>>;
    try {
      result = await rotateMasterKey(
        {
          transaction: createSealedSecretsStore(store).transaction,
          now: () => now,
          actor,
        },
        current,
        next,
      );
      if (result.outcome !== "rotated") throw refusal(result.outcome, inFile, keyFile);
    } catch (err) {
      // Rolled back (or never begun): the store is under the current key, which master.key holds.
      if (inFile) removeLocalSecret(config.dataDir, "master.key.new");
      if (err instanceof UnopenableSecretError)
        throw new RotationRefused(
          `${err.message}: the store holds a value the current key cannot open; ${NOTHING_CHANGED}`,
          1,
        );
      throw err;
    }
    // Durable first (the embedded store commits in groups), then the file follows the store.
    await store.settle();
    if (inFile) replaceLocalSecret(config.dataDir, "master.key.new", "master.key");
    return {
      rotated: true,
      secrets: result.secrets,
      by_column: result.byColumn,
      ...(inFile ? { key_file: keyFile } : {}),
      ...(generate ? { new_master_key: nextHex } : {}),
    };
  } finally {
    await store.close();
  }
}

/** Whether --generate was given, refusing any other option: the CLI checks it before the configuration too. */
export function readGenerateFlag(flags: Flags): boolean {
  for (const name of Object.keys(flags))
    if (name !== "generate" && name !== "operator")
      throw new UsageError(`unknown option --${name} for this command`);
  if (flags.generate !== undefined && flags.generate !== true)
    throw new UsageError("--generate takes no value");
  return flags.generate === true;
}

function noCheck(): RotationRefused {
  return new RotationRefused(
    `this store records no master key check yet, so the current key cannot be confirmed: start payintake serve once with it (the check is recorded at start), stop it, then rotate; ${NOTHING_CHANGED}`,
    1,
  );
}

/** Exit 2 and PAYINTAKE_MASTER_KEY named, as `serve` refuses a wrong key. */
function otherKey(inFile: boolean, keyFile: string): RotationRefused {
  const which = inFile ? `not set, and the key in ${keyFile}` : "the current key";
  return new RotationRefused(
    `invalid configuration:\n  PAYINTAKE_MASTER_KEY: ${which} is not the key this store's secrets are sealed with; ${NOTHING_CHANGED}`,
    2,
  );
}

function refusal(outcome: "no_check" | "other_key" | "in_use", inFile: boolean, keyFile: string) {
  switch (outcome) {
    case "no_check":
      return noCheck();
    case "other_key":
      return otherKey(inFile, keyFile);
    case "in_use":
      return new RotationRefused(
        `a payintake server is running on this database (it holds the serving lock): stop every instance, then rotate; ${NOTHING_CHANGED}`,
        1,
      );
  }
}
