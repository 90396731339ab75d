/** What every management change shares: its refusals, its dependencies and its checks. */
import { randomBytes } from "node:crypto";
import type { SecretBox } from "../crypto/secret-box.js";
import { ADMIN_API } from "../domain/actors.js";
import { type Outcome, type Refusal, refusal } from "../domain/refusal.js";
import type { TargetCheck } from "../net/callback-target.js";
import type { Repositories } from "../store/index.js";

export type { Outcome, Refusal };
export { ADMIN_API };

export interface ManagementDeps {
  repos: Repositories;
  box: SecretBox;
  callbackTargetAllowed: TargetCheck;
  /** Channels must be https (off only with PAYINTAKE_ALLOW_PRIVATE_CALLBACKS, for development). */
  httpsChannelsOnly: boolean;
  /** Called after any change a cached firm lookup might hold, so this instance sees it at once. */
  firmsChanged(): void;
  /** Called after any change to the payment accounts, so this instance routes by it at once. */
  accountsChanged(): void;
  /** Breaker state per channel id on this instance. */
  channelHealth(): ReadonlyMap<number, string>;
  now(): number;
}

export const newApiKey = () => `pk_${randomBytes(18).toString("base64url")}`;
export const newSecretKey = () => `sk_${randomBytes(32).toString("base64url")}`;

export const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);
export const PROVIDER_URL_KINDS = "only platform and aggregator providers have a central callback URL";

/** The audit entry of a change `actor` makes now. */
export const auditEntry = (deps: ManagementDeps, actor: string, action: string) => ({
  actor,
  action,
  at: deps.now(),
});

/** A channel code to its id: null for none, undefined when no such channel exists. */
export async function channelId(
  deps: ManagementDeps,
  code: string | null | undefined,
): Promise<number | null | undefined> {
  if (code === null || code === undefined) return null;
  return (await deps.repos.channels.byCode(code))?.id;
}

export async function checkCallbackTarget(
  deps: ManagementDeps,
  url: string | null | undefined,
  what = "Callback URL",
): Promise<Refusal | null> {
  if (url === null || url === undefined) return null;
  if (!(await deps.callbackTargetAllowed(url)))
    return refusal(
      "url_not_allowed",
      `${what} is not allowed: it must be http or https to a public address; a server started with PAYINTAKE_ALLOW_PRIVATE_CALLBACKS=true also takes private and local ones (for development)`,
    );
  return null;
}

/**
 * A channel's URL: public, like callbacks (net/guarded-agent.ts checks again at every connection),
 * and https, because asks carry payers' names and accounts' IBANs.
 */
export async function checkChannelUrl(
  deps: ManagementDeps,
  url: string | null | undefined,
): Promise<Refusal | null> {
  if (url && deps.httpsChannelsOnly && !url.toLowerCase().startsWith("https:")) {
    return refusal(
      "channel_url_not_https",
      "Channel URL must use https (asks carry payers' names and IBANs)",
    );
  }
  return checkCallbackTarget(deps, url, "Channel URL");
}

export function checkRange(min: number | null | undefined, max: number | null | undefined): Refusal | null {
  if (min != null && max != null && min > max)
    return refusal("min_above_max", "the minimum must not exceed the maximum");
  return null;
}
