// Builds dist/ only when what it is built from has changed since the last build, so a start after
// the first costs no build and never rewrites the files a running server reads. "What it is built
// from" is named by content, not modification times: a checkout or a copy changes times, not code.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const INPUTS = [
  "src",
  "web",
  "packages/client/src",
  "scripts/build-server.mjs",
  "scripts/copy-static.mjs",
  "scripts/build-console.mjs",
  "tsconfig.json",
  "packages/client/tsconfig.json",
  "package-lock.json",
];
const STAMP = "dist/.built-from";
// The build's own outputs, each of which a finished build writes.
const OUTPUTS = ["dist/main/cli.js", "packages/client/dist/index.js"];

function files(path) {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => files(join(path, name)));
}

function digest() {
  const hash = createHash("sha256");
  for (const file of INPUTS.flatMap(files)) {
    hash.update(`${file}\0`);
    hash.update(readFileSync(file));
    hash.update("\0");
  }
  return hash.digest("hex");
}

const now = digest();
const built = existsSync(STAMP) ? readFileSync(STAMP, "utf8").trim() : "";
if (built === now && OUTPUTS.every((f) => existsSync(f))) process.exit(0);

console.error(
  built
    ? "payintake: the sources changed since the last build; building dist/"
    : "payintake: building dist/ (about 20 s; later runs skip it while the sources are unchanged)",
);
const run = spawnSync("npm", ["run", "--silent", "build"], { stdio: "inherit" });
if (run.status !== 0) process.exit(run.status ?? 1);
writeFileSync(STAMP, `${now}\n`);
