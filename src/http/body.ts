import { isUtf8 } from "node:buffer";
import type { FastifyRequest } from "fastify";

/**
 * A JSON body, parsed from the raw bytes the routes receive (and the merchant API has verified). JSON is UTF-8 (RFC 8259):
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
