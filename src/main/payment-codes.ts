import { randomBytes } from "node:crypto";
import { sealContext } from "../crypto/seal-context.js";
import type { SecretBox } from "../crypto/secret-box.js";
import { createPaymentCodes, type PaymentCodes } from "../domain/payment-code.js";
import {
  PAYMENT_CODE_KEY_ROW,
  type PaymentCodeKeyRepository,
} from "../store/statements/payment-code-keys.js";

const KEY_BYTES = 32;

/**
 * The store's payment codes (docs/adr/0015-keyed-payment-codes.md): its key is opened with the
 * master key, or, at the first start after the migration, made, sealed and recorded. Several
 * instances starting at once each seal a key of their own, one is recorded, and each opens the one
 * recorded: no instance ever shows a code under a key the store does not keep.
 */
export async function loadPaymentCodes(
  keys: PaymentCodeKeyRepository,
  box: SecretBox,
  now: () => number,
): Promise<PaymentCodes> {
  const context = sealContext.paymentCodeKey(PAYMENT_CODE_KEY_ROW);
  const stored = await keys.read();
  const sealed =
    stored.sealed ?? (await keys.recordKey(box.seal(randomBytes(KEY_BYTES).toString("hex"), context), now()));
  let hex: string;
  try {
    hex = box.open(sealed, context);
  } catch {
    // The master key was checked already: the value was altered or copied in from elsewhere.
    throw new Error(
      "the payment code key (payment_code_keys.key_sealed) does not open with the master key: it was altered or copied from another store; see docs/operations.md, Payment code key",
    );
  }
  return createPaymentCodes({ key: Buffer.from(hex, "hex"), legacyThrough: stored.legacyThrough });
}
