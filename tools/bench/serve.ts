/**
 * One server for the benchmarks, in its own process so it does not share an event loop with the
 * load generator. `tsx tools/bench/serve.ts <node|koa|app>`; prints `{"url": ...}` when listening.
 */
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Koa from "koa";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { startServer } from "../../src/server.js";

const kind = process.argv[2];
const body = Buffer.from(process.argv[3] ?? "{}");

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let url: string;
if (kind === "node") {
  url = await listen((_req, res) => {
    res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
    res.end(body);
  });
} else if (kind === "koa") {
  const app = new Koa();
  app.use((ctx) => {
    ctx.type = "application/json; charset=utf-8";
    ctx.body = body;
  });
  url = await listen(app.callback());
} else {
  const databaseUrl = process.env.DATABASE_URL ?? `file:${join(mkdtempSync(join(tmpdir(), "bench-")), "bench.db")}`;
  const config = loadConfig({ ...process.env, PORT: "0", LOG_LEVEL: "silent", LOAD_SEED: "false", DATABASE_URL: databaseUrl });
  url = (await startServer(config, createLogger("silent"))).url;
}
console.log(JSON.stringify({ url }));
process.on("SIGINT", () => process.exit(0));
