import type { FastifyRequest } from "fastify";
import type { Firm } from "../../domain/firm.js";
import { resolveCallbackUrl } from "../callback-url.js";
import type { IntakeContext } from "./context.js";

/**
 * Step 2 of the order of checks: resolve the callback URL (provider, X-Callback-URL, webhook) and
 * make sure it is a public address. The URL, or the 400 message to answer.
 */
export async function resolveCallback(
  ctx: IntakeContext,
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
