import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";

const outputDir = mkdtempSync(join(tmpdir(), "tsp-compile-"));
afterAll(() => rmSync(outputDir, { recursive: true, force: true }));

describe("npx tsp compile spec", () => {
  it("builds, with spec/tspconfig.yaml, the same document npm run generate committed", async () => {
    await promisify(execFile)("npx", ["tsp", "compile", "spec", "--output-dir", outputDir], { timeout: 60_000 });
    const compiled = readFileSync(join(outputDir, "@typespec/openapi3/openapi.json"), "utf8");
    expect(compiled).toBe(readFileSync("generated/openapi.json", "utf8"));
  }, 60_000);
});
