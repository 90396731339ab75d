import { createCipheriv, randomBytes } from "node:crypto";

/**
 * A value as versions before sealing contexts wrote it (v1: AES-256-GCM with no additional data),
 * made here independently of src/crypto/secret-box.ts, which no longer writes them: stores written
 * then must still open.
 */
export function sealV1(masterKey: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", masterKey, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url")}`;
}
