import { availableParallelism } from "node:os";
import { isAddress } from "viem";
import { BASE_USDC, NETWORK, type Network } from "./constants.js";
import { parsePayments, type PaymentsConfig } from "./config-payments.js";
import { parseDiscovery, type DiscoveryConfig } from "./config-discovery.js";
import { declared, envReader, type Env, type EnvReader } from "./config-schema.js";

export { DEFAULT_BACKFILL_DUTY } from "./config-vars-service.js";

export { BARE_DOMAIN, type DiscoveryConfig, type IndexSource, type IndexingConfig } from "./config-discovery.js";

export type { FacilitatorMode, PaymentsConfig } from "./config-payments.js";

export interface Config {
  production: boolean;
  port: number;
  host: string;
  /** Origin every absolute link is built from, without a trailing slash. */
  publicBaseUrl: string;
  /** False when PUBLIC_BASE_URL was not set: the origin then follows the port actually bound. */
  publicBaseUrlExplicit: boolean;
  databaseUrl: string;
  /** PostgreSQL: connections of the catalog read pool (src/storage/pg-reader.ts). */
  databaseReadPoolSize: number;
  /** SQLite's page cache per connection, in MiB (better-sqlite3 builds it with 16). */
  sqliteCacheMb: number;
  /** The marketplace wallet receiving listing fees; null until configured (development only). */
  marketplacePayTo: string | null;
  asset: string;
  network: Network;
  marketplaceName: string;
  logLevel: string;
  maxBodyBytes: number;
  /** Behind a reverse proxy: take the client address from X-Forwarded-For (per-client probe limits). */
  trustProxy: boolean;
  /** Load the first-party `/kr-*` demo rows at start. */
  loadSeed: boolean;
  payments: PaymentsConfig;
  probe: ProbeConfig;
  ops: OpsConfig;
  work: WorkConfig;
  health: HealthConfig;
  usage: UsageConfig;
  /** Meaning-aware search (src/search/): off answers every search with today's substring matching and loads no model. */
  semanticSearch: boolean;
  /** The share of the time the search backfill embeds listings with the model (0: never; SEARCH_BACKFILL_DUTY). */
  searchBackfillDuty: number;
  events: EventsConfig;
  discovery: DiscoveryConfig;
}

/** The change log's time-driven events and their signed webhooks (src/webhooks/). */
export interface EventsConfig {
  /** How often due listing.expiring / listing.expired events are recorded (jittered); 0 turns it off. */
  termIntervalMs: number;
  /** How often the webhook deliverer looks for new events and due retries; 0 turns delivery off (tests run it on demand). */
  deliveryIntervalMs: number;
  /** Deliveries in flight at once, across subscribers (one at a time per subscriber). */
  deliveryConcurrency: number;
  /** A subscriber's endpoint must answer within this, or the attempt fails. */
  deliveryTimeoutMs: number;
  /**
   * An attempt holds one of the deliveryConcurrency slots at most this long; a slower endpoint waits
   * for its answer (up to deliveryTimeoutMs) outside them, so it cannot hold up other subscribers.
   */
  deliverySlotMs: number;
  /** Pending (unverified) subscriptions, and endpoints refused in the last 24 hours, at most: per client address, per target host, in all. */
  pendingPerClient: number;
  pendingPerHost: number;
  pendingTotal: number;
  /** Test and local-development setting: subscriber endpoints on loopback, over http. */
  allowLoopbackReceivers: boolean;
}

/** The usage indexer (src/usage/): sales read from the payment token's Transfer events. */
export interface UsageConfig {
  /** How often the indexer reads new blocks (jittered); 0 turns it off (tests run it on demand). */
  intervalMs: number;
  /** Blocks behind the head the indexer stays (null: 0 on the embedded chain, 12 elsewhere). */
  confirmations: number | null;
  /** How far back a reorg is looked for once the checkpoint's block hash changed. */
  reorgWindowBlocks: number;
  /** Largest block range one eth_getLogs asks for (the indexer halves it when a node refuses). */
  maxBlockRange: number;
  /** Seller addresses per eth_getLogs topic filter. */
  addressBatch: number;
  /** While catching up, the indexer rests this many times as long as each chunk took: requests keep the event loop. */
  catchUpRest: number;
}

/** The CPU budget of requests anyone can send (src/workers/, src/handlers/route-middleware.ts). */
export interface WorkConfig {
  /** Owner requests (sign, claim, update, delist, refresh) per minute per client address, checked before any signature work. */
  ownerPerClientPerMinute: number;
  /** Requests carrying a PAYMENT-SIGNATURE (POST /listings, the demo routes) per minute per client address, checked before the payment is verified. */
  paymentPerClientPerMinute: number;
  /** Webhook subscriptions (POST /webhooks) per minute per client address, checked before the body is read. */
  webhookPerClientPerMinute: number;
  /** GET /sync/listings pages per minute per client address (a page of 500 costs a few ms of CPU). */
  syncPerClientPerMinute: number;
  /**
   * Units of catalog work per minute per client address: each catalog page or feed the response cache
   * has not answered, each search, each POST /a2a and each request of a POST /mcp batch. Shared through
   * Redis when REDIS_URL is set, per instance otherwise.
   */
  queryPerClientPerMinute: number;
  /** The most of those units one client address may spend in 10 s (QUERY_BURST_PER_CLIENT). */
  queryBurstPerClient: number;
  /** Uncached catalog work (the operations above) running at once in this instance, at most. */
  uncachedConcurrency: number;
  /** Uncached requests waiting for a turn, at most; more are refused at once with 503 busy. */
  uncachedMaxWaiting: number;
  /** How long an uncached request waits for a turn before it is refused with 503 busy. */
  uncachedWaitMs: number;
  /** The share of the CPU uncached work may take (the gate rests between turns to keep to it); 1: no rest. */
  uncachedShare: number;
  /** Worker threads for signature recovery; 0 recovers on the request thread (no pool). */
  threads: number;
  /** Signature recoveries waiting for a thread, at most; more are refused at once with 503 busy. */
  maxQueue: number;
}

/** The listing re-probe (src/health/): schedule, politeness, and the health state rules. */
export interface HealthConfig {
  /** How often each live listing is re-probed (jittered); 0 turns re-probing off. */
  intervalMs: number;
  /** Consecutive failures that make a listing unhealthy, and successes that make it healthy again. */
  failuresToUnhealthy: number;
  successesToHealthy: number;
  /** Probes in flight at once on this instance, and the listings one claim takes. */
  concurrency: number;
  batchSize: number;
  /** Per target host: one probe in flight at a time, and at least this long between two. */
  hostGapMs: number;
  /** How long a claimed listing stays this instance's before another may take it over. */
  leaseMs: number;
  /** This instance's probe budget: at most this many probe starts a minute (0: none); the interval stretches to fit the catalog. */
  probesPerMinute: number;
}

/** Operating the service: metrics, access log, limits shared across instances. */
export interface OpsConfig {
  /** When set, GET /metrics needs `Authorization: Bearer <token>`. */
  metricsToken: string | null;
  /** Share of requests written to the access log, 0 to 1 (5xx answers are always written). */
  accessLogSample: number;
  /** Redis shared by every instance for the seller-probe limits; null: per-instance limits in memory. */
  redisUrl: string | null;
  /** Prefix of every Redis key this service writes (several services may share one Redis). */
  redisKeyPrefix: string;
}

export interface ProbeConfig {
  timeoutMs: number;
  maxResponseBytes: number;
  /** Token buckets, per instance: probes per minute for one client address and for one target host. */
  perClientPerMinute: number;
  perHostPerMinute: number;
  /** Test and local-development setting: sellers on loopback addresses, over http or self-signed https. */
  allowLoopbackSellers: boolean;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
    this.name = "ConfigError";
  }
}

/** The window of QUERY_BURST_PER_CLIENT. */
export const QUERY_BURST_WINDOW_SECONDS = 10;

const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

/** Reads and validates the environment, reporting every problem at once. */
export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const read = envReader(env, problems);
  const { integer, flag, fraction } = read;
  const production = read.raw("NODE_ENV") === "production";
  const address = (name: "MARKETPLACE_PAY_TO" | "ASSET_ADDRESS"): string | null => {
    const raw = read.raw(name);
    if (raw === undefined || raw === "") return null;
    if (!isAddress(raw, { strict: false })) {
      problems.push(`${name} must be a 0x address of 40 hex digits, got "${raw}"`);
      return null;
    }
    return raw;
  };

  const port = integer("PORT");
  const host = read.text("HOST", production ? "0.0.0.0" : "127.0.0.1");
  const publicBaseUrl = parseBaseUrl(read.raw("PUBLIC_BASE_URL"), `http://localhost:${port}`, problems);
  const databaseUrl = read.text("DATABASE_URL");
  if (!/^(file:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    problems.push(`DATABASE_URL must start with file: (SQLite) or postgresql:// (PostgreSQL), got "${databaseUrl}"`);
  }
  const marketplacePayTo = address("MARKETPLACE_PAY_TO");
  if (production && !marketplacePayTo)
    problems.push("MARKETPLACE_PAY_TO is required in production (NODE_ENV=production)");
  const asset = address("ASSET_ADDRESS") ?? declared("ASSET_ADDRESS").default;
  const payments = parsePayments(read, production, problems);
  const probe: ProbeConfig = {
    timeoutMs: integer("PROBE_TIMEOUT_MS"),
    maxResponseBytes: integer("PROBE_MAX_BYTES"),
    perClientPerMinute: integer("PROBE_RATE_PER_CLIENT"),
    perHostPerMinute: integer("PROBE_RATE_PER_HOST"),
    allowLoopbackSellers: flag("ALLOW_LOOPBACK_SELLERS", !production && payments.mode === "embedded"),
  };
  if (production && probe.allowLoopbackSellers) {
    problems.push(
      "ALLOW_LOOPBACK_SELLERS must not be true in production (NODE_ENV=production): it is a test and local-development setting",
    );
  }
  if (
    production &&
    asset.toLowerCase() !== BASE_USDC.toLowerCase() &&
    !(read.raw("TOKEN_NAME") && read.raw("TOKEN_VERSION"))
  ) {
    problems.push(
      "TOKEN_NAME and TOKEN_VERSION are required in production when ASSET_ADDRESS is not Base USDC: they are the token's EIP-712 domain that buyers sign against",
    );
  }
  const ops = parseOps(read, problems);
  const queryPerClientPerMinute = integer("QUERY_RATE_PER_CLIENT");
  const work: WorkConfig = {
    ownerPerClientPerMinute: integer("OWNER_RATE_PER_CLIENT"),
    paymentPerClientPerMinute: integer("PAYMENT_RATE_PER_CLIENT"),
    webhookPerClientPerMinute: integer("WEBHOOK_RATE_PER_CLIENT"),
    syncPerClientPerMinute: integer("SYNC_RATE_PER_CLIENT"),
    queryPerClientPerMinute,
    // By default a third of the minute's budget in any 10 s.
    queryBurstPerClient: integer("QUERY_BURST_PER_CLIENT", Math.ceil(queryPerClientPerMinute / 3)),
    uncachedConcurrency: integer("UNCACHED_CONCURRENCY"),
    uncachedMaxWaiting: integer("UNCACHED_MAX_WAITING"),
    uncachedWaitMs: integer("UNCACHED_WAIT_MS"),
    uncachedShare: fraction("UNCACHED_SHARE"),
    threads: integer("WORKER_THREADS", Math.min(2, Math.max(1, availableParallelism() - 1))),
    maxQueue: integer("WORKER_MAX_QUEUE"),
  };
  if (work.uncachedShare === 0)
    problems.push("UNCACHED_SHARE must be more than 0 (0 would never let uncached work run)");
  const health: HealthConfig = {
    intervalMs: integer("HEALTH_PROBE_INTERVAL_MS"),
    failuresToUnhealthy: integer("HEALTH_FAILURES_TO_UNHEALTHY"),
    successesToHealthy: integer("HEALTH_SUCCESSES_TO_HEALTHY"),
    concurrency: integer("HEALTH_PROBE_CONCURRENCY"),
    batchSize: integer("HEALTH_PROBE_BATCH"),
    hostGapMs: integer("HEALTH_HOST_GAP_MS"),
    leaseMs: integer("HEALTH_LEASE_MS"),
    probesPerMinute: integer("HEALTH_PROBES_PER_MINUTE"),
  };
  const rawConfirmations = read.raw("USAGE_CONFIRMATIONS");
  const usage: UsageConfig = {
    intervalMs: integer("USAGE_INTERVAL_SECONDS") * 1000,
    confirmations: rawConfirmations === undefined || rawConfirmations === "" ? null : integer("USAGE_CONFIRMATIONS"),
    reorgWindowBlocks: integer("USAGE_REORG_WINDOW_BLOCKS"),
    maxBlockRange: integer("USAGE_MAX_BLOCK_RANGE"),
    addressBatch: integer("USAGE_ADDRESS_BATCH"),
    catchUpRest: integer("USAGE_CATCHUP_REST"),
  };
  const logLevel = read.text("LOG_LEVEL");
  if (!LOG_LEVELS.includes(logLevel))
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${logLevel}"`);

  const config: Config = {
    production,
    port,
    host,
    publicBaseUrl,
    publicBaseUrlExplicit: Boolean(read.raw("PUBLIC_BASE_URL")),
    databaseUrl,
    databaseReadPoolSize: integer("DATABASE_READ_POOL_SIZE"),
    sqliteCacheMb: integer("SQLITE_CACHE_MB"),
    marketplacePayTo,
    asset,
    network: NETWORK,
    marketplaceName: read.text("MARKETPLACE_NAME"),
    logLevel,
    maxBodyBytes: integer("MAX_BODY_BYTES"),
    trustProxy: flag("TRUST_PROXY"),
    loadSeed: flag("LOAD_SEED"),
    payments,
    probe,
    ops,
    work,
    health,
    usage,
    semanticSearch: flag("SEARCH_SEMANTIC"),
    searchBackfillDuty: fraction("SEARCH_BACKFILL_DUTY"),
    discovery: parseDiscovery(read, problems),
    events: {
      termIntervalMs: integer("TERM_EVENTS_INTERVAL_SECONDS") * 1000,
      deliveryIntervalMs: integer("WEBHOOK_INTERVAL_MS"),
      deliveryConcurrency: integer("WEBHOOK_CONCURRENCY"),
      deliveryTimeoutMs: integer("WEBHOOK_TIMEOUT_MS"),
      deliverySlotMs: integer("WEBHOOK_SLOT_MS"),
      pendingPerClient: integer("WEBHOOK_PENDING_PER_CLIENT"),
      pendingPerHost: integer("WEBHOOK_PENDING_PER_HOST"),
      pendingTotal: integer("WEBHOOK_PENDING_TOTAL"),
      allowLoopbackReceivers: probe.allowLoopbackSellers,
    },
  };
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

function parseOps(read: EnvReader, problems: string[]): OpsConfig {
  let metricsToken: string | null = null;
  const rawToken = read.raw("METRICS_TOKEN");
  if (rawToken) {
    if (/^[\x21-\x7e]{16,256}$/.test(rawToken)) metricsToken = rawToken;
    else problems.push("METRICS_TOKEN must be 16 to 256 printable characters without spaces (the value is not shown)");
  }
  let accessLogSample: number = declared("ACCESS_LOG_SAMPLE").default;
  const rawSample = read.raw("ACCESS_LOG_SAMPLE");
  if (rawSample !== undefined && rawSample !== "") {
    const value = Number(rawSample);
    if (/^(0|1|0?\.\d+|1\.0*)$/.test(rawSample) && value >= 0 && value <= 1) accessLogSample = value;
    else
      problems.push(
        `ACCESS_LOG_SAMPLE must be a number from 0 to 1 (the share of requests logged), got "${rawSample}"`,
      );
  }
  let redisUrl: string | null = null;
  const rawRedis = read.raw("REDIS_URL");
  if (rawRedis) {
    let protocol = "";
    try {
      protocol = new URL(rawRedis).protocol;
    } catch {
      // reported below
    }
    if (protocol === "redis:" || protocol === "rediss:") redisUrl = rawRedis;
    // The URL may hold a password: it is not echoed.
    else problems.push("REDIS_URL must be a redis:// or rediss:// URL (the value is not shown)");
  }
  const redisKeyPrefix = read.text("REDIS_KEY_PREFIX");
  if (!/^[A-Za-z0-9._:-]{1,64}$/.test(redisKeyPrefix)) {
    problems.push(`REDIS_KEY_PREFIX must be 1 to 64 letters, digits or . _ : -, got "${redisKeyPrefix}"`);
  }
  return { metricsToken, accessLogSample, redisUrl, redisKeyPrefix };
}

function parseBaseUrl(raw: string | undefined, fallback: string, problems: string[]): string {
  if (raw === undefined || raw === "") return fallback;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    problems.push(`PUBLIC_BASE_URL must be an absolute http(s) URL, got "${raw}"`);
    return fallback;
  }
  if (!["http:", "https:"].includes(url.protocol) || url.pathname !== "/" || url.search || url.hash) {
    problems.push(`PUBLIC_BASE_URL must be an http(s) origin such as https://market.example.com, got "${raw}"`);
    return fallback;
  }
  return url.origin;
}
