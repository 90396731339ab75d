import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * Seals secrets at rest (firm and channel secrets, authenticator secrets, national ids, payment
 * pages' requests, the payment codes' key) with AES-256-GCM under the master key.
 *
 * Format "v2:" + base64url(iv | tag | ciphertext), sealed with a context (crypto/seal-context.ts:
 * the value's purpose and row) as GCM additional data: it opens only with that same context, so a
 * value copied into another row fails as a tampered one does. "v1:" values, written before
 * contexts (docs/adr/0009-sealed-value-context.md), have none and open with any context; nothing
 * writes v1, and a master key rotation re-seals them as v2.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Throws when the value does not open: altered, sealed for another place, or under another key. */
  open(sealed: string, context: string): string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;
const IVS_PER_DRAW = 512;

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== 32) throw new Error("the master key must be 32 bytes");
  // Random IVs drawn 512 at a time: one call into the CSPRNG per 512 seals instead of one per seal,
  // whose cost shows in every deposit (docs/BENCHMARKS.md). Each IV is handed out exactly once.
  let ivs = Buffer.alloc(0);
  let next = 0;
  function freshIv(): Buffer {
    if (next >= ivs.length) {
      ivs = randomBytes(IV_BYTES * IVS_PER_DRAW);
      next = 0;
    }
    const iv = ivs.subarray(next, next + IV_BYTES);
    next += IV_BYTES;
    return iv;
  }
  return {
    seal(plaintext, context) {
      // An empty context binds the value to nothing: a bug, never a choice.
      if (context === "") throw new Error("a sealed value needs a context");
      const iv = freshIv();
      const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
      cipher.setAAD(Buffer.from(context, "utf8"));
      const head = cipher.update(plaintext, "utf8");
      const tail = cipher.final();
      return `v2:${Buffer.concat([iv, cipher.getAuthTag(), head, tail]).toString("base64url")}`;
    },
    open(sealed, context) {
      const v2 = sealed.startsWith("v2:");
      if (!v2 && !sealed.startsWith("v1:")) throw new Error("unknown sealed-secret format");
      const raw = Buffer.from(sealed.slice(3), "base64url");
      if (raw.length < IV_BYTES + TAG_BYTES) throw new Error("sealed secret too short");
      // The tag length fixed: GCM would otherwise check a tag cut to 4 bytes, far easier to forge.
      const decipher = createDecipheriv("aes-256-gcm", masterKey, raw.subarray(0, IV_BYTES), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      if (v2) decipher.setAAD(Buffer.from(context, "utf8"));
      return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString(
        "utf8",
      );
    },
  };
}

/**
 * `open`, or undefined for a value that does not open: where a value moved or altered in the
 * database is to be refused like a wrong credential, not answered with a 500 on every request.
 */
export function openOrUndefined(box: SecretBox, sealed: string, context: string): string | undefined {
  try {
    return box.open(sealed, context);
  } catch {
    return undefined;
  }
}

export class SealingPausedError extends Error {}

/**
 * The same box, whose seal refuses while `allowed()` is false: on PostgreSQL, while the instance's
 * serving lock is lost (store/engine/serving-lock.ts) a master key rotation may be running, and a secret
 * sealed then under this instance's key would stay under the old key for good. The request fails
 * (before it writes anything) instead; opening goes on.
 */
export function sealOnlyWhile(box: SecretBox, allowed: () => boolean): SecretBox {
  return {
    seal(plaintext, context) {
      if (!allowed())
        throw new SealingPausedError(
          "sealing paused: this instance's serving lock is lost (the database connection broke); it is taken again within seconds",
        );
      return box.seal(plaintext, context);
    },
    open: (sealed, context) => box.open(sealed, context),
  };
}
