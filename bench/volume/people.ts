import { turkishIbanFor } from "../../src/domain/iban.js";
import { maskNationalId } from "../../src/domain/masking.js";
import { payerNameKey } from "../../src/domain/name-search.js";
import { BANKS, FIRST_NAMES, LAST_NAMES, plainLower } from "../shared/names.js";

/**
 * The payers of the volume benchmark: one person per firm and user id, the same on every row of
 * theirs (name, username, bank, IBAN), as a merchant's user is. Deterministic: a firm index, a user
 * index and the seed give the same person in every run.
 */
export interface Person {
  userId: string;
  first: string;
  middle: string | null;
  last: string;
  username: string;
  /** The payer's own account, for withdrawals: a valid Turkish IBAN at `bank`. */
  iban: string;
  bank: (typeof BANKS)[number];
  nationalId: string | null;
  nationalIdMasked: string | null;
  /** payer_name_key as intake writes it. */
  nameKey: string;
}

/** Users per firm who have history; pending rows and stuck withdrawals add their own (rows.ts). */
export const USERS_PER_FIRM = 50_000;

const MAIL_DOMAINS = ["gmail.com", "hotmail.com", "outlook.com", "yandex.com", "icloud.com"] as const;

/** A 32-bit mix of two numbers (murmur3's finaliser), the seed of each row's and person's draws. */
export function mix(a: number, b: number): number {
  let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: small, fast, and good enough to spread rows over firms, amounts and names. */
export function draws(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function pick<T>(list: readonly T[], r: number): T {
  return list[Math.min(list.length - 1, Math.floor(r * list.length))] as T;
}

function digits(r: () => number, n: number): string {
  let out = "";
  for (let i = 0; i < n; i++) out += String(Math.floor(r() * 10));
  return out;
}

function usernameOf(r: () => number, first: string, last: string): string {
  const style = r();
  if (style < 0.45)
    return `${plainLower(first)}.${plainLower(last)}${Math.floor(r() * 100)}@${pick(MAIL_DOMAINS, r())}`;
  if (style < 0.75) return `+905${digits(r, 9)}`;
  return `${plainLower(first)}${plainLower(last).slice(0, 3)}${Math.floor(r() * 1000)}`;
}

function makePerson(seed: number, firmIndex: number, userIndex: number): Person {
  const r = draws(mix(mix(seed, firmIndex + 1), userIndex));
  const first = pick(FIRST_NAMES, r());
  const last = pick(LAST_NAMES, r());
  const middle = r() < 0.08 ? pick(FIRST_NAMES, r()) : null;
  const bank = pick(BANKS, r());
  const nationalId = r() < 0.7 ? `${1 + Math.floor(r() * 9)}${digits(r, 10)}` : null;
  return {
    userId: String(100_000 + userIndex),
    first,
    middle,
    last,
    username: usernameOf(r, first, last),
    iban: turkishIbanFor(`${bank.number}0${digits(r, 16)}`),
    bank,
    nationalId,
    nationalIdMasked: nationalId === null ? null : maskNationalId(nationalId),
    nameKey: payerNameKey(first, middle, last),
  };
}

/**
 * People are made again when asked again, but the busy ones are kept: folding a name and an IBAN's
 * check digits for every one of ten million rows would cost a minute of the seeding.
 */
export function createPeople(seed: number): (firmIndex: number, userIndex: number) => Person {
  const kept = new Map<number, Person>();
  return (firmIndex, userIndex) => {
    const key = userIndex * 16 + firmIndex;
    let person = kept.get(key);
    if (!person) {
      if (kept.size >= 400_000) kept.clear();
      person = makePerson(seed, firmIndex, userIndex);
      kept.set(key, person);
    }
    return person;
  };
}
