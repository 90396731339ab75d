import type { FastifyReply, FastifyRequest } from "fastify";
import { resolveCallbackUrl } from "../../domain/callback-url.js";
import type { Firm } from "../../domain/firm.js";
import type { AppContext } from "../context.js";
import { sendError } from "../envelope.js";

/**
 * Step 2 of the order of checks: resolve the callback URL (provider, X-Callback-URL, webhook) and
 * make sure it is a public address. Returns the URL, or undefined after answering the error.
 */
export async function callbackUrlFor(
  ctx: AppContext,
  firm: Firm,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<string | undefined> {
  const headerValue = request.headers["x-callback-url"];
  const headerUrl = typeof headerValue === "string" && headerValue.trim() !== "" ? headerValue.trim() : null;
  const resolved = resolveCallbackUrl({
    providerUrl: firm.providerCallbackUrl,
    headerUrl,
    webhookUrl: firm.webhookUrl,
  });
  if (!resolved.ok) {
    return void sendError(
      reply,
      400,
      resolved.error === "header_host_mismatch"
        ? "X-Callback-URL must match the firm's registered webhook host"
        : "Callback URL not configured on provider",
    );
  }
  if (!(await ctx.callbackTargetAllowed(resolved.url)))
    return void sendError(reply, 400, "Callback URL is not allowed");
  return resolved.url;
}

/** Step 3 begins with JSON parsing of the raw bytes that were verified. */
export function parseJsonBody(request: FastifyRequest): { ok: true; value: unknown } | { ok: false } {
  const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
  try {
    return { ok: true, value: JSON.parse(raw.toString("utf8")) };
  } catch {
    return { ok: false };
  }
}

export const INVALID_JSON_MESSAGE = "Validation failed: request body is not valid JSON";
