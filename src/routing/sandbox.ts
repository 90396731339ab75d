/**
 * Sandbox deposits take every outcome routing has, chosen by the amount's kuruş like Stripe's
 * test card numbers: .91 the channel declines, .92 no account takes the amount; anything else is
 * accepted on the sandbox account. Documented in docs/sandbox.md.
 */
export type SandboxRouting = "accept" | "channel_declined" | "no_account";

export const SANDBOX_DECLINE_KURUS = 91;
export const SANDBOX_NO_ACCOUNT_KURUS = 92;

export function sandboxRouting(amountMinor: number): SandboxRouting {
  const kurus = amountMinor % 100;
  if (kurus === SANDBOX_DECLINE_KURUS) return "channel_declined";
  if (kurus === SANDBOX_NO_ACCOUNT_KURUS) return "no_account";
  return "accept";
}
