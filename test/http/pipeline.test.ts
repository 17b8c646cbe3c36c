import { Writable } from "node:stream";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { offlinePayments } from "../support/payments.js";

/** The service with its access log (debug) captured. */
async function startLogged(): Promise<{ server: RunningServer; lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n").filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig({
    PORT: "0",
    LOG_LEVEL: "debug",
    LOAD_SEED: "false",
    SEARCH_SEMANTIC: "false",
    DATABASE_URL: `file:${process.env.TMPDIR ?? "/tmp"}/pipeline-${process.pid}-${Date.now()}.db`,
  });
  const server = await startServer(config, pino({ level: "debug" }, sink), {
    payments: await offlinePayments(config),
    shutdownGraceMs: 500,
  });
  return { server, lines };
}

describe("one pipeline for every request", () => {
  let server: RunningServer;
  let lines: Array<Record<string, unknown>>;
  beforeAll(async () => {
    ({ server, lines } = await startLogged());
  });
  afterAll(async () => {
    await server?.close();
  });
  const requestsOf = (path: string) => lines.filter((line) => line.msg === "request" && line.path === path);

  it("logs a read answered from the response cache like the first, marked cached, with the same CORS headers", async () => {
    const first = await fetch(`${server.url}/bazaar.json`, { headers: { Origin: "https://agent.example" } });
    await first.text();
    const again = await fetch(`${server.url}/bazaar.json`, { headers: { Origin: "https://agent.example" } });
    await again.text();
    const revalidated = await fetch(`${server.url}/bazaar.json`, {
      headers: { "If-None-Match": first.headers.get("etag")! },
    });

    expect(revalidated.status).toBe(304);
    expect(again.headers.get("access-control-allow-origin")).toBe("*");
    expect(again.headers.get("etag")).toBe(first.headers.get("etag"));
    expect(requestsOf("/bazaar.json").map((line) => [line.status, line.cached ?? false])).toEqual([
      [200, false],
      [200, true],
      [304, true],
    ]);
  });

  it("answers OPTIONS with the path's methods, and another method with 405, Allow and a JSON error", async () => {
    const options = await fetch(`${server.url}/listings`, { method: "OPTIONS" });
    expect(options.status).toBe(200);
    expect(options.headers.get("allow")).toBe("GET, POST, HEAD");
    const refused = await fetch(`${server.url}/listings`, { method: "DELETE" });
    expect(refused.status).toBe(405);
    expect(refused.headers.get("allow")).toBe("GET, POST, HEAD");
    expect(await refused.json()).toMatchObject({ error: "method_not_allowed" });
  });

  it("matches the contract's paths exactly: a trailing slash is the same route, another case is not", async () => {
    expect((await fetch(`${server.url}/status.json/`)).status).toBe(200);
    const upper = await fetch(`${server.url}/STATUS.JSON`);
    expect(upper.status).toBe(404);
    expect(await upper.json()).toMatchObject({ error: "not_found" });
  });
});
