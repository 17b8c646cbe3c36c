// Resources, the listing template, prompts, completion and logging through the SDK's own client
// over the real HTTP endpoint (POST /mcp, stateless).
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { ReadResourceResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds, sellerAddress, startCatalogServer, type CatalogServer } from "../support/catalog.js";

const textOf = (read: ReadResourceResult) => {
  const content = read.contents[0]!;
  return "text" in content ? content.text : "";
};

describe.each(databaseKinds)("MCP resources, prompts, completion and logging on $kind", (kind) => {
  let market: CatalogServer;
  let client: Client;
  let weatherId: string;
  beforeAll(async () => {
    market = await startCatalogServer(kind);
    weatherId = (
      await market.list({
        description: "Weather forecast for any city, hourly",
        metadata: { serviceName: "Skycast", tags: ["weather", "forecast"] },
        sellerPayTo: sellerAddress(1),
      })
    ).id;
    await market.list({ description: "Translates text between any two languages", sellerPayTo: sellerAddress(2) });
    client = new Client({ name: "resources-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${market.server.url}/mcp`)));
  });
  afterAll(async () => {
    await client?.close();
    await market?.close();
  });

  it("declares resources, prompts, completions and logging", () => {
    const capabilities = client.getServerCapabilities()!;
    expect(capabilities).toMatchObject({ resources: {}, prompts: {}, completions: {}, logging: {}, tools: {} });
  });

  it("lists the catalog and the playbooks, and each live listing through the listing://{id} template", async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((resource) => resource.uri);
    expect(uris).toEqual(
      expect.arrayContaining([
        "market://catalog",
        "market://playbooks/sell",
        "market://playbooks/buy",
        `listing://${weatherId}`,
      ]),
    );
    for (const resource of resources) expect(resource.name, resource.uri).toBeTruthy();
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({ uriTemplate: "listing://{id}", name: "listing", mimeType: "application/json" }),
    ]);
  });

  it("reads the catalog resource as GET /search reads the same page", async () => {
    const read = await client.readResource({ uri: "market://catalog" });
    const content = read.contents[0]!;
    expect(content).toMatchObject({ uri: "market://catalog", mimeType: "application/json" });
    const document = JSON.parse(textOf(read)) as { items: Array<{ description: string }> };
    const search = await market.json<{ items: Array<{ description: string }> }>("/search?limit=50");
    expect(document.items.map((item) => item.description)).toEqual(search.body.items.map((item) => item.description));
  });

  it("reads the playbooks as /sell.json and /buy.json serve them", async () => {
    for (const [uri, path] of [
      ["market://playbooks/sell", "/sell.json"],
      ["market://playbooks/buy", "/buy.json"],
    ] as const) {
      const read = await client.readResource({ uri });
      expect(JSON.parse(textOf(read))).toEqual((await market.json(path)).body);
    }
  });

  it("reads a listing by id, with its page and API links, and refuses an unknown id with -32002", async () => {
    const read = await client.readResource({ uri: `listing://${weatherId}` });
    const document = JSON.parse(textOf(read)) as {
      item: { description: string; serviceName: string };
      links: { page: string; api: string };
    };
    expect(document.item).toMatchObject({
      description: "Weather forecast for any city, hourly",
      serviceName: "Skycast",
    });
    expect(document.links.page).toMatch(new RegExp(`/listing/${weatherId}$`));
    expect(document.links.api).toMatch(new RegExp(`/listings/${weatherId}$`));
    await expect(client.readResource({ uri: "listing://no-such-listing" })).rejects.toMatchObject({
      code: -32002,
      message: expect.stringContaining("No live listing no-such-listing"),
    });
  });

  it("completes the template's id from live listings", async () => {
    const { completion } = await client.complete({
      ref: { type: "ref/resource", uri: "listing://{id}" },
      argument: { name: "id", value: weatherId.slice(0, 6) },
    });
    expect(completion.values).toContain(weatherId);
  });

  it("offers the prompts list_my_endpoint and find_and_buy, with their arguments", async () => {
    const { prompts } = await client.listPrompts();
    const byName = Object.fromEntries(prompts.map((prompt) => [prompt.name, prompt]));
    expect(byName.list_my_endpoint).toMatchObject({
      title: "List my endpoint",
      arguments: expect.arrayContaining([expect.objectContaining({ name: "resource", required: true })]),
    });
    expect(byName.find_and_buy).toMatchObject({
      title: "Find and buy",
      arguments: expect.arrayContaining([expect.objectContaining({ name: "need", required: true })]),
    });
    for (const prompt of prompts) expect(prompt.description).toBeTruthy();
  });

  it("gets each prompt as one user message naming the tools to call", async () => {
    const sell = await client.getPrompt({
      name: "list_my_endpoint",
      arguments: { resource: "https://api.example.com/weather", priceUsdc: "0.01" },
    });
    const sellText = sell.messages
      .map((message) => (message.content.type === "text" ? message.content.text : ""))
      .join("\n");
    expect(sell.messages[0]!.role).toBe("user");
    expect(sellText).toContain("https://api.example.com/weather");
    expect(sellText).toContain("validate_listing");
    expect(sellText).toMatch(/POST the same body to \S+\/listings /);
    const buy = await client.getPrompt({ name: "find_and_buy", arguments: { need: "weather forecast" } });
    const buyText = buy.messages
      .map((message) => (message.content.type === "text" ? message.content.text : ""))
      .join("\n");
    expect(buyText).toContain('list_market with query "weather forecast"');
    await expect(client.getPrompt({ name: "find_and_buy", arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it("completes prompt arguments: a need from the catalog's words, a price from common prices", async () => {
    const need = await client.complete({
      ref: { type: "ref/prompt", name: "find_and_buy" },
      argument: { name: "need", value: "wea" },
    });
    expect(need.completion.values).toContain("weather");
    const price = await client.complete({
      ref: { type: "ref/prompt", name: "list_my_endpoint" },
      argument: { name: "priceUsdc", value: "0.0" },
    });
    expect(price.completion.values).toEqual(expect.arrayContaining(["0.01", "0.05"]));
    expect(price.completion.values.every((value) => value.startsWith("0.0"))).toBe(true);
  });

  it("accepts logging/setLevel with an empty result, and refuses an unknown level with -32602", async () => {
    expect(await client.setLoggingLevel("info")).toEqual({});
    await expect(
      client.request(
        { method: "logging/setLevel", params: { level: "loud" } },
        (await import("@modelcontextprotocol/sdk/types.js")).EmptyResultSchema,
      ),
    ).rejects.toMatchObject({ code: -32602 });
  });
});
