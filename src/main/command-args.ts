/**
 * The words of an operator command read into its request: flags and arguments, each checked, a
 * usage error naming what is wrong before anything is sent (commands.ts, payout-commands.ts).
 */
import { userInfo } from "node:os";
import type { AdminClient } from "./admin-client.js";

export type Flags = Record<string, string | true>;

export class UsageError extends Error {}

export function need(flags: Flags, name: string): string {
  const v = flags[name];
  if (typeof v !== "string" || v === "") throw new UsageError(`--${name} is required`);
  return v;
}

export function str(flags: Flags, name: string): string | undefined {
  const v = flags[name];
  if (v === true) throw new UsageError(`--${name} needs a value`);
  return v;
}

/** A limit or link that may be taken off: `none` sends null (no limit, no channel), as the API takes it. */
export function clearable(flags: Flags, name: string): string | null | undefined {
  const v = str(flags, name);
  return v === "none" ? null : v;
}

export function int(flags: Flags, name: string): number | undefined {
  const v = str(flags, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v)) throw new UsageError(`--${name} must be a whole number, 0 or more (got "${v}")`);
  return Number(v);
}

/** A whole number that may be taken off with `none` (no bound). */
export function clearableInt(flags: Flags, name: string): number | null | undefined {
  return flags[name] === "none" ? null : int(flags, name);
}

export function bool(flags: Flags, name: string): boolean | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  if (v === true || v === "true") return true;
  if (v === "false") return false;
  throw new UsageError(`--${name} must be true or false`);
}

export function openClosed(flags: Flags, name: string): "open" | "closed" | undefined {
  const v = str(flags, name);
  if (v === undefined || v === "open" || v === "closed") return v;
  throw new UsageError(`--${name} must be open or closed`);
}

export function id(positional: string[]): number {
  const v = positional[0];
  if (!v) throw new UsageError("an id is required");
  if (!/^[1-9]\d{0,14}$/.test(v)) throw new UsageError(`the id must be a whole number above 0 (got "${v}")`);
  return Number(v);
}

/**
 * Who decides: --operator, else PAYINTAKE_OPERATOR, else the OS user. The admin API records it as
 * `admin-api:<name>`: a name the token's holder gave, not a signed-in operator.
 */
export function actor(flags: Flags): string {
  return str(flags, "operator") ?? process.env.PAYINTAKE_OPERATOR ?? safeUsername();
}

function safeUsername(): string {
  try {
    return userInfo().username || "cli";
  } catch {
    return "cli";
  }
}

/** Drops undefined keys so PATCH bodies carry only what the operator named. */
export function defined(obj: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined));
}

export type Handler = (
  client: AdminClient,
  positional: string[],
  flags: Flags,
) => Promise<{ status: number; json: unknown }>;
