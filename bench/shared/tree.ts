import { execFileSync } from "node:child_process";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The checkout the bench runs in: its dist/ is the server measured, its docs/ what a run writes. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/** A checkout's commit, short: how an A/B bench names the two trees it compares. */
export function shortCommit(cwd: string): string {
  return execFileSync("git", ["rev-parse", "--short", "HEAD"], { cwd, encoding: "utf8" }).trim();
}

/** The code measured: the commit, and whether src/ differed from it (dist/ is built from the tree). */
export function codeVersion(root: string = ROOT): string {
  const git = (args: string[]) => {
    try {
      return execFileSync("git", ["-C", root, ...args], { encoding: "utf8" }).trim();
    } catch {
      return "";
    }
  };
  const head = git(["rev-parse", "--short", "HEAD"]) || "unknown";
  return git(["status", "--porcelain", "--", "src"]) === ""
    ? `commit ${head}`
    : `commit ${head} plus uncommitted changes in src/`;
}
