import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import type { Config } from "./config.js";
import { handlers } from "./handlers/index.js";
import { createApp } from "./http/app.js";
import { loadContract } from "./http/contract.js";
import type { Services } from "./http/handler-types.js";
import { createRouter, type Router } from "./http/router.js";
import type { Logger } from "./logger.js";
import { openDatabase, type Database } from "./storage/database.js";
import { ListingStore } from "./storage/listing-store.js";
import { applyMigrations } from "./storage/migrate.js";
import { redact } from "./storage/connection.js";

export interface RunningServer {
  url: string;
  database: Database;
  server: Server;
  router: Router;
  services: Services;
  close(): Promise<void>;
}

/** Migrates and opens the database, builds the service from its parts and listens; `config.port` 0 picks a free port. */
export async function startServer(config: Config, logger: Logger): Promise<RunningServer> {
  const { applied } = await applyMigrations(config.databaseUrl);
  if (applied.length > 0) logger.info({ database: redact(config.databaseUrl), applied }, "applied migrations");
  const database = await openDatabase(config.databaseUrl);
  const contract = loadContract();
  const services: Services = { config, logger, contract, store: new ListingStore(database), now: () => new Date() };
  const router = await createRouter(contract, handlers, services);
  const app = createApp({ router, logger, maxBodyBytes: config.maxBodyBytes });
  const server = createServer(app.callback());
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(config.port, config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  if (!config.publicBaseUrlExplicit) services.config = { ...config, publicBaseUrl: `http://localhost:${port}` };
  const url = `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
  return {
    url,
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
