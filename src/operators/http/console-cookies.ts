import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_TTL_S } from "../console-sessions.js";
import { DEVICE_COOKIE, DEVICE_TTL_MS } from "../devices.js";

/** The console session's cookie: the token whose hash the store keeps (operators/console-sessions.ts). */
const COOKIE = "payintake_ops";

export function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

export function cookieToken(request: FastifyRequest, cookie = COOKIE): string | undefined {
  const header = request.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === cookie) return value.join("=");
  }
  return undefined;
}

export function setCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeS: number) {
  const secure = request.protocol === "https" ? "; Secure" : "";
  reply.header(
    "set-cookie",
    `${COOKIE}=${token}; Path=/ops; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`,
  );
}

/** The renewed session's cookie (operators/console-sessions.ts renewSession); none opened: the cookie goes. */
export function renewCookie(request: FastifyRequest, reply: FastifyReply, token: string | null) {
  setCookie(request, reply, token ?? "", token === null ? 0 : SESSION_TTL_S);
}

/**
 * The known-browser cookie (operators/devices.ts): sent back only to the sign-in, the one route that
 * reads it. Fastify adds it beside the session's cookie.
 */
export function setDeviceCookie(request: FastifyRequest, reply: FastifyReply, value: string) {
  const secure = request.protocol === "https" ? "; Secure" : "";
  const maxAgeS = Math.floor(DEVICE_TTL_MS / 1000);
  reply.header(
    "set-cookie",
    `${DEVICE_COOKIE}=${value}; Path=/ops/api/login; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`,
  );
}
