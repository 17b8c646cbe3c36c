// The compiled contract passes Redocly's `recommended` rules (as redocly.yaml adjusts them, each
// with its reason): no error and no warning.
import { fileURLToPath } from "node:url";
import { lint, loadConfig } from "@redocly/openapi-core";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));

describe("Redocly recommended on generated/openapi.json", () => {
  it("reports no error and no warning", async () => {
    const config = await loadConfig({ configPath: `${root}redocly.yaml` });
    const problems = await lint({ ref: `${root}generated/openapi.json`, config });
    const described = problems.map((problem) => ({
      severity: problem.severity,
      rule: problem.ruleId,
      where: problem.location[0]?.pointer ?? "",
      message: problem.message,
    }));
    expect(described).toEqual([]);
  });
});
