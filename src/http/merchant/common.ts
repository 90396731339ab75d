import { isUtf8 } from "node:buffer";
import type { FastifyRequest } from "fastify";
import { resolveCallbackUrl } from "../../domain/callback-url.js";
import type { Firm } from "../../domain/firm.js";
import type { AppContext } from "../context.js";

/**
 * Step 2 of the order of checks: resolve the callback URL (provider, X-Callback-URL, webhook) and
 * make sure it is a public address. The URL, or the 400 message to answer.
 */
export async function resolveCallback(
  ctx: AppContext,
  firm: Firm,
  request: FastifyRequest,
): Promise<{ ok: true; url: string } | { ok: false; message: string }> {
  const headerValue = request.headers["x-callback-url"];
  const headerUrl = typeof headerValue === "string" && headerValue.trim() !== "" ? headerValue.trim() : null;
  const resolved = resolveCallbackUrl({
    providerUrl: firm.providerCallbackUrl,
    headerUrl,
    webhookUrl: firm.webhookUrl,
  });
  if (!resolved.ok) {
    return {
      ok: false,
      message:
        resolved.error === "header_host_mismatch"
          ? "X-Callback-URL must match the firm's registered webhook host"
          : "Callback URL not configured on provider",
    };
  }
  if (!(await ctx.callbackTargetAllowed(resolved.url)))
    return { ok: false, message: "Callback URL is not allowed" };
  return { ok: true, url: resolved.url };
}

/**
 * Step 3 begins with JSON parsing of the raw bytes that were verified. JSON is UTF-8 (RFC 8259):
 * bytes that are not are refused, not decoded into U+FFFD, which would store something other than
 * what was sent and make two different references one ("R-\xFF" and "R-\xFE").
 */
export function parseJsonBody(request: FastifyRequest): { ok: true; value: unknown } | { ok: false } {
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  if (!isUtf8(raw)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(raw.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

export const INVALID_JSON_MESSAGE = "Validation failed: request body is not valid JSON";
