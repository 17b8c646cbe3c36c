// The web pages over plain HTTP: what they carry (the documents' data, escaped), their headers
// (Content-Security-Policy, ETag, 304) and the HTML 404 of a listing that is not live.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, startCatalogServer, type CatalogServer } from "../support/catalog.js";

const HOSTILE = `<script>alert(1)</script> "><img src=x onerror=alert(2)> & done`;

describe.each(databaseKinds)("web pages ($name)", (kind) => {
  let market: CatalogServer;
  let hostileId: string;
  let plainId: string;

  beforeAll(async () => {
    market = await startCatalogServer(kind);
    plainId = (await market.list({ description: "Weather forecasts for any city on earth", priceUsdc: "0.02" })).id;
    hostileId = (await market.list({ description: HOSTILE, resource: "https://evil.example.com/x'\"><b>bold</b>" })).id;
  });
  afterAll(async () => market?.close());

  const page = async (path: string, init?: RequestInit) => {
    const response = await market.server.fetch(path, init);
    return { response, html: await response.text() };
  };

  it("serves the home page as HTML with a strict Content-Security-Policy", async () => {
    const { response, html } = await page("/");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    const policy = response.headers.get("content-security-policy")!;
    for (const directive of [
      "default-src 'none'",
      "img-src 'self' data:",
      "form-action 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
    ]) {
      expect(policy).toContain(directive);
    }
    expect(policy).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(policy).not.toContain("script-src");
    expect(html.startsWith('<!doctype html><html lang="en">')).toBe(true);
    expect(html).toContain("Weather forecasts for any city on earth");
    expect(html).toContain(`href="/listing/${plainId}"`);
    expect(html).toContain('href="/bazaar.json?limit=20&amp;offset=0"');
    for (const link of ["/llms.txt", "/openapi.json", "/mcp", "/.well-known/agent-card.json"])
      expect(html).toContain(`href="${link}"`);
  });

  it("escapes listing text: a hostile description or resource is text, never markup", async () => {
    for (const path of ["/", `/listing/${hostileId}`]) {
      const { html } = await page(path);
      expect(html).not.toContain("<script>alert(1)");
      expect(html).not.toContain("<img src=x");
      expect(html).not.toContain("<b>bold</b>");
      expect(html).toContain("&lt;script>alert(1)&lt;/script> &quot;>&lt;img src=x onerror=alert(2)> &amp; done");
      // The only script of any page is the sell page's own.
      expect(html.match(/<script/g)).toBeNull();
    }
  });

  it("shows the listing document's fields, the JSON twin link and copy-ready commands", async () => {
    const { response, html } = await page(`/listing/${plainId}`);
    expect(response.status).toBe(200);
    const json = await market.json<{ item: { resource: string; metadata: { priceUsdc: string; salePayTo: string } } }>(
      `/listings/${plainId}`,
    );
    expect(html).toContain(`href="/listings/${plainId}"`);
    expect(html).toContain(json.body.item.resource);
    expect(html).toContain(json.body.item.metadata.salePayTo);
    expect(html).toContain("0.02 USDC per call");
    expect(html).toContain(`npx x402-market buy ${plainId} --max 0.02`);
    expect(html).toContain(`curl -i -X POST '${json.body.item.resource}' -H 'content-type: application/json' -d '{}'`);
    expect(html).toContain("No re-probe history yet");
  });

  it("renders the listing's health history as GET /listings/{id} has it: a chart, the last probes, the status", async () => {
    const { id } = await market.list({ description: "Geocoding of street addresses, probed once" });
    const before = await page(`/listing/${id}`);
    expect(before.html).toContain("No re-probe history yet");
    await market.server.contexts.listings.health.recordListingProbe(id, 120, market.clock.now());
    const json = await market.json<{
      healthHistory: Array<{ day: string }>;
      lastProbes: unknown[];
      item: { metadata: { health: { status: string } } };
    }>(`/listings/${id}`);
    expect(json.body.healthHistory).toHaveLength(1);
    const after = await page(`/listing/${id}`);
    expect(after.response.headers.get("etag")).not.toBe(before.response.headers.get("etag"));
    expect(after.html).not.toContain("No re-probe history yet");
    expect(after.html).toContain("Daily uptime over 1 day, from 100% to 100%");
    expect(after.html.match(/<rect /g)).toHaveLength(json.body.healthHistory.length);
    expect(after.html).toContain(`${json.body.healthHistory[0]!.day}: 100% of 1 probes`);
    expect(after.html).toContain(`<span class="badge ${json.body.item.metadata.health.status}">`);
    expect(after.html).toContain("120 ms");
  });

  it("answers 304 to a matching If-None-Match, and a new ETag once the catalog changes", async () => {
    for (const path of ["/", `/listing/${plainId}`, "/sell.html", "/?query=weather"]) {
      const first = await page(path);
      const etag = first.response.headers.get("etag")!;
      expect(etag).toMatch(/^W\//);
      const again = await market.server.fetch(path, { headers: { "if-none-match": etag } });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe("");
    }
    const before = (await page("/")).response.headers.get("etag");
    await market.list({ description: "A newer listing that changes the home page" });
    const after = await page("/");
    expect(after.response.headers.get("etag")).not.toBe(before);
    expect(after.html).toContain("A newer listing that changes the home page");
  });

  it("searches and filters with the catalog's own parameters, and pages", async () => {
    const search = await page("/?query=weather&network=&health=any&sort=newest");
    expect(search.response.status).toBe(200);
    expect(search.html).toContain("Weather forecasts");
    expect(search.html).not.toContain("changes the home page");
    expect(search.html).toContain('href="/discovery/search?query=weather&amp;limit=20&amp;offset=0"');
    const paged = await page("/?limit=1&offset=1");
    expect(paged.html).toContain('rel="prev"');
    expect(paged.html).toContain('rel="next"');
    expect(paged.html).toMatch(/2–2 of \d+/);
    const bad = await market.server.fetch("/?health=sparkling");
    expect(bad.status).toBe(400);
  });

  it("titles a card cleanly: a long description is cut at a word with an ellipsis, not repeated whole; pages are numbered; filters can be cleared", async () => {
    const long =
      "Translates documents between forty languages while keeping tables, footnotes and layout intact, for contracts, manuals and research papers alike; " +
      "glossaries per customer, and a second pass by a reviewing model on request";
    await market.list({ description: long, resource: "https://translate.example.com/v2/documents" });
    const { html } = await page("/");
    expect(html).toContain(">translate.example.com/v2</a>");
    expect(html).toMatch(/glossaries per customer, and a second pass by a…<\/p>/);
    expect(html).not.toContain(long);
    const paged = await page("/?limit=1&offset=1");
    expect(paged.html).toMatch(/<strong aria-current="page"> 2 <\/strong>/);
    expect(paged.html).toContain('href="/?limit=1"> 1 </a>');
    const filtered = await page("/?verified=true");
    expect(filtered.html).toContain('<a href="/">Clear the filters</a>');
    expect(filtered.html).not.toContain("At a glance");
    // The unfiltered first page opens with the catalog at a glance: live listings by health, as a chart and in words.
    expect(html).toContain("At a glance");
    expect(html).toMatch(/live listings: \d+ healthy, \d+ not re-probed yet, \d+ unhealthy, \d+ drifted\./);
  });

  it("answers a listing that is not live with an HTML 404 page", async () => {
    for (const id of ["00000000-0000-4000-8000-000000000000", "not-a-listing"]) {
      const { response, html } = await page(`/listing/${id}`);
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
      expect(html).toContain("Listing not found");
    }
  });

  it("serves the sell page with the fee, the dry-run form and a script allowed only by its hash", async () => {
    const { response, html } = await page("/sell.html");
    expect(response.status).toBe(200);
    const policy = response.headers.get("content-security-policy")!;
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    expect(policy).toContain("connect-src 'self'");
    const fee = await market.json<{ usdc: string; payTo: string }>("/fee.json");
    expect(html).toContain(`${fee.body.usdc} USDC`);
    expect(html).toContain(fee.body.payTo);
    expect(html).toContain('action="/listings/validate"');
    expect(html).toContain("npx x402-market list");
    expect(html).toContain("bash list.sh");
    expect(html).toContain("createMarketplaceClient");
    expect(html).toContain('href="/sell.json"');
    // The form comes first; the dense steps after it.
    expect(html.indexOf('id="validate-form"')).toBeLessThan(html.indexOf('<h2 id="steps">'));
  });

  it("keeps /bazaar.json JSON for a browser", async () => {
    const response = await market.server.fetch("/bazaar.json", {
      headers: { accept: "text/html,application/xhtml+xml,*/*;q=0.8" },
    });
    expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  });
});

describe("the web catalog on a first start", () => {
  let market: CatalogServer;
  beforeAll(async () => {
    market = await startCatalogServer(databaseKinds[0]!, { LOAD_SEED: "true" });
  });
  afterAll(async () => market?.close());

  it("says no seller has listed yet and offers the marketplace's demo endpoints, labelled as demo", async () => {
    const first = await (await market.server.fetch("/")).text();
    expect(first).toContain("No seller has listed an endpoint here yet.");
    expect(first).toContain('href="/?includeSeed=true"');
    // Nothing to summarise yet: no "at a glance" beside an empty catalog.
    expect(first).not.toContain('<aside class="summary"');
    const demo = await (await market.server.fetch("/?includeSeed=true")).text();
    expect(demo).toContain("/kr-");
    expect(demo).toContain('<span class="badge"> demo</span>');
    expect(demo).toContain('<a href="/">Clear the filters</a>');
  });
});
