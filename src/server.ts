import type { AddressInfo } from "node:net";
import { createServer, type RequestListener, type Server } from "node:http";
import { QUERY_BURST_WINDOW_SECONDS, type Config } from "./config.js";
import { handlers } from "./handlers/index.js";
import { CatalogFreshness } from "./catalog/freshness.js";
import { catalogChangeFeedFor } from "./storage/catalog/catalog-notices.js";
import { createApp } from "./http/app.js";
import { createEntry } from "./http/entry.js";
import { CATALOG_WORK, GATED_CATALOG_WORK, routeMiddleware } from "./handlers/route-middleware.js";
import { RefusedClients } from "./http/refused-clients.js";
import { WorkGate } from "./workers/work-gate.js";
import { answerFramingErrorsWithJson, refuseMissingHost } from "./http/framing-errors.js";
import { ResponseCache } from "./http/response-cache.js";
import { loadContract } from "./contract/load.js";
import type { AreaContexts } from "./services.js";
import { createRouter, type Router } from "./http/router.js";
import type { Logger } from "./logger.js";
import { marketFactsFor, setupPayments, type Payments } from "./payments/setup.js";
import { SellerProbe } from "./probe/seller-probe.js";
import { bothLimits, createProbeLimits } from "./probe/rate-limiter.js";
import { createDocumentPool, createWorkPool } from "./workers/pool.js";
import { collectProcessMetrics } from "./metrics.js";
import { createReadiness } from "./readiness.js";
import { redact } from "./storage/connection.js";
import { openDatabase, type Database } from "./storage/database.js";
import { createRepositories, type Repositories } from "./repositories.js";
import { generatePrivateKey } from "viem/accounts";
import type { Hex } from "viem";
import { snapshotSigner } from "./market/snapshot-signing.js";
import { WebhookSubscriptions } from "./webhooks/subscriptions.js";
import { createHealth } from "./health/health.js";
import { applyMigrations } from "./storage/migrate.js";
import { createUsageService } from "./usage/service.js";
import { backgroundJobs } from "./background-jobs.js";
import type { JobRegistry } from "./jobs/registry.js";
import { CatalogRanker } from "./queries/ranked-search.js";
import { SearchService } from "./search/service.js";

/** How long close() lets requests in flight finish before it closes their connections. */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface RunningServer {
  url: string;
  database: Database;
  server: Server;
  router: Router;
  contexts: AreaContexts;
  /** Every store, built once (src/repositories.ts). */
  repositories: Repositories;
  /** The background jobs (src/background-jobs.ts), started with the server and stopped by close(). */
  jobs: JobRegistry;
  close(): Promise<void>;
}

async function listen(
  config: Config,
  listener: { current?: RequestListener },
): Promise<{ server: Server; port: number }> {
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    if (refuseMissingHost(req, res)) return;
    if (listener.current) return listener.current(req, res);
    res.writeHead(503, { "content-type": "application/json; charset=utf-8", "retry-after": "1" });
    res.end('{"error":"starting","message":"The service is starting; retry in a moment."}');
  });
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 30_000;
  server.headersTimeout = 20_000;
  answerFramingErrorsWithJson(server);
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
export interface ServerOptions {
  /** The clock every read and write uses (tests move it to cross an expiry). */
  now?: () => Date;
  /** Payments built by the caller, who also closes them; default: from the configuration (src/payments/setup.ts). */
  payments?: Payments;
  /** How long close() lets requests in flight finish before it closes their connections. */
  shutdownGraceMs?: number;
}

export async function startServer(
  configIn: Config,
  logger: Logger,
  options: ServerOptions = {},
): Promise<RunningServer> {
  const payments = options.payments ?? (await setupPayments(configIn, logger));
  const { applied } = await applyMigrations(configIn.databaseUrl);
  if (applied.length > 0) logger.info({ database: redact(configIn.databaseUrl), applied }, "applied migrations");
  const database = await openDatabase(configIn.databaseUrl, {
    readPoolSize: configIn.databaseReadPoolSize,
    sqliteCacheMb: configIn.sqliteCacheMb,
  });
  collectProcessMetrics();
  const probeLimits = await createProbeLimits(configIn.probe, {
    redisUrl: configIn.ops.redisUrl,
    keyPrefix: configIn.ops.redisKeyPrefix,
    logger,
  });
  const listener: { current?: RequestListener } = {};
  const { server, port } = await listen(configIn, listener);
  const config = configIn.publicBaseUrlExplicit ? configIn : { ...configIn, publicBaseUrl: `http://localhost:${port}` };

  const contract = loadContract();
  const now = options.now ?? (() => new Date());
  const repositories = createRepositories(database);
  const store = repositories.listings;
  const catalogChanges = catalogChangeFeedFor(config.databaseUrl, { logger });
  const freshness = new CatalogFreshness(store, now, catalogChanges);
  const usageRpcUrl = config.payments.chainRpcUrl ?? payments.facilitator.localChain?.rpcUrl ?? null;
  const usage = createUsageService({
    store: repositories.usage,
    config: config.usage,
    rpcUrl: usageRpcUrl,
    embedded: !config.payments.chainRpcUrl && payments.facilitator.localChain !== null,
    asset: payments.asset,
    marketplace: payments.payTo,
    logger,
    now,
  });
  const work = {
    ownerPerClient: probeLimits.limit("owner:client", config.work.ownerPerClientPerMinute),
    paymentPerClient: probeLimits.limit("payment:client", config.work.paymentPerClientPerMinute),
    webhookPerClient: probeLimits.limit("webhook:client", config.work.webhookPerClientPerMinute),
    syncPerClient: probeLimits.limit("sync:client", config.work.syncPerClientPerMinute),
    queryPerClient: bothLimits(
      probeLimits.limit("query:client", config.work.queryPerClientPerMinute),
      probeLimits.limit("query:burst", config.work.queryBurstPerClient, QUERY_BURST_WINDOW_SECONDS),
    ),
    pool: createWorkPool(config.work),
  };
  // A snapshot's text, its parsed items and their canonical form fit in about four times its size.
  const documentPool = createDocumentPool({
    threads: config.work.threads,
    heapMb: 64 + 4 * Math.ceil(config.discovery.indexing.maxSnapshotBytes / 1024 / 1024),
  });
  const probe = new SellerProbe(
    config.probe,
    { network: config.network, asset: payments.asset },
    undefined,
    probeLimits,
  );
  const market = marketFactsFor(config, payments);
  const health = createHealth({ store, probe, config: config.health, logger, now });
  const documents = { market, contract };
  // The ranking engine loads the catalog in the background: searches answer with substring matching
  // (searchModeReason "semantic-not-ready") until it is in, and the request thread never waits on the model.
  const ranker = config.semanticSearch ? new CatalogRanker(new SearchService(database, { log: logger })) : null;
  // The engine follows the catalog by notices: this instance's writes at their commit, other
  // instances' by LISTEN (PostgreSQL); the follow job's poll catches whatever no notice told of.
  ranker?.follow(store, catalogChanges, now);
  // Every instance signs snapshots with the same key: configured, or generated once into the database.
  const signer = snapshotSigner(
    config.discovery.signingKey ??
      ((await repositories.keys.getOrCreate("snapshot", generatePrivateKey, now())) as Hex),
  );
  const discovery = { signer, peers: config.discovery.peers, startedAt: now() };
  const catalog = { ...documents, store, events: repositories.events, freshness, now, ranker, discovery };
  const listingReads = { ...catalog, health, usage };
  const uncachedWork = new WorkGate({
    concurrency: config.work.uncachedConcurrency,
    maxWaiting: config.work.uncachedMaxWaiting,
    maxWaitMs: config.work.uncachedWaitMs,
    share: config.work.uncachedShare,
  });
  const mcp = { ...catalog, config, logger, probe, queryLimit: work.queryPerClient, uncachedWork };
  const contexts: AreaContexts = {
    listings: {
      ...listingReads,
      config,
      logger,
      owners: repositories.owners,
      payments,
      probe,
      idempotency: repositories.idempotency,
      work,
    },
    catalog,
    feeds: catalog,
    mcp,
    a2a: mcp,
    documents,
    demo: { ...documents, payments, now },
    ops: { config, readiness: createReadiness({ database, payments }) },
    web: listingReads,
    assets: {},
    sync: { ...catalog, signer },
    webhooks: {
      webhooks: new WebhookSubscriptions({
        store: repositories.webhooks,
        events: repositories.events,
        market,
        signatures: work.pool,
        allowLoopbackReceivers: config.events.allowLoopbackReceivers,
        pendingCaps: {
          perClient: config.events.pendingPerClient,
          perHost: config.events.pendingPerHost,
          total: config.events.pendingTotal,
        },
        now,
      }),
    },
  };
  const jobs = backgroundJobs({
    config,
    logger,
    now,
    repositories,
    market,
    payments,
    probe,
    documents: documentPool,
    prober: health.prober,
    usage,
    search: ranker?.service ?? null,
  });
  await jobs.start();
  const rankerStarted = ranker
    ?.start(now())
    .catch((error: unknown) =>
      logger.warn({ err: error }, "search: the catalog could not be indexed; searches answer with substring matching"),
    );
  const router = await createRouter(contract, handlers, contexts);
  const responseCache = new ResponseCache(freshness, { now });
  const refused = new RefusedClients(CATALOG_WORK, config.trustProxy);
  const app = createApp({
    router,
    logger,
    maxBodyBytes: config.maxBodyBytes,
    responseCache,
    routeMiddleware: routeMiddleware(
      { probe, work },
      ranker ? (text) => ranker.service.embedQuery(text) : undefined,
      refused,
    ),
    uncachedWork: {
      gate: uncachedWork,
      operations: GATED_CATALOG_WORK,
    },
    trustProxy: config.trustProxy,
  }).callback();
  listener.current = createEntry({
    logger,
    responseCache,
    app,
    refused,
    accessLogSample: config.ops.accessLogSample,
  });

  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  return {
    url: `http://${host === "0.0.0.0" ? "127.0.0.1" : host}:${port}`,
    database,
    server,
    router,
    contexts,
    repositories,
    jobs,
    close: async () => {
      // Requests in flight may finish; a client that stops reading (a large body it never
      // consumes) would otherwise hold close() open for as long as it keeps the socket.
      const grace = setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? SHUTDOWN_GRACE_MS);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      clearTimeout(grace);
      await jobs.stop();
      await rankerStarted;
      await ranker?.service.close();
      await probeLimits.close();
      await work.pool.close();
      await documentPool.close();
      await catalogChanges?.close();
      await database.close();
      if (!options.payments) await payments.close();
    },
  };
}
