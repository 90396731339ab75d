/**
 * For the embedded default only: when no master key or admin token is configured, one is generated
 * once into the data directory (mode 0600) so that `npm start` works on a fresh clone. Production
 * sets both in the environment; the server warns when it falls back to these files.
 */
import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";

export type LocalSecretName = "master.key" | "admin.token" | "master.key.new";

export function readOrCreateLocalSecret(dataDir: string, name: LocalSecretName, bytes: number): string {
  const existing = readLocalSecret(dataDir, name);
  if (existing !== undefined) return existing;
  const value = newLocalSecret(bytes);
  saveLocalSecret(dataDir, name, value);
  return value;
}

export function readLocalSecret(dataDir: string, name: LocalSecretName): string | undefined {
  const file = join(dataDir, name);
  return existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
}

/** A value for a secret file, not yet saved: the master key is saved only once the store accepts it. */
export function newLocalSecret(bytes: number): string {
  return randomBytes(bytes).toString("hex");
}

/**
 * Fails if the file exists: a secret file is never overwritten. Durable before it returns: the
 * first master.key is saved just before the store records its key's check and seals under it, and
 * a power cut must not leave that store beside an empty or missing key file.
 */
export function saveLocalSecret(dataDir: string, name: LocalSecretName, value: string): void {
  // The directory too is the owner's only (docs/operations.md): this may be what creates it.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  writeDurably(dataDir, name, value, "wx");
}

/*
 * A rotation of the embedded store's master.key (main/master-key-rotation.ts) must never leave the
 * store sealed under a key that is on no disk: these write, move and remove secret files durably
 * (the file's bytes, then the directory entry, fsynced before they return).
 */

/** Writes the file (replacing one left by an earlier attempt) and makes it durable. */
export function saveLocalSecretDurably(dataDir: string, name: LocalSecretName, value: string): void {
  writeDurably(dataDir, name, value, "w");
}

/** The file's bytes, then its directory entry, fsynced; owner-only. "wx" fails if it exists. */
function writeDurably(dataDir: string, name: LocalSecretName, value: string, flag: "w" | "wx"): void {
  const fd = openSync(join(dataDir, name), flag, 0o600);
  try {
    writeSync(fd, `${value}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncDirectory(dataDir);
}

/** Renames `from` over `to` in one step (a reader sees the old file or the new, never neither). */
export function replaceLocalSecret(dataDir: string, from: LocalSecretName, to: LocalSecretName): void {
  renameSync(join(dataDir, from), join(dataDir, to));
  syncDirectory(dataDir);
}

export function removeLocalSecret(dataDir: string, name: LocalSecretName): void {
  rmSync(join(dataDir, name), { force: true });
  syncDirectory(dataDir);
}

function syncDirectory(dir: string): void {
  const fd = openSync(dir, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
