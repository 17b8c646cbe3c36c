import { readFileSync } from "node:fs";
import { OpenAPIBackend, type Document } from "openapi-backend";
import { describe, expect, it } from "vitest";
import { CONTRACT_VERSION, areas, canonicalOf, canonicalOperationIds, routeTable } from "../../generated/operations.js";
import { handlers } from "../../src/handlers/index.js";
import { expandAliasTable, readAliasTable, readSpecAreas } from "../../tools/alias-table.js";
import { renderAll, root } from "../../tools/contract-build.js";

const committed = readFileSync("generated/openapi.json", "utf8");
type Paths = Record<string, Record<string, { operationId: string }>>;
const contract = JSON.parse(committed) as Document;
const paths = (document: Document) => document.paths as unknown as Paths;
const routedOperationIds = (document: Document) =>
  Object.values(paths(document)).flatMap((item) => Object.values(item).map((operation) => operation.operationId));
const specRoutes = (
  JSON.parse(readFileSync("test/contract/spec-routes.json", "utf8")) as {
    routes: Array<{ method: string; path: string }>;
  }
).routes;

describe("the compiled contract", () => {
  // spec-routes.json is extracted from the spec's endpoint tables by tools/spec-routes.ts (`--check`
  // compares it with the spec); each of its routes must be declared, whatever their number.
  it.each(specRoutes.map(({ method, path }) => [`${method} ${path}`, method, path] as const))(
    "declares %s from the spec's endpoint tables",
    (_, method, path) => {
      expect(paths(contract)[path]?.[method.toLowerCase()], `${method} ${path} in the compiled contract`).toBeDefined();
    },
  );

  it("reads a route list that covers every table of the spec: each method, no duplicates", () => {
    expect(new Set(specRoutes.map(({ method, path }) => `${method} ${path}`)).size).toBe(specRoutes.length);
    expect(new Set(specRoutes.map(({ method }) => method))).toEqual(new Set(["GET", "POST"]));
    // One route from each endpoint table: a parsing slip that drops a table shows here.
    for (const route of [
      "POST /listings",
      "GET /listings/challenge",
      "GET /bazaar.json",
      "POST /mcp",
      "GET /examples/buy.sh",
    ]) {
      expect(specRoutes.map(({ method, path }) => `${method} ${path}`)).toContain(route);
    }
  });

  it("is a valid OpenAPI 3.0 document for openapi-backend in strict mode", async () => {
    const api = new OpenAPIBackend({ definition: structuredClone(contract), strict: true, validate: false });
    await api.init();
    expect(api.router.getOperations().length).toBe(Object.keys(canonicalOf).length);
  });

  it("has a handler for every canonical operation and a canonical operation for every route", () => {
    expect(Object.keys(handlers).sort()).toEqual([...canonicalOperationIds].sort());
    expect(routedOperationIds(contract).sort()).toEqual(Object.keys(canonicalOf).sort());
  });

  it("closes the listing request to unknown fields and sets additionalProperties false", () => {
    const schemas = (contract.components as { schemas: Record<string, { additionalProperties?: unknown }> }).schemas;
    expect(schemas.ListingRequest!.additionalProperties).toBe(false);
  });

  it("explodes every query parameter, so openapi-backend does not split scalars into arrays", () => {
    expect(committed).not.toContain('"explode": false');
  });
});

type Table = Record<string, Record<string, string[]>>;
/** The committed alias table with one operation's paths replaced. */
const withPaths = (area: string, operation: string, paths: string[]) => {
  const table = readAliasTable(root) as Table;
  return { ...table, [area]: { ...table[area], [operation]: paths } };
};
const specAreas = readSpecAreas(root);

describe("the alias table", () => {
  it("groups every canonical operation under the area whose interface declares it", () => {
    const table = readAliasTable(root) as Table;
    expect(Object.keys(table).filter((key) => !key.startsWith("$"))).toEqual([
      "listings",
      "catalog",
      "feeds",
      "mcp",
      "a2a",
      "documents",
      "demo",
      "ops",
      "web",
      "assets",
      "webhooks",
      "sync",
    ]);
    expect([...specAreas].sort()).toEqual(Object.keys(areas).sort());
    for (const [area, operations] of Object.entries(areas)) expect(Object.keys(table[area]!)).toEqual([...operations]);
    expect(readFileSync("generated/routes.tsp", "utf8")).toContain(
      '@route("/bazaar.json") op getCatalog is Catalog.getCatalog;',
    );
  });

  it("adds a routed operation for a new alias on regeneration, answered by the canonical handler", async () => {
    const feeCard = (readAliasTable(root) as Table).listings!.getFeeCard!;
    const files = await renderAll({
      aliasTable: withPaths("listings", "getFeeCard", [...feeCard, "/fees/listing.json"]),
      contractOnly: true,
    });
    const regenerated = JSON.parse(files.get("generated/openapi.json")!) as Document;
    expect(paths(regenerated)["/fees/listing.json"]?.get?.operationId).toBe("getFeeCard__feesListingJson");
    expect(files.get("generated/routes.tsp")).toContain(
      '@route("/fees/listing.json") op getFeeCard__feesListingJson is Listings.getFeeCard;',
    );
    expect(files.get("generated/operations.ts")).toContain('getFeeCard__feesListingJson: "getFeeCard"');
    expect(files.get("generated/operations.ts")).toContain(
      '{ method: "GET", path: "/fees/listing.json", operationId: "getFeeCard__feesListingJson", canonical: "getFeeCard", area: "listings" }',
    );
    expect(Object.keys(paths(regenerated)).length).toBe(Object.keys(paths(contract)).length + 1);
  });

  it("refuses a malformed path and a route declared twice", async () => {
    await expect(
      renderAll({ aliasTable: withPaths("listings", "getFeeCard", ["fee.json"]), contractOnly: true }),
    ).rejects.toThrow(/malformed path/);
    await expect(
      renderAll({ aliasTable: withPaths("listings", "getFeeCard", ["/fee.json", "/status"]), contractOnly: true }),
    ).rejects.toThrow(/duplicate-operation|Duplicate operation/);
  });

  it("refuses an unknown area, an operation in two areas and an operationId given twice", () => {
    const table = readAliasTable(root) as Table;
    expect(() => expandAliasTable({ ...table, billing: { getInvoice: ["/invoice.json"] } }, specAreas)).toThrow(
      "aliases.json: unknown area 'billing': no interface Billing in spec/billing.tsp",
    );
    expect(() =>
      expandAliasTable({ ...table, feeds: { ...table.feeds, getStatus: ["/feed-status.json"] } }, specAreas),
    ).toThrow("aliases.json: operation 'getStatus' is in two areas, 'catalog' and 'feeds'");
    // "/fee" and "/fee/" both name the alias getFeeCard__fee.
    expect(() =>
      expandAliasTable(withPaths("listings", "getFeeCard", ["/fee.json", "/fee", "/fee/"]), specAreas),
    ).toThrow("aliases.json: operationId 'getFeeCard__fee' appears twice");
  });

  it("refuses a canonical operation of an area that the table gives no path", async () => {
    const { getFacilitator: _, ...listings } = (readAliasTable(root) as Table).listings!;
    await expect(renderAll({ aliasTable: { ...readAliasTable(root), listings }, contractOnly: true })).rejects.toThrow(
      "spec/aliases.json gives no path to Listings.getFacilitator",
    );
  });

  it("is what the committed contract was compiled from", async () => {
    const files = await renderAll({ contractOnly: true });
    expect(files.get("generated/openapi.json")).toBe(committed);
  });
});

describe("the route table", () => {
  it("lists every operation of the compiled contract once, with its method, in alias-table order", () => {
    const declared = Object.entries(paths(contract)).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => `${method.toUpperCase()} ${path} ${operation.operationId}`),
    );
    expect(routeTable.map(({ method, path, operationId }) => `${method} ${path} ${operationId}`).sort()).toEqual(
      declared.sort(),
    );
    expect(routeTable.map(({ operationId }) => operationId)).toEqual(Object.keys(canonicalOf));
    expect(routeTable.find(({ path, method }) => path === "/listings" && method === "POST")).toEqual({
      method: "POST",
      path: "/listings",
      operationId: "createListing",
      canonical: "createListing",
      area: "listings",
    });
  });

  it("names each route's canonical operation and the area that holds it", () => {
    for (const route of routeTable) {
      expect(canonicalOf[route.operationId]).toBe(route.canonical);
      expect(areas[route.area] as readonly string[]).toContain(route.canonical);
    }
    expect(Object.values(areas).flat().sort()).toEqual([...canonicalOperationIds].sort());
  });

  it("carries the contract version, which package.json repeats", () => {
    expect(CONTRACT_VERSION).toBe((contract.info as { version: string }).version);
    expect((JSON.parse(readFileSync("package.json", "utf8")) as { version: string }).version).toBe(CONTRACT_VERSION);
  });
});
