import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * For the embedded default only: when no master key or admin token is configured, one is generated
 * once into the data directory (mode 0600) so that `npm start` works on a fresh clone. Production
 * sets both in the environment; the server warns when it falls back to these files.
 */
export function readOrCreateLocalSecret(
  dataDir: string,
  name: "master.key" | "admin.token",
  bytes: number,
): string {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, name);
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const value = randomBytes(bytes).toString("hex");
  writeFileSync(file, `${value}\n`, { mode: 0o600, flag: "wx" });
  return value;
}

export function readLocalSecret(dataDir: string, name: "master.key" | "admin.token"): string | undefined {
  const file = join(dataDir, name);
  return existsSync(file) ? readFileSync(file, "utf8").trim() : undefined;
}
