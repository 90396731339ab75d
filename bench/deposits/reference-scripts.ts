import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * The reference servers' scripts (the bare endpoint, the store floor) as a tree holds them, run
 * with that tree's own code. The tree is this checkout or another one (BENCH_AB_BASE, a
 * BENCH_RUNTIMES tree), which may be older than bench/'s folders and keep them in bench/ itself.
 */
export function referenceScript(tree: string, name: "bare-server" | "store-floor"): string {
  const inFolder = `bench/deposits/${name}.ts`;
  return existsSync(join(tree, inFolder)) ? inFolder : `bench/${name}.ts`;
}
