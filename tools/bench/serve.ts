/**
 * One server for the benchmarks, in its own process so it does not share an event loop with the
 * load generator: `serve.ts node|koa <body file> [headers file]` serves those bytes; bare node:http
 * also answers 304 to a matching If-None-Match, and with a headers file (`{ "200": {...}, "304":
 * {...} }`, captured from the service) it sends exactly the service's headers, so both put the same
 * bytes on the wire. The service itself is measured through `npm start`'s command.
 * Prints `{"url": ..., "pid": ...}` when listening.
 */
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { readFileSync } from "node:fs";
import Koa from "koa";

const kind = process.argv[2];
const body = process.argv[3] ? readFileSync(process.argv[3]) : Buffer.from("{}");
const headers = process.argv[4]
  ? (JSON.parse(readFileSync(process.argv[4], "utf8")) as Record<"200" | "304", Record<string, string>>)
  : undefined;
const etag = headers?.["200"].etag;

async function listen(listener: RequestListener): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let url: string;
if (kind === "node") {
  url = await listen((req, res) => {
    if (etag && req.headers["if-none-match"] === etag) {
      res.writeHead(304, headers!["304"]);
      res.end();
      return;
    }
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      ...headers?.["200"],
      "content-length": body.length,
    });
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
  throw new Error(`serve.ts serves node or koa, not ${kind}`);
}
console.log(JSON.stringify({ url, pid: process.pid }));
process.on("SIGINT", () => process.exit(0));
