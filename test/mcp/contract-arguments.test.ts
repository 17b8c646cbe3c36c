// A query parameter added to the contract becomes a tool argument with no change under src/market-tools/ or src/mcp/:
// the contract loader is given a searchCatalog with one more parameter, then the tool arguments
// are built from it as the server builds them.
import { describe, expect, it, vi } from "vitest";
import * as z from "zod";
import type * as Load from "../../src/contract/load.js";

const ADDED = {
  name: "maxPriceUsdc",
  in: "query",
  required: false,
  description: "Only listings at or below this price.",
  schema: { type: "string", pattern: "^[0-9]+(\\.[0-9]{1,6})?$", maxLength: 20 },
};

vi.doMock("../../src/contract/load.js", async (importOriginal) => {
  const actual = await importOriginal<typeof Load>();
  return {
    ...actual,
    loadContract: () => {
      const contract = actual.loadContract();
      for (const item of Object.values(contract.document.paths)) {
        const operation = (item as Record<string, { operationId?: string; parameters?: unknown[] }>).get;
        if (operation?.operationId === "searchCatalog") operation.parameters!.push(ADDED);
      }
      return contract;
    },
  };
});

describe("a query parameter the contract gains", () => {
  it("is an argument of the tool mirroring the operation, with its description and constraints", async () => {
    const { queryArguments } = await import("../../src/market-tools/contract-schemas.js");
    const args = queryArguments("searchCatalog");
    const properties = (
      z.toJSONSchema(args, { io: "input" }) as { properties: Record<string, Record<string, unknown>> }
    ).properties;
    expect(Object.keys(properties).at(-1)).toBe("maxPriceUsdc");
    expect(properties.maxPriceUsdc).toMatchObject({
      type: "string",
      description: ADDED.description,
      pattern: ADDED.schema.pattern,
      maxLength: 20,
    });
    expect(args.safeParse({ maxPriceUsdc: "0.25" }).success).toBe(true);
    const refused = args.safeParse({ maxPriceUsdc: "cheap" });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]).toMatchObject({
      path: ["maxPriceUsdc"],
      message: `maxPriceUsdc must match ${ADDED.schema.pattern}`,
    });
  });

  it("is absent from the other operations", async () => {
    const { queryParameters } = await import("../../src/contract/schemas.js");
    expect(queryParameters("searchResources").map((parameter) => parameter.name)).not.toContain("maxPriceUsdc");
  });
});
