/**
 * Moves every secret sealed at rest from one master key to another. It is one database
 * transaction: each sealed value is opened with the current key and sealed again under the new one,
 * and the store's key check becomes the new key's, all committed together or not at all. A crash
 * or a failure at any point leaves the store wholly under the current key (nothing committed) or
 * wholly under the new one, and the check always names the key that opens it; there is never a
 * store with secrets under two keys.
 *
 * The current key is checked against the store's check inside that transaction, with no server on
 * the store (the ports see to that): a wrong key changes nothing.
 */
import { isCheckOf, masterKeyCheck } from "./key-check.js";
import { createSecretBox } from "./secret-box.js";

export type RotationOutcome =
  | { outcome: "rotated"; secrets: number; byColumn: Record<string, number> }
  /** The store has no check to compare the current key with (never started since checks exist). */
  | { outcome: "no_check" }
  /** The current key is not the one the store is sealed with. */
  | { outcome: "other_key" }
  /** A server is running on the store. */
  | { outcome: "in_use" };

export interface RotationTransaction {
  masterCheck(): Promise<string | undefined>;
  resealAll(
    reseal: (sealed: string, context: string, where: string) => string,
  ): Promise<Record<string, number>>;
  replaceMasterCheck(check: string, now: number): Promise<void>;
  audit(entry: { actor: string; action: string; at: number }, after: Record<string, unknown>): Promise<void>;
}

export interface RotationPorts {
  /** One transaction with no server on the store; "in_use" when one is. Throwing rolls it back. */
  transaction<T>(work: (tx: RotationTransaction) => Promise<T>): Promise<T | "in_use">;
  now(): number;
  actor: string;
}

/** A sealed value the current key does not open: the rotation stops and nothing is changed. */
export class UnopenableSecretError extends Error {
  constructor(readonly where: string) {
    super(`${where} does not open with the current master key`);
  }
}

export async function rotateMasterKey(
  ports: RotationPorts,
  currentKey: Buffer,
  newKey: Buffer,
): Promise<RotationOutcome> {
  const current = createSecretBox(currentKey);
  const next = createSecretBox(newKey);
  // Opened and sealed again for the same row (crypto/seal-context.ts): a v1 value, written before
  // contexts, leaves as v2, so after a rotation none is left; a v2 value moved to another row does
  // not open for this one and stops the rotation, as any value that does not open.
  const reseal = (sealed: string, context: string, where: string) => {
    let plain: string;
    try {
      plain = current.open(sealed, context);
    } catch {
      throw new UnopenableSecretError(where);
    }
    return next.seal(plain, context);
  };
  const result = await ports.transaction(async (tx): Promise<RotationOutcome> => {
    const recorded = await tx.masterCheck();
    if (recorded === undefined) return { outcome: "no_check" };
    if (!isCheckOf(currentKey, recorded)) return { outcome: "other_key" };
    const byColumn = await tx.resealAll(reseal);
    const secrets = Object.values(byColumn).reduce((a, b) => a + b, 0);
    const at = ports.now();
    await tx.replaceMasterCheck(masterKeyCheck(newKey), at);
    // The count only: the log never holds a key or its check.
    await tx.audit(
      { actor: ports.actor, action: "store.rotate_master_key", at },
      { master_key: "rotated", secrets },
    );
    return { outcome: "rotated", secrets, byColumn };
  });
  return result === "in_use" ? { outcome: "in_use" } : result;
}
