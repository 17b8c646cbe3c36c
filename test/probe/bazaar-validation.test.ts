// extensions.bazaar validation costs about 1 ms per distinct schema and nothing for a schema seen
// before: the SDK's validateDiscoveryExtension built a new Ajv and compiled the seller's schema (and
// the 2020-12 meta-schema) on every probe, about 12-22 ms each. The verdicts stay the SDK's.
import { declareDiscoveryExtension, validateDiscoveryExtension } from "@x402/extensions/bazaar";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { sanitizeBazaar, validateAgainstSchema } from "../../src/probe/seller-metadata.js";

const weather = (city = "San Francisco") =>
  declareDiscoveryExtension({
    method: "GET",
    input: { city },
    inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    output: { example: { city, temperature: 60 } },
  } as Parameters<typeof declareDiscoveryExtension>[0]).bazaar as unknown as {
    info: Record<string, unknown>;
    schema: Record<string, unknown>;
  };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("extensions.bazaar schema validation", () => {
  it("compiles a seller's schema once, however often its listing is probed", () => {
    const compile = vi.spyOn(Ajv2020.prototype, "compile");
    const bazaar = weather();
    // A fresh object each probe (it is parsed from the seller's answer), the same schema.
    for (let i = 0; i < 5; i++) expect(sanitizeBazaar(structuredClone(bazaar))).toEqual({ kept: bazaar });
    const compiledSchemas = compile.mock.calls.filter(
      ([schema]) => JSON.stringify(schema) === JSON.stringify(bazaar.schema),
    );
    expect(compiledSchemas.length).toBeLessThanOrEqual(1);
  });

  it("gives the SDK's verdict: valid, info not matching its schema, an invalid schema", () => {
    const cases: Array<{ info: unknown; schema: Record<string, unknown> }> = [];
    const good = weather();
    cases.push(good);
    const wrongInfo = weather();
    (wrongInfo.info.input as Record<string, unknown>).queryParams = { city: 7 };
    cases.push(wrongInfo);
    cases.push({ info: good.info, schema: { type: "object", properties: { input: { type: 5 } } } });
    cases.push({ info: good.info, schema: { type: "object", required: ["missing", "also"] } });
    for (const { info, schema } of cases) {
      const sdk = validateDiscoveryExtension({ info, schema } as unknown as Parameters<
        typeof validateDiscoveryExtension
      >[0]);
      const ours = validateAgainstSchema(schema, info);
      expect(ours === null, JSON.stringify(schema)).toBe(sdk.valid);
      if (!sdk.valid) expect(ours).toEqual(sdk.errors);
    }
  });

  it("keeps schemas of different sellers that share an $anchor apart", () => {
    const first = weather();
    first.schema.$anchor = "shared";
    const second = weather("Paris");
    second.schema.$anchor = "shared";
    (second.schema.properties as Record<string, unknown>).extra = { type: "string" };
    expect(sanitizeBazaar(first)).toEqual({ kept: first });
    expect(sanitizeBazaar(second)).toEqual({ kept: second });
    expect(sanitizeBazaar(first)).toEqual({ kept: first });
  });
});
