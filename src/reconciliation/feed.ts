/**
 * The live statement feed (docs/reconciliation.md): a connector at the bank posts each line as it
 * lands, signed with a secret made for that one account and shown once. Operators see when each
 * feed last spoke, and a feed silent longer than its account allows is flagged to them.
 */
import { randomBytes } from "node:crypto";
import { sealContext } from "../crypto/seal-context.js";
import type { SecretBox } from "../crypto/secret-box.js";
import { verifyFeedRequest } from "../crypto/signature.js";
import type { Outcome } from "../domain/refusal.js";
import { notFound } from "../domain/refusal.js";
import { DEFAULT_SILENCE_MINUTES, feedSilent } from "../domain/statement-lines.js";
import type { FeedRow } from "../store/statements/statement-feeds.js";
import type { ReconcileDeps } from "./line-matcher.js";

export interface FeedDeps extends ReconcileDeps {
  box: SecretBox;
}

/** How far a request's timestamp may be from ours: a replay within it only repeats known lines. */
export const FEED_SKEW_S = 300;

const newFeedSecret = () => `fs_${randomBytes(32).toString("base64url")}`;

/** A new secret for the account's feed (the old one stops at once), shown here only. */
export async function makeFeedSecret(
  deps: FeedDeps,
  accountId: number,
  silenceMinutes: number | undefined,
  actor: string,
): Promise<Outcome<{ account_id: number; secret: string; silence_minutes: number }>> {
  const existing = await deps.repos.feeds.get(accountId);
  if (!existing) return notFound("account");
  const secret = newFeedSecret();
  const silence = silenceMinutes ?? existing.silence_minutes ?? DEFAULT_SILENCE_MINUTES;
  const row = await deps.repos.audited.update(
    "payment_accounts",
    accountId,
    {
      feed_secret_sealed: deps.box.seal(secret, sealContext.feedSecret(accountId)),
      feed_silence_minutes: silence,
      updated_at: deps.now(),
    },
    { actor, action: "account.feed_secret", at: deps.now() },
  );
  if (!row) return notFound("account");
  return { ok: true, value: { account_id: accountId, secret, silence_minutes: silence } };
}

export type FeedCheck = { ok: true } | { ok: false; status: 401; message: string };

const refused = (message: string): FeedCheck => ({ ok: false, status: 401, message });

/**
 * Whether a request is the account's feed speaking: a secret set, the timestamp near ours and the
 * signature over it, the path and the body. One answer for every failure of the secret, so a
 * stranger learns nothing of which accounts have a feed.
 */
export function checkFeedRequest(
  deps: Pick<FeedDeps, "box" | "now">,
  feed: FeedRow | undefined,
  parts: { timestamp: string | undefined; signature: string | undefined; path: string; body: Uint8Array },
): FeedCheck {
  const { timestamp, signature } = parts;
  if (timestamp === undefined || signature === undefined)
    return refused("Send X-Feed-Timestamp and X-Feed-Signature");
  if (!/^\d{1,12}$/.test(timestamp)) return refused("X-Feed-Timestamp: Unix time in seconds");
  if (Math.abs(Number(timestamp) - deps.now() / 1000) > FEED_SKEW_S)
    return refused(`X-Feed-Timestamp is more than ${FEED_SKEW_S} seconds from the server's time`);
  let secret: string | undefined;
  if (feed?.secret_sealed) {
    try {
      secret = deps.box.open(feed.secret_sealed, sealContext.feedSecret(feed.account_id));
    } catch {
      secret = undefined;
    }
  }
  const valid =
    secret !== undefined &&
    verifyFeedRequest(secret, { timestamp, path: parts.path, body: parts.body }, signature);
  return valid ? { ok: true } : refused("Invalid feed signature");
}

/** Each feed as operators see it: when it last spoke, and whether it is silent too long. */
export function feedView(row: FeedRow, now: number) {
  const silence = row.silence_minutes ?? DEFAULT_SILENCE_MINUTES;
  return {
    account_id: row.account_id,
    bank_name: row.bank_name,
    iban: row.iban,
    silence_minutes: silence,
    last_at: row.last_at === null ? null : new Date(row.last_at).toISOString(),
    silent: feedSilent(row, now),
  };
}

export type FeedView = ReturnType<typeof feedView>;

export async function feeds(deps: Pick<FeedDeps, "repos" | "now">) {
  const now = deps.now();
  return (await deps.repos.feeds.list()).map((row) => feedView(row, now));
}
