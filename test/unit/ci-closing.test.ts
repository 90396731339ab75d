import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// CI's closing count is a script inside .ci/run that runs only after both suites: a slip in it
// (a quote that ends bash's string) would first show after 25 minutes of green tests. Run it here
// on results written for the purpose.
const script = readFileSync(new URL("../../.ci/run", import.meta.url), "utf8");
const closing = script.slice(
  script.indexOf('RUNTIMES="$RUNTIMES" FAILED_RUNS'),
  script.indexOf("' || status=1") + "' || status=1".length,
);
const dir = mkdtempSync(join(tmpdir(), "payintake-ci-closing-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function results(name: string, failed: boolean) {
  mkdirSync(join(dir, ".ci-out"), { recursive: true });
  const file = join(dir, "test/payments.test.ts");
  const assertion = failed
    ? {
        status: "failed",
        fullName: "payments > pays",
        failureMessages: ["AssertionError: 1 is not 2\n  at here"],
      }
    : { status: "passed", fullName: "payments > pays", failureMessages: [] };
  writeFileSync(
    join(dir, `.ci-out/vitest-${name}.json`),
    JSON.stringify({
      numPassedTests: failed ? 4 : 5,
      numFailedTests: failed ? 1 : 0,
      numPendingTests: 1,
      numTodoTests: 0,
      testResults: [
        {
          name: file,
          startTime: 0,
          endTime: 2500,
          status: failed ? "failed" : "passed",
          assertionResults: [assertion],
        },
      ],
    }),
  );
}

function close(failedRuns: string[] = []): { code: number; out: string } {
  const run = `status=0; failed_runs=(${failedRuns.join(" ")}); RUNTIMES=20,24\n${closing}\necho "status=$status"`;
  const out = execFileSync("bash", ["-c", run], { cwd: dir, encoding: "utf8" });
  return { code: Number(/status=(\d)/.exec(out)?.[1]), out };
}

describe("CI's closing count", () => {
  it("names each failed test with its message and fails the run", () => {
    results("node20", true);
    results("node24", false);
    const { code, out } = close();
    expect(out).toContain(
      "node20: FAILED test/payments.test.ts > payments > pays\n      AssertionError: 1 is not 2",
    );
    expect(out).toContain("node24: 5 passed, 0 failed, 1 skipped");
    expect(out).toContain("9 passed, 1 failed, 2 skipped");
    expect(code).toBe(1);
  });

  it("a run that failed outside its tests counts one failure more, though its tests passed", () => {
    results("node20", false);
    results("node24", false);
    const { code, out } = close(["node24"]);
    expect(out).toContain("node24: 5 passed, 0 failed, 1 skipped (run failed)");
    expect(out).toContain("10 passed, 1 failed, 2 skipped");
    expect(code).toBe(1);
  });

  it("passes two green runs and lists the slowest files", () => {
    results("node20", false);
    results("node24", false);
    const { code, out } = close();
    expect(out).toContain("2.5 s  test/payments.test.ts");
    expect(out).toContain("10 passed, 0 failed, 2 skipped");
    expect(code).toBe(0);
  });
});
