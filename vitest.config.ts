import { availableParallelism } from "node:os";
import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * The suite's longest files, longest first (measured in a whole run, 2026-11-28). A clean checkout
 * has no timing cache, and vitest then starts larger files first: the fuzz file, short but the
 * longest to run, started ten minutes in and ended the suite alone. Starting the long ones first
 * lets the short ones fill the workers around them. The fuzz sweep is one file per database, so that
 * two workers run them side by side (each about a minute alone, CPU-bound in its own process). The
 * three `npm start` runs mostly wait through their minute of light traffic: started beside the
 * fuzz, they use the time it leaves.
 */
const LONGEST_FIRST = [
  "test/fuzz/operations-sqlite.test.ts",
  "test/fuzz/operations-postgres.test.ts",
  "test/process/postgres-two-instances.test.ts",
  "test/process/postgres.test.ts",
  "test/process/sqlite.test.ts",
  "test/search/service.test.ts",
  "test/cli/x402-market.test.ts",
  "test/webhooks/delivery.test.ts",
  "test/storage/migrate.test.ts",
  "test/indexing/crawler.test.ts",
  "test/web/browser.test.ts",
  "test/indexing/killed-crawler.test.ts",
  "test/ownership/owner-operations.test.ts",
  "test/cli/demo.test.ts",
  "test/health/probe-budget.test.ts",
];

class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const at = LONGEST_FIRST.indexOf(relative(file.project.config.root, file.moduleId));
      return at === -1 ? LONGEST_FIRST.length : at;
    };
    const rest = await super.sort(files.filter((file) => rank(file) === LONGEST_FIRST.length));
    return [...files.filter((file) => rank(file) < LONGEST_FIRST.length).sort((a, b) => rank(a) - rank(b)), ...rest];
  }
}

/**
 * Files that need a process of their own: they read the process-wide prom-client registry through
 * /metrics (another file's servers would have counted into it), or replace a module before it is
 * first loaded (vi.doMock). Every other file shares its worker's loaded modules (isolate: false):
 * each file importing the service afresh cost 380 s of the suite's 1,495 (vitest's "import").
 */
const OWN_PROCESS = [
  "test/http/compression.test.ts",
  "test/http/directory.test.ts",
  "test/mcp/contract-arguments.test.ts",
  "test/ops/config.test.ts",
  "test/ops/event-loop-delay.test.ts",
  "test/ops/jobs.test.ts",
  "test/ops/metrics.test.ts",
  "test/ops/shared-limits.test.ts",
];

export default defineConfig({
  test: {
    projects: [
      { extends: true, test: { name: "own-process", include: OWN_PROCESS, isolate: true } },
      { extends: true, test: { name: "shared", include: ["test/**/*.test.ts"], exclude: OWN_PROCESS, isolate: false } },
    ],
    // Generous: on a loaded two-core machine (load 30 while other work runs) a server start or a
    // chain set-up takes many times its quiet duration. No test asserts speed; these only end hangs.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // Many suites mostly wait (a minute-long `npm start` run, a chain, a seller): on a 2-core machine
    // vitest's default of one worker runs them one after another (about 7.5 min); three halve that.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    sequence: { sequencer: LongestFirstSequencer },
  },
});
