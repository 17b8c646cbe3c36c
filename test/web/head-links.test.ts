// What every page's head offers a browser and a feed reader: the site icon and the feeds, each a
// link that answers.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";

describe("page heads", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("link the icon and autodiscover the JSON, Atom and RSS feeds, on the home and sell pages", async () => {
    for (const page of ["/", "/sell.html"]) {
      const html = await (await server.fetch(page)).text();
      const links = [
        ...html.matchAll(/<link rel="(icon|alternate)" type="([^"]+)"(?: title="[^"]*")? href="([^"]+)"/g),
      ].map((match) => ({
        rel: match[1],
        type: match[2],
        href: match[3],
      }));
      expect(links, page).toEqual(
        expect.arrayContaining([
          { rel: "icon", type: "image/svg+xml", href: "/favicon.svg" },
          { rel: "alternate", type: "application/feed+json", href: "/feed.json" },
          { rel: "alternate", type: "application/atom+xml", href: "/feed.atom" },
          { rel: "alternate", type: "application/rss+xml", href: "/feed.rss" },
        ]),
      );
      for (const { href } of links) expect((await server.fetch(href!.replaceAll("&amp;", "&"))).status, href).toBe(200);
    }
  });
});
