import type { AddressInfo } from "node:net";
import { createServer, type RequestListener, type Server } from "node:http";
import { marketFacts } from "./catalog/market.js";
import { deriveAccounts, ANVIL_MNEMONIC } from "./chain/local-chain.js";
import type { Config } from "./config.js";
import { handlers } from "./handlers/index.js";
import { createApp } from "./http/app.js";
import { loadContract } from "./http/contract.js";
import type { Services } from "./http/handler-types.js";
import { createRouter, type Router } from "./http/router.js";
import type { Logger } from "./logger.js";
import { redact } from "./storage/connection.js";
import { openDatabase, type Database } from "./storage/database.js";
import { ListingStore } from "./storage/listing-store.js";
import { applyMigrations } from "./storage/migrate.js";

export interface RunningServer {
  url: string;
  database: Database;
  server: Server;
  router: Router;
  services: Services;
  close(): Promise<void>;
}

/** In development without MARKETPLACE_PAY_TO: the local chain's marketplace wallet (anvil account 2). */
function developmentPayTo(): string {
  return deriveAccounts(ANVIL_MNEMONIC, 3)[2]!.address;
}

async function listen(config: Config, listener: { current?: RequestListener }): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (listener.current) return listener.current(req, res);
    res.writeHead(503, { "content-type": "application/json; charset=utf-8", "retry-after": "1" });
    res.end('{"error":"starting","message":"The service is starting; retry in a moment."}');
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/**
 * Migrates and opens the database, listens (`config.port` 0 picks a free port), then builds the
 * service from its parts. Without PUBLIC_BASE_URL, links follow the port actually bound.
 */
export async function startServer(configIn: Config, logger: Logger): Promise<RunningServer> {
  const { applied } = await applyMigrations(configIn.databaseUrl);
  if (applied.length > 0) logger.info({ database: redact(configIn.databaseUrl), applied }, "applied migrations");
  const database = await openDatabase(configIn.databaseUrl);
  const listener: { current?: RequestListener } = {};
  const { server, port } = await listen(configIn, listener);
  const config = configIn.publicBaseUrlExplicit ? configIn : { ...configIn, publicBaseUrl: `http://localhost:${port}` };

  const contract = loadContract();
  const services: Services = {
    config,
    logger,
    contract,
    market: marketFacts(config, config.marketplacePayTo ?? developmentPayTo()),
    store: new ListingStore(database),
    now: () => new Date(),
  };
  const router = await createRouter(contract, handlers, services);
  listener.current = createApp({ router, logger, maxBodyBytes: config.maxBodyBytes }).callback();

  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
    database,
    server,
    router,
    services,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await database.close();
    },
  };
}
