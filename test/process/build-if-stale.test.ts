import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const SCRIPT = new URL("../../scripts/build-if-stale.mjs", import.meta.url).pathname;

/**
 * `npm start` and `npm test` run scripts/build-if-stale.mjs first. It runs in a project of its own
 * here, whose `build` counts its runs and writes the outputs the real build writes, so that the
 * repository's own dist/ (which other test files read) is never rebuilt under them.
 */
describe("the build before a start", () => {
  let dir = "";
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function project() {
    dir = mkdtempSync(join(tmpdir(), "payintake-build-"));
    const build = [
      'import { mkdirSync, writeFileSync, appendFileSync } from "node:fs";',
      'appendFileSync("builds", "x");',
      'mkdirSync("dist/main", { recursive: true });',
      'mkdirSync("packages/client/dist", { recursive: true });',
      'writeFileSync("dist/main/cli.js", "");',
      'writeFileSync("packages/client/dist/index.js", "");',
    ].join("\n");
    writeFileSync(join(dir, "build.mjs"), build);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { build: "node build.mjs" } }));
    mkdirSync(join(dir, "src"));
    writeFileSync(join(dir, "src/a.ts"), "export const a = 1;\n");
  }
  const run = () => spawnSync(process.execPath, [SCRIPT], { cwd: dir, encoding: "utf8", timeout: 30_000 });
  const builds = () => readFileSync(join(dir, "builds"), "utf8").length;

  it("builds once, then starts without building or touching dist/ while the sources are unchanged", () => {
    project();
    const first = run();
    expect(first.status).toBe(0);
    expect(first.stderr).toContain("building dist/");
    expect(builds()).toBe(1);
    const cli = join(dir, "dist/main/cli.js");
    // An old time on the output: a build in between would set it to now.
    utimesSync(cli, new Date(2000, 0, 1), new Date(2000, 0, 1));
    const second = run();
    expect(second.status).toBe(0);
    expect(second.stderr).toBe("");
    expect(builds()).toBe(1);
    expect(statSync(cli).mtime.getFullYear()).toBe(2000);
  });

  it("builds again when a source's content changes or an output is gone, not when only its time does", () => {
    project();
    run();
    utimesSync(join(dir, "src/a.ts"), new Date(), new Date(Date.now() + 60_000));
    run();
    expect(builds()).toBe(1);
    writeFileSync(join(dir, "src/a.ts"), "export const a = 2;\n");
    expect(run().stderr).toContain("the sources changed");
    expect(builds()).toBe(2);
    writeFileSync(join(dir, "src/b.ts"), "export const b = 1;\n");
    run();
    expect(builds()).toBe(3);
    rmSync(join(dir, "dist/main/cli.js"));
    run();
    expect(builds()).toBe(4);
  });

  it("fails as the build fails, and records nothing, so the next start builds again", () => {
    project();
    writeFileSync(
      join(dir, "build.mjs"),
      'import { appendFileSync } from "node:fs"; appendFileSync("builds", "x"); process.exit(3);',
    );
    expect(run().status).toBe(3);
    expect(run().status).toBe(3);
    expect(builds()).toBe(2);
  });
});
