import type { FastifyReply, FastifyRequest } from "fastify";
import { verifyRequestSignature } from "../../crypto/signature.js";
import type { Firm } from "../../domain/firm.js";
import type { RateLimiter } from "../../http/rate-limit/rate-limiter.js";
import type { NonceRepository } from "../../store/transactions/nonces.js";
import { type AuthFault, signatureFault, signedFacts } from "../auth-faults.js";
import type { FirmDirectory } from "../firm-directory.js";
import { refuseAuthentication } from "./auth-refusals.js";
import { sendMerchantRefusal } from "./rejection-responses.js";

export const TIMESTAMP_WINDOW_S = 300;

/** Within ±300 s of the server's clock, compared in whole seconds. */
export function timestampAccepted(timestampS: number, nowMs: number): boolean {
  return Math.abs(timestampS - Math.floor(nowMs / 1000)) <= TIMESTAMP_WINDOW_S;
}

/**
 * When a nonce may be forgotten: the first millisecond its timestamp is refused. The check above
 * compares whole seconds, so a timestamp is still accepted for the whole second after ts + 300 s;
 * a nonce dropped at ts + 300 s could be replayed during that second.
 */
export function nonceExpiresAt(timestampS: number): number {
  return (timestampS + TIMESTAMP_WINDOW_S + 1) * 1000;
}

const EMPTY = Buffer.alloc(0);

/** A nonce this firm used already: refused here and by the intake routes, which use it up themselves. */
export const NONCE_REUSED: AuthFault = { reason: "nonce_reused", facts: {} };

export interface AuthDeps {
  firms: FirmDirectory;
  repos: { nonces: NonceRepository };
  rateLimiter: RateLimiter;
  now(): number;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return typeof v === "string" ? v : undefined;
}

/** A verified request's nonce, not yet used up. */
export interface PendingNonce {
  value: string;
  /** Kept until its timestamp is refused (nonceExpiresAt): from then the timestamp check refuses a replay. */
  expiresAt: number;
}

/** Which rate limit a request counts against: its firm's key and requests per second. */
export interface RateBucket {
  key(firm: Firm): number | string;
  perSecond(firm: Firm): number;
}

/** The firm's own limit (its `rate_limit`): deposits, withdrawals, queries, the sandbox helpers. */
export const FIRM_BUCKET: RateBucket = {
  key: (firm) => firm.id,
  perSecond: (firm) => firm.rateLimitPerSecond,
};

/**
 * Authenticates a signed merchant request in the order decisions.md fixes: key, active, headers
 * present, timestamp window, nonce length, signature, rate limit (the firm's own unless a route
 * counts in a bucket of its own); then the nonce must be used up (by the caller: `authenticate`
 * below, or the intake routes, which do it in the same round trip as their business reads). A
 * request that fails any check cannot burn a nonce. Undefined after answering.
 */
export async function verifyRequest(
  deps: AuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  bucket: RateBucket = FIRM_BUCKET,
): Promise<{ firm: Firm; nonce: PendingNonce } | undefined> {
  const apiKey = header(request, "x-api-key");
  const firm = apiKey ? await deps.firms.findByApiKey(apiKey) : undefined;
  if (!firm) return refuseAuthentication(request, reply, undefined, { reason: "api_key_unknown", facts: {} });
  if (!firm.active)
    return refuseAuthentication(request, reply, firm, { reason: "api_key_inactive", facts: {} });

  const signature = header(request, "x-signature");
  const timestamp = header(request, "x-timestamp");
  const nonce = header(request, "x-nonce");
  if (!signature || !timestamp || !nonce) {
    const missing = AUTH_HEADERS.filter((name) => !header(request, name))
      .map((name) => HEADER_NAMES[name])
      .join(",");
    return refuseAuthentication(request, reply, firm, { reason: "missing_headers", facts: { missing } });
  }
  const early = timestampOrNonceFault(timestamp, nonce, deps.now());
  if (early) return refuseAuthentication(request, reply, firm, early);

  const path = request.url.split("?", 1)[0] ?? "";
  const body = Buffer.isBuffer(request.body) ? request.body : EMPTY;
  const parts = { method: request.method, path, body, timestamp, nonce };
  // A firm whose sealed secret does not open (Firm.secret) has no signature that verifies.
  if (firm.secret === null) {
    return refuseAuthentication(request, reply, firm, { reason: "secret_unavailable", facts: {} });
  }
  if (!verifyRequestSignature(firm.secret, parts, signature)) {
    // Only a test firm is shown what was signed; the log names the request by method and path.
    const facts = firm.sandbox ? signedFacts(parts) : { method: parts.method, path };
    return refuseAuthentication(request, reply, firm, signatureFault(signature, facts));
  }

  const retryAfter = await deps.rateLimiter.take(bucket.key(firm), bucket.perSecond(firm));
  if (retryAfter > 0) {
    reply.header("retry-after", String(retryAfter));
    return void sendMerchantRefusal(reply, "too_many_requests");
  }

  return { firm, nonce: { value: nonce, expiresAt: nonceExpiresAt(Number(timestamp)) } };
}

/** The headers every signed request carries besides X-API-Key, as the hint names the missing ones. */
const AUTH_HEADERS = ["x-signature", "x-timestamp", "x-nonce"] as const;
/** As the contract writes them: a log line then never holds a header's lookup key (test/hostile/fuzz.test.ts). */
const HEADER_NAMES = {
  "x-signature": "X-Signature",
  "x-timestamp": "X-Timestamp",
  "x-nonce": "X-Nonce",
} as const;

/** The timestamp's form and window, then the nonce's length, in the contract's order; null when both pass. */
function timestampOrNonceFault(timestamp: string, nonce: string, nowMs: number): AuthFault | null {
  const serverTime = Math.floor(nowMs / 1000);
  if (!/^\d{1,12}$/.test(timestamp)) {
    return {
      reason: "timestamp_malformed",
      facts: { timestamp: timestamp.slice(0, 32), server_time: serverTime },
    };
  }
  if (!timestampAccepted(Number(timestamp), nowMs)) {
    const facts = { timestamp, server_time: serverTime, window_s: TIMESTAMP_WINDOW_S };
    return { reason: "timestamp_outside_window", facts };
  }
  if (nonce.length < 8 || nonce.length > 64)
    return { reason: "nonce_length", facts: { length: nonce.length } };
  return null;
}

/** verifyRequest, then the nonce used up: the whole of authentication. Undefined after answering. */
export async function authenticate(
  deps: AuthDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  bucket: RateBucket = FIRM_BUCKET,
): Promise<Firm | undefined> {
  const verified = await verifyRequest(deps, request, reply, bucket);
  if (!verified) return undefined;
  const { firm, nonce } = verified;
  if (!(await deps.repos.nonces.record(firm.id, nonce.value, nonce.expiresAt)))
    return refuseAuthentication(request, reply, firm, NONCE_REUSED);
  return firm;
}
