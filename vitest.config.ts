import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Restarting the PostgreSQL server is for a run of its own (.ci/run), never beside other suites.
    exclude:
      process.env.PAYINTAKE_REAL_PG_RESTART === "1"
        ? configDefaults.exclude
        : [...configDefaults.exclude, "test/reliability/pg-restart.test.ts"],
    testTimeout: 30_000,
    // expect.poll waits for a state (a row shown, a status written): on two cores shared by two test
    // files, a browser's sign-in alone can take over a second, expect.poll's own default.
    expect: { poll: { timeout: 10_000 } },
    hookTimeout: 60_000,
    // Each file starts its own servers on fresh databases. Three workers on the 2-core machine: a
    // file spends much of its time waiting on other processes (a browser, a child server, a
    // database), which a third worker fills (docs/RELIABILITY.md, "The time of CI").
    pool: "forks",
    maxWorkers: 3,
    // A worker runs its files one after another in one process, the source loaded once: loading it
    // anew for each file cost a third of the suite's time. So a file closes what it opens (servers,
    // browsers, clients, children) and changes no global state; docs/RELIABILITY.md, "The time of CI".
    isolate: false,
    // The databases the run's tests could not drop, dropped at its end.
    globalSetup: ["test/support/global-setup.ts"],
  },
});
