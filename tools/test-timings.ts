/**
 * A vitest reporter that writes test/timings.json: every test file of a whole run with its duration
 * (its tests and hooks: a chain or an `npm start` in beforeAll counts), longest first.
 * vitest.config.ts starts the files in this order (files it does not list come after), so that the
 * long ones do not start last and end the suite alone. `npm run test:timings` is a whole run with
 * this reporter beside the default one (set TEST_POSTGRES_URL, TEST_REDIS_URL and REQUIRE_CHROMIUM
 * first, as .ci/run does, or the files of those suites are timed skipped). A run of some files only
 * leaves test/timings.json alone. (vitest's JSON reporter times a file from its first test to its
 * last: a file whose work is in beforeAll looks short there.)
 */
import { readdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { format, resolveConfig } from "prettier";
import type { Reporter, TestModule, TestSpecification } from "vitest/node";

const root = resolve(fileURLToPath(new URL("..", import.meta.url)));
const TIMINGS_PATH = resolve(root, "test/timings.json");

interface Timings {
  /** When the measured run started (ISO 8601, UTC). */
  measured: string;
  /** Wall time of the whole run, in seconds, and the one-minute load average at its start and end. */
  wallSeconds: number;
  load: [number, number];
  files: Array<{ file: string; ms: number }>;
}

const allTestFiles = () =>
  (readdirSync(resolve(root, "test"), { recursive: true }) as string[])
    .filter((path) => path.endsWith(".test.ts"))
    .map((path) => `test/${path}`);

export default class TestTimings implements Reporter {
  private started = Date.now();
  private loadAtStart = loadavg()[0]!;
  private whole = false;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>) {
    this.started = Date.now();
    this.loadAtStart = loadavg()[0]!;
    const running = new Set(specifications.map((specification) => relative(root, specification.moduleId)));
    this.whole = allTestFiles().every((file) => running.has(file));
  }

  async onTestRunEnd(modules: ReadonlyArray<TestModule>) {
    if (!this.whole) {
      console.log("test-timings: not a whole run; test/timings.json left alone");
      return;
    }
    const files = modules
      .map((module) => ({ file: relative(root, module.moduleId), ms: Math.round(module.diagnostic().duration) }))
      .sort((a, b) => b.ms - a.ms || a.file.localeCompare(b.file));
    const round = (load: number) => Math.round(load * 10) / 10;
    const timings: Timings = {
      measured: new Date(this.started).toISOString(),
      wallSeconds: Math.round((Date.now() - this.started) / 1000),
      load: [round(this.loadAtStart), round(loadavg()[0]!)],
      files,
    };
    writeFileSync(
      TIMINGS_PATH,
      await format(JSON.stringify(timings), { ...(await resolveConfig(TIMINGS_PATH)), parser: "json" }),
    );
    const failed = modules
      .filter((module) => module.state() === "failed")
      .map((module) => relative(root, module.moduleId));
    console.log(`test-timings: wrote test/timings.json (${files.length} files, ${timings.wallSeconds} s)`);
    if (failed.length > 0) console.log(`test-timings: timed although they failed: ${failed.join(", ")}`);
  }
}
