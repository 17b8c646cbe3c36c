import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Many suites mostly wait (a minute-long `npm start` run, a chain, a seller): on a 2-core machine
    // vitest's default of one worker runs them one after another (about 7.5 min); three halve that.
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
