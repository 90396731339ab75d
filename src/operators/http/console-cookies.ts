import { timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";
import { SESSION_TTL_S } from "../console-sessions.js";
import { DEVICE_COOKIE, DEVICE_TTL_MS } from "../devices.js";

/** The console session's cookie: the token whose hash the store keeps (operators/console-sessions.ts). */
const COOKIE = "payintake_ops";
/**
 * The most well-formed values of one cookie name a request is looked up with. A browser sends every
 * cookie of the name whose domain and path match (another page of the host may have set one for
 * `/` beside ours for `/ops`), so more than one is ordinary; a few more than that are not, and each
 * costs a store lookup.
 */
export const MAX_SAME_NAME_COOKIES = 4;
/** A session token's shape (newSessionToken: 32 bytes, base64url): anything else is not looked up. */
const SESSION_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/**
 * Over https the cookie's name carries the `__Secure-` prefix: a browser keeps a cookie so named
 * only when an https answer set it with `Secure`, so a plain-http answer (a network in the middle,
 * or a sibling host served over http) cannot plant one that the console would read as its own.
 * Over plain http (development) a browser refuses the prefix, so the plain name is used there.
 * `request.protocol` is https for a direct TLS connection, or when a proxy named in
 * PAYINTAKE_TRUST_PROXY says so in X-Forwarded-Proto.
 */
export function sessionCookieName(request: FastifyRequest): string {
  return request.protocol === "https" ? `__Secure-${COOKIE}` : COOKIE;
}

export function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const a = Buffer.from(given, "utf8");
  const b = Buffer.from(expected, "utf8");
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Every value of cookie `name` the request carries, in the order sent, at most `max`. */
export function cookieValues(request: FastifyRequest, name: string, max: number): string[] {
  const header = request.headers.cookie;
  const values: string[] = [];
  if (!header) return values;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    values.push(part.slice(eq + 1).trim());
    if (values.length === max) break;
  }
  return values;
}

/** The first value of cookie `cookie` (the known-browser cookie's: one value is enough there). */
export function cookieToken(request: FastifyRequest, cookie: string): string | undefined {
  return cookieValues(request, cookie, 1)[0];
}

/**
 * The session tokens the request's cookies offer, the first MAX_SAME_NAME_COOKIES well-formed ones:
 * a value of another shape (`payintake_ops=bogus`, planted or stale) costs no lookup, counts
 * against no bound and shadows nothing. The whole header is read: Node bounds its size (16 KiB).
 */
export function sessionTokens(request: FastifyRequest): string[] {
  return cookieValues(request, sessionCookieName(request), Number.POSITIVE_INFINITY)
    .filter((value) => SESSION_TOKEN_SHAPE.test(value))
    .slice(0, MAX_SAME_NAME_COOKIES);
}

export function setCookie(request: FastifyRequest, reply: FastifyReply, token: string, maxAgeS: number) {
  const secure = request.protocol === "https" ? "; Secure" : "";
  reply.header(
    "set-cookie",
    `${sessionCookieName(request)}=${token}; Path=/ops; HttpOnly; SameSite=Strict; Max-Age=${maxAgeS}${secure}`,
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
