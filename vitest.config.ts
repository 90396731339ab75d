import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file starts its own servers on fresh databases; two workers fit the 2-core machine.
    pool: "forks",
    maxWorkers: 2,
  },
});
