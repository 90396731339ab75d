/**
 * Operator passwords, hashed with scrypt (N=2^15, r=8, p=1: about 50 ms and 32 MiB per check) and
 * a random salt. Stored as "scrypt$N$r$p$salt$hash". Verification is constant-time and never throws.
 */
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";

/** scrypt's cost N for new hashes; a stored hash names its own, so a change never locks anyone out. */
export const HASH_COST = 32_768;
const cost = { n: HASH_COST };
const R = 8;
const P = 1;
const KEY = 32;

/**
 * At most two derivations at once in the process; the others wait here, in order. scrypt runs on
 * libuv's thread pool (four threads), which DNS lookups (channel asks, callbacks, the callback URL
 * check) and file access share. Sign-in attempts from many addresses at once (each may try twenty
 * in 15 minutes, and an IPv6 /48 holds 65,536 /64s) would queue hundreds of derivations there, and
 * a lookup would wait behind all of them, seconds long: channel asks and callbacks would time out
 * while no operator is even signed in. Two leave the pool's other threads free.
 */
const AT_ONCE = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  // A slot is handed from the one that ends to the next waiting, so `running` counts both.
  if (running < AT_ONCE) running++;
  else await new Promise<void>((go) => waiting.push(go));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  return inTurn(
    () =>
      new Promise<Buffer>((resolve, reject) =>
        scrypt(password, salt, KEY, { N: n, r, p, maxmem: 128 * n * r * 2 }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
  );
}

/**
 * Sets N for the hashes this process makes from now on, and returns the one before. The service
 * never calls it: the test suites, which start their servers in their own process and sign
 * operators in thousands of times, make their operators' hashes with a smaller N
 * (test/support/harness.ts; docs/RELIABILITY.md, "The time of CI"). The code and the checks are
 * the same; the tests of the cost itself set it back.
 */
export function setHashCost(n: number): number {
  const before = cost.n;
  cost.n = n;
  return before;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const n = cost.n;
  const key = await derive(password, salt, n, R, P);
  return `scrypt$${n}$${R}$${P}$${salt.toString("base64url")}$${key.toString("base64url")}`;
}

const dummies = new Map<number, Promise<string>>();

/**
 * A hash of nobody's password, made once per cost: an attempt for an email that is no active
 * operator's is checked against it, so that it costs the same work as a real one.
 */
export function dummyHash(): Promise<string> {
  let dummy = dummies.get(cost.n);
  if (!dummy) {
    dummy = hashPassword(newPassword());
    dummies.set(cost.n, dummy);
  }
  return dummy;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  try {
    const [scheme, n, r, p, salt, hash] = stored.split("$");
    if (scheme !== "scrypt" || !salt || !hash) return false;
    const expected = Buffer.from(hash, "base64url");
    const key = await derive(password, Buffer.from(salt, "base64url"), Number(n), Number(r), Number(p));
    return key.length === expected.length && timingSafeEqual(key, expected);
  } catch {
    return false;
  }
}

/** A one-time password for a new operator: 18 random bytes, base64url (24 characters). */
export const newPassword = () => randomBytes(18).toString("base64url");
