// The icon browsers ask for by themselves: /favicon.ico (and /favicon.svg) answer an SVG, not 404.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../support/server.js";

describe("the site icon", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it("answers /favicon.ico and /favicon.svg with the same SVG, cacheable for a day", async () => {
    const bodies: string[] = [];
    for (const path of ["/favicon.ico", "/favicon.svg"]) {
      const answer = await server.fetch(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get("content-type"), path).toMatch(/^image\/svg\+xml/);
      expect(answer.headers.get("cache-control"), path).toBe("public, max-age=86400");
      bodies.push(await answer.text());
    }
    expect(bodies[0]).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(bodies[1]).toBe(bodies[0]);
  });
});
