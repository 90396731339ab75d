/**
 * Tells whether the master key a server was started with is the one the store's secrets are sealed
 * with. Without this a server given another key would start, say it is ready, and then fail every
 * signed request of an existing firm with a 500 while sealing everything new under the other key,
 * leaving the store with secrets under two keys.
 *
 * The store keeps a check value: HMAC-SHA256 of a fixed label under the key, never the key. It
 * tells keys apart and gives no help in recovering one: finding the key from it means searching all
 * 2^256 keys, no easier than from any sealed secret beside it. Still, it is never logged.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { openOrUndefined, type SecretBox } from "./secret-box.js";

const LABEL = "payintake master key check v1";

export function masterKeyCheck(masterKey: Buffer): string {
  return `v1:${createHmac("sha256", masterKey).update(LABEL).digest("hex")}`;
}

export function sameCheck(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Whether `check` (as the store keeps it) is this key's. */
export function isCheckOf(masterKey: Buffer, check: string): boolean {
  return sameCheck(masterKeyCheck(masterKey), check);
}

/**
 * matched: the store's check is this key's. recorded: the store had none; this key's is now
 * recorded. other_key: the store's check is another key's. cannot_open: the store had no check and
 * this key cannot open a secret already sealed in it.
 */
export type KeyCheckOutcome = "matched" | "recorded" | "other_key" | "cannot_open";

export interface KeyCheckPorts {
  recorded(): Promise<string | undefined>;
  /** Records the check unless one is there; returns the one recorded (it may be another instance's). */
  record(check: string): Promise<string>;
  /** A value sealed in the store, with the context it is sealed for (crypto/seal-context.ts). */
  oldestSealedSecret(): Promise<{ sealed: string; context: string } | undefined>;
  /**
   * Called once the key is known to fit and before its check is recorded: a key generated for
   * this start is saved here, so no check is ever recorded for a key that was lost in a crash.
   */
  beforeRecording(): void;
}

export async function checkMasterKey(
  masterKey: Buffer,
  box: SecretBox,
  ports: KeyCheckPorts,
): Promise<KeyCheckOutcome> {
  const check = masterKeyCheck(masterKey);
  const recorded = await ports.recorded();
  if (recorded !== undefined) return sameCheck(recorded, check) ? "matched" : "other_key";
  // No check yet: a fresh store, or one written before checks were kept. Recording this key's is
  // right for the latter because its previous start had to use the key its secrets are sealed
  // with for them to be readable; a secret that this key cannot open shows that it was not (this
  // also refuses a store that was already started with a wrong key before the check existed).
  const oldest = await ports.oldestSealedSecret();
  if (oldest !== undefined && openOrUndefined(box, oldest.sealed, oldest.context) === undefined)
    return "cannot_open";
  ports.beforeRecording();
  return sameCheck(await ports.record(check), check) ? "recorded" : "other_key";
}
