/**
 * `POST /feed/v1/accounts/{id}/lines`: a bank connector reports lines as they land
 * (docs/reconciliation.md, "The live feed"). Signed with the account's feed secret; every line is
 * checked before any is written, so a request is taken whole or not at all.
 */
import type { FastifyInstance } from "fastify";
import { refusal } from "../../domain/refusal.js";
import { parseJsonBody } from "../../http/body.js";
import { sendJson } from "../../http/envelope.js";
import { recordIdOf } from "../../http/operator-fields.js";
import { sendRefusal } from "../../http/operator-io.js";
import { minorUnits } from "../amounts.js";
import { checkFeedRequest, type FeedDeps } from "../feed.js";
import type { StatementLine } from "../statement.js";
import { type BalanceDoubt, balanceDoubt } from "../statement-file.js";
import { readTypedLines, recordLines } from "../typed-lines.js";
import { type FeedBatch, feedBodyOf } from "./line-schemas.js";

export const FEED_BODY_LIMIT_BYTES = 1024 * 1024;

export function registerFeedRoutes(app: FastifyInstance, deps: FeedDeps): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      "*",
      { parseAs: "buffer", bodyLimit: FEED_BODY_LIMIT_BYTES },
      (_request, body, done) => done(null, body),
    );

    scope.post<{ Params: { id: string } }>("/feed/v1/accounts/:id/lines", async (request, reply) => {
      const accountId = recordIdOf(request.params.id);
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const feed = accountId === undefined ? undefined : await deps.repos.feeds.get(accountId);
      const checked = checkFeedRequest(deps, feed, {
        timestamp: header(request.headers["x-feed-timestamp"]),
        signature: header(request.headers["x-feed-signature"]),
        path: request.url.split("?")[0] ?? request.url,
        body,
      });
      if (!checked.ok || accountId === undefined) {
        const message = checked.ok ? "Invalid feed signature" : checked.message;
        return sendRefusal(reply, refusal("invalid_feed_signature", message));
      }
      await deps.repos.feeds.spoke(accountId, deps.now());
      const json = parseJsonBody(request);
      if (!json.ok) return sendRefusal(reply, refusal("invalid_json", "request body is not valid JSON"));
      const shaped = feedBodyOf(json.value);
      if (!shaped.ok) return sendRefusal(reply, refusal("invalid_input", shaped.message));
      const read = readTypedLines(shaped.value.lines, deps.now());
      if (!read.ok) return sendRefusal(reply, refusal("invalid_input", read.message));
      const unbalanced = batchDoubt(shaped.value, read.lines);
      const recorded = await recordLines(
        deps,
        accountId,
        read.lines,
        "feed",
        unbalanced && {
          code: "unbalanced",
          differenceMinor: unbalanced.differenceMinor,
          why: `an unbalanced batch approves nothing: ${unbalanced.message}`,
        },
      );
      if (!recorded.ok) return sendRefusal(reply, recorded);
      return sendJson(reply, 200, { ...recorded.value, doubts: unbalanced ? [unbalanced.message] : [] });
    });
  });
}

const header = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);

/** A batch that names its balances: whether its lines add up to them (null when they do, or none). */
function batchDoubt(batch: FeedBatch, lines: readonly StatementLine[]): BalanceDoubt | null {
  if (batch.opening_balance === undefined || batch.closing_balance === undefined) return null;
  const signed = (text: string) =>
    (text.startsWith("-") ? -1 : 1) * (minorUnits(text.replace(/^-/, "")) ?? 0);
  const moved = lines.reduce(
    (sum, l) => sum + (l.direction === "credit" ? l.amountMinor : -l.amountMinor),
    0,
  );
  return balanceDoubt(
    { openingMinor: signed(batch.opening_balance), closingMinor: signed(batch.closing_balance) },
    moved,
  );
}
