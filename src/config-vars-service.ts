// The service's own variables (HTTP, storage, discovery, search, operations, the process) and the
// CLI's, declared for src/config-schema.ts: name, kind, default, bounds, meaning.
import { DEFAULT_SQLITE_CACHE_MB } from "./constants.js";

/**
 * The share of the time the search backfill works (it pauses after each batch in proportion): the
 * model competes with catalog reads for the CPU, and on two cores at 0.5 it slowed uncached reads by
 * more than 1.2x (npm run bench:search:backfill).
 */
export const DEFAULT_BACKFILL_DUTY = 0.25;

export const SERVICE_VARIABLES = [
  {
    name: "PORT",
    area: "http",
    kind: "integer",
    default: 8402,
    min: 0,
    max: 65535,
    meaning: "HTTP port (`0` picks a free one)",
  },
  {
    name: "HOST",
    area: "http",
    kind: "text",
    default: null,
    defaultText: "`127.0.0.1`, or `0.0.0.0` when `NODE_ENV=production`",
    meaning: "interface to bind",
  },
  {
    name: "PUBLIC_BASE_URL",
    area: "http",
    kind: "text",
    default: null,
    defaultText: "`http://localhost:$PORT`",
    bounds: "an http(s) origin, no path",
    meaning: "origin every absolute link in documents is built from; unset, it follows the port actually bound",
  },
  {
    name: "MAX_BODY_BYTES",
    area: "http",
    kind: "integer",
    default: 65536,
    min: 1024,
    max: 10485760,
    meaning: "larger request bodies get 413",
  },
  {
    name: "TRUST_PROXY",
    area: "http",
    kind: "flag",
    default: false,
    meaning: "behind a reverse proxy: take the client address from `X-Forwarded-For` (per-client limits)",
  },
  {
    name: "DATABASE_URL",
    area: "storage",
    kind: "text",
    default: "file:./data/marketplace.db",
    bounds: "`file:…` or `postgresql://…`",
    meaning:
      "`file:` for the embedded SQLite (created and migrated on first start), `postgresql://…` for PostgreSQL and many instances (`?schema=name` supported)",
  },
  {
    name: "DATABASE_READ_POOL_SIZE",
    area: "storage",
    kind: "integer",
    default: 6,
    min: 1,
    max: 100,
    meaning:
      "PostgreSQL only: connections of each instance's catalog read pool, beside Prisma's own pool for writes (see [PostgreSQL mode](postgresql.md#postgresql-mode))",
  },
  {
    name: "SQLITE_CACHE_MB",
    area: "storage",
    kind: "integer",
    default: DEFAULT_SQLITE_CACHE_MB,
    min: 1,
    max: 4096,
    meaning:
      "SQLite only: the page cache of each of its two connections, in MiB. better-sqlite3 builds SQLite with 16, which a 100k-listing catalog fills (33 MiB of the process); the file's pages stay in the operating system's cache either way: at 100k listings 16, 4 and 2 read pages and searches at the same CPU and latency (1.17-1.21 and 1.04-1.09 ms of CPU a request), RSS 230, 207 and 201 MiB without the search engine",
  },
  {
    name: "CATALOG_SIGNING_KEY",
    area: "discovery",
    kind: "text",
    default: null,
    secret: true,
    defaultText: "generated once, kept in the database",
    bounds: "`0x` and 64 hex digits",
    meaning:
      "the key whose EIP-191 signature every `/sync/snapshot` carries; its address is published in `/.well-known/x402` (see [Discovery standards and mirrors](discovery.md#discovery-standards-and-mirrors)); unset, one is generated once and shared by every instance through the database",
  },
  {
    name: "DISCOVERY_PEERS",
    area: "discovery",
    kind: "text",
    default: null,
    bounds: "comma-separated bare domain names, at most 32",
    meaning: "the domains `/.well-known/x402` lists as `peers`",
  },
  {
    name: "INDEX_SOURCES",
    area: "discovery",
    kind: "text",
    default: null,
    bounds: "comma-separated `bazaar:<url>`, `domain:<domain>`, `sync:<origin>`, at most 64",
    meaning:
      "catalogs, domains and marketplaces the index crawler reads into indexed rows (see [Indexing other catalogs](discovery.md#indexing-other-catalogs-index_sources)); empty: none",
  },
  {
    name: "INDEX_INTERVAL_SECONDS",
    area: "discovery",
    kind: "integer",
    default: 900,
    min: 0,
    max: 86400,
    meaning: "between crawls (jittered); `0`: only on demand",
  },
  {
    name: "INDEX_MAX_ITEMS",
    area: "discovery",
    kind: "integer",
    default: 5000,
    min: 1,
    max: 1000000,
    meaning: "rows one source may hold (and resources taken in one pass): the rest are counted and left",
  },
  {
    name: "INDEX_MAX_DOCUMENT_BYTES",
    area: "discovery",
    kind: "integer",
    default: 2097152,
    min: 4096,
    max: 67108864,
    meaning: "one document (a page, a manifest) at most this many bytes: larger is refused",
  },
  {
    name: "INDEX_MAX_SNAPSHOT_BYTES",
    area: "discovery",
    kind: "integer",
    default: 67108864,
    min: 4096,
    max: 536870912,
    meaning: "a signed snapshot at most this many bytes",
  },
  {
    name: "INDEX_TIMEOUT_MS",
    area: "discovery",
    kind: "integer",
    default: 10000,
    min: 200,
    max: 120000,
    meaning: "one request's whole exchange",
  },
  {
    name: "INDEX_MAX_PAGES",
    area: "discovery",
    kind: "integer",
    default: 50,
    min: 1,
    max: 10000,
    meaning:
      "pages read from one source in one run before the next source's turn (the rest in the next run, from the saved place)",
  },
  {
    name: "INDEX_HOST_GAP_MS",
    area: "discovery",
    kind: "integer",
    default: 1000,
    min: 0,
    max: 60000,
    meaning: "between two requests to one host",
  },
  {
    name: "INDEX_MAX_PEERS",
    area: "discovery",
    kind: "integer",
    default: 16,
    min: 0,
    max: 256,
    meaning: "peers a domain's manifest names that are crawled too (one level, never their peers)",
  },
  {
    name: "SEARCH_SEMANTIC",
    area: "search",
    kind: "flag",
    default: true,
    meaning:
      'on: searches with text are ranked by BM25 and meaning (a distilled query encoder on the request thread, the sentence model on a worker thread for listing vectors), fused with trust signals; `mode=lexical` still asks for substring matching. `off`: no ranking engine, no model, no search jobs; every search is the substring search and says `searchMode: "lexical"`, `searchModeReason: "semantic-off"`',
  },
  {
    name: "SEARCH_BACKFILL_DUTY",
    area: "search",
    kind: "fraction",
    default: DEFAULT_BACKFILL_DUTY,
    meaning:
      "the share of the time the search backfill embeds listings with the model (`0`: never), pausing after each batch in proportion",
  },
  {
    name: "REDIS_URL",
    area: "ops",
    kind: "text",
    default: null,
    secret: true,
    bounds: "`redis://` or `rediss://` URL",
    meaning:
      "seller-probe, owner-route, payment, webhook, sync and query (`QUERY_RATE_PER_CLIENT`) limits shared by every instance; each decision waits at most 100 ms for Redis, then this instance's own limit decides (`x402_rate_limiter_fallbacks_total`); empty: limits are per instance, in memory",
  },
  {
    name: "REDIS_KEY_PREFIX",
    area: "ops",
    kind: "text",
    default: "x402-market:",
    bounds: "1 to 64 letters, digits or `. _ : -`",
    meaning: "prefix of every Redis key the service writes (several services may share one Redis)",
  },
  {
    name: "METRICS_TOKEN",
    area: "ops",
    kind: "text",
    default: null,
    secret: true,
    bounds: "16 to 256 printable characters, no spaces",
    meaning:
      "when set, `GET /metrics` needs `Authorization: Bearer <token>`; empty: `/metrics` is open (keep it off the public network at the proxy)",
  },
  {
    name: "ACCESS_LOG_SAMPLE",
    area: "ops",
    kind: "fraction",
    default: 1,
    meaning: "share of requests written to the access log; a 5xx answer is always written",
  },
  {
    name: "LOG_LEVEL",
    area: "ops",
    kind: "text",
    default: "info",
    bounds: "fatal, error, warn, info, debug, trace, silent",
    meaning:
      'pino level; logs are JSON lines on stdout, written synchronously (none is lost or reordered at exit); access lines (`msg: "request"`) at info, each with `requestId`',
  },
  {
    name: "MARKETPLACE_NAME",
    area: "process",
    kind: "text",
    default: "x402 agent marketplace",
    meaning: "name shown in documents",
  },
  {
    name: "LOAD_SEED",
    area: "process",
    kind: "flag",
    default: true,
    meaning: "load the first-party `/kr-*` demo rows at start",
  },
  {
    name: "NODE_ENV",
    area: "process",
    kind: "text",
    default: null,
    defaultText: "development",
    meaning:
      "`production` turns on the strict start-up checks (a pay-to wallet and a facilitator required, test settings refused)",
  },
  {
    name: "MARKETPLACE_URL",
    area: "toolkit",
    kind: "text",
    default: "http://localhost:8402",
    meaning: "the service the CLI and the client talk to (the CLI's `--url` wins)",
  },
  {
    name: "X402_PRIVATE_KEY",
    area: "toolkit",
    kind: "text",
    default: null,
    secret: true,
    bounds: "`0x` and 64 hex digits",
    meaning: "the payer's key for `list` and `buy`, the owner's for `claim`, `update`, `delist`",
  },
] as const;
