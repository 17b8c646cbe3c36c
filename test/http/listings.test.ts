import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

describe.each(databaseKinds)("GET /listings on $kind", (kind) => {
  let market: CatalogServer;
  beforeAll(async () => {
    market = await startCatalogServer(kind, { LOAD_SEED: "true" });
  });
  afterAll(async () => {
    await market?.close();
  });

  it("gives the fee, the active third-party listings, the schema and an example that validates", async () => {
    const created = await market.list();
    const { status, body } = await market.json<{
      listingFeeUsdc: string;
      listingFeePayTo: string;
      ttlDays: number;
      count: number;
      items: Array<{ metadata: { listingId: string } }>;
      schema: { additionalProperties: boolean };
      example: Record<string, unknown>;
      links: Record<string, string>;
    }>("/listings");
    expect(status).toBe(200);
    expect(body).toMatchObject({ listingFeeUsdc: "0.10", listingFeePayTo: market.server.services.market.payTo, ttlDays: 30, count: 1 });
    expect(body.items.map((item) => item.metadata.listingId)).toEqual([created.id]);
    expect(body.schema.additionalProperties).toBe(false);
    expect(body.example.network).toBe("eip155:8453");
    expect(await (await market.server.fetch("/listings.json")).text()).toBe(JSON.stringify(body));
    const validation = await market.server.fetch("/listings/validate", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body.example) });
    // The example passes every check of the body; only the probe of its placeholder seller fails,
    // and the dry run says so: nothing charged, nothing saved.
    expect(validation.status).toBe(422);
    const report = (await validation.json()) as { ok: boolean; charged: boolean; saved: boolean; error: string; checks: Array<{ name: string; ok: boolean; reason: string }> };
    expect(report).toMatchObject({ ok: false, charged: false, saved: false, error: "listing_checks_failed" });
    const failed = report.checks.filter((check) => !check.ok);
    expect(failed).toEqual([expect.objectContaining({ name: "seller-probe", reason: expect.stringContaining(new URL(String(body.example.resource)).hostname) })]);
    expect(report.checks.filter((check) => check.ok).map((check) => check.name)).toEqual(["schema", "network", "price", "description", "sellerPayTo", "resource"]);
  });
});
