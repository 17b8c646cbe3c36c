import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generous: on a loaded two-core machine (load 30 while other work runs) a server start or a
    // chain set-up takes many times its quiet duration. No test asserts speed; these only end hangs.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Many suites mostly wait (a minute-long `npm start` run, a chain, a seller): on a 2-core machine
    // vitest's default of one worker runs them one after another (about 7.5 min); three halve that.
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
