import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { relative } from "node:path";
import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/**
 * Every test file of the last measured whole run, longest first: test/timings.json, written by
 * `npm run test:timings` from vitest's JSON report (docs/testing.md says how to refresh it). A clean
 * checkout has no timing cache, and vitest then starts larger files first: a short file that is the
 * longest to run (the fuzz sweep) started ten minutes in and ended the suite alone. Starting the long
 * ones first lets the short ones fill the workers around them. Files the report does not know (new
 * ones) start after, in vitest's own order.
 */
const timings = JSON.parse(readFileSync(new URL("./test/timings.json", import.meta.url), "utf8")) as {
  files: Array<{ file: string }>;
};
const LONGEST_FIRST = new Map(timings.files.map(({ file }, at) => [file, at]));

class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) =>
      LONGEST_FIRST.get(relative(file.project.config.root, file.moduleId)) ?? LONGEST_FIRST.size;
    const rest = await super.sort(files.filter((file) => rank(file) === LONGEST_FIRST.size));
    return [...files.filter((file) => rank(file) < LONGEST_FIRST.size).sort((a, b) => rank(a) - rank(b)), ...rest];
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
