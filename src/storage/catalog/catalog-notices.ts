// Catalog change notices on PostgreSQL. Every catalog write transaction that bumps the catalog
// version also sends NOTIFY on CATALOG_CHANNEL with its schema as payload (catalog-transactions.ts);
// PostgreSQL delivers it to every listener once the transaction commits. One dedicated connection
// per instance LISTENs, so instances sharing a database learn of each other's writes without
// reading the catalog stamp on every request.
//
// A lost connection is noticed by its error and end events and by a keepalive statement; while it
// is down `live` is false (readers then read the stamp per request) and it is opened again with a
// growing delay. Going live or down is itself reported as a change: notices may have been missed.
import pg from "pg";
import type { Logger } from "../../logger.js";
import { metrics } from "../../metrics.js";
import { parseDatabaseUrl, pgSessionOptions, type DatabaseTarget } from "../connection.js";

export const CATALOG_CHANNEL = "x402_catalog";

/** Application name of the LISTEN session, with the process id (an operator can find and end it). */
export const listenerApplicationName = (pid = process.pid) => `x402-catalog-listener:${pid}`;

export interface CatalogChangeFeed {
  /** True while notices arrive: whatever was read after the last change call stays current until the next one. */
  readonly live: boolean;
  /** Called on every notice for this database schema, and when the feed goes live or down. */
  onChange(listener: () => void): () => void;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  logger?: Pick<Logger, "info" | "warn"> | undefined;
  /** How often the idle connection is proven alive (a statement that must answer within this time). */
  keepaliveMs?: number;
  /** The first reconnect delay; it doubles up to maxReconnectMs. */
  reconnectMs?: number;
  maxReconnectMs?: number;
}

const KEEPALIVE_MS = 5_000;

export function listenForCatalogChanges(
  target: Extract<DatabaseTarget, { kind: "postgres" }>,
  options: ChangeFeedOptions = {},
): CatalogChangeFeed {
  const keepaliveMs = options.keepaliveMs ?? KEEPALIVE_MS;
  const firstDelay = options.reconnectMs ?? 250;
  const maxDelay = options.maxReconnectMs ?? 5_000;
  const listeners = new Set<() => void>();
  let client: pg.Client | undefined;
  let live = false;
  let closed = false;
  let everLive = false;
  let delay = firstDelay;
  let reconnect: NodeJS.Timeout | undefined;
  let keepalive: NodeJS.Timeout | undefined;

  const changed = () => {
    for (const listener of listeners) listener();
  };

  const setLive = (value: boolean) => {
    live = value;
    metrics.catalogNoticesLive.set(value ? 1 : 0);
    changed();
  };

  const lost = (lostClient: pg.Client, reason: string) => {
    if (lostClient !== client) return;
    client = undefined;
    clearInterval(keepalive);
    lostClient.removeAllListeners("notification");
    // A late error from the ended session must not become an unhandled 'error' event.
    lostClient.on("error", () => {});
    lostClient.end().catch(() => {});
    if (live) {
      metrics.catalogNoticeReconnects.inc();
      options.logger?.warn(
        { reason },
        "catalog change notices lost; reading the catalog stamp per request until they are back",
      );
      setLive(false);
    }
    if (closed) return;
    reconnect = setTimeout(connect, delay);
    reconnect.unref();
    delay = Math.min(delay * 2, maxDelay);
  };

  const connect = async () => {
    if (closed) return;
    const next = new pg.Client({
      connectionString: target.connectionString,
      options: pgSessionOptions(target),
      application_name: listenerApplicationName(),
      keepAlive: true,
    });
    client = next;
    next.on("error", (error) => lost(next, error.message));
    next.on("end", () => lost(next, "connection ended"));
    try {
      await next.connect();
      // The writers' schema (current_schema() in their transaction, under the same search_path).
      const { rows } = await next.query<{ schema: string }>("SELECT current_schema() AS schema");
      const schema = rows[0]?.schema;
      next.on("notification", (notice) => {
        if (notice.channel === CATALOG_CHANNEL && notice.payload === schema) changed();
      });
      await next.query(`LISTEN ${CATALOG_CHANNEL}`);
    } catch (error) {
      if (client === next) lost(next, (error as Error).message);
      else next.end().catch(() => {});
      return;
    }
    if (client !== next || closed) {
      next.end().catch(() => {});
      return;
    }
    delay = firstDelay;
    if (everLive) options.logger?.info({}, "catalog change notices back");
    everLive = true;
    setLive(true);
    keepalive = setInterval(() => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`keepalive unanswered for ${keepaliveMs} ms`)), keepaliveMs);
      });
      Promise.race([next.query("SELECT 1"), timeout])
        .catch((error: Error) => lost(next, error.message))
        .finally(() => clearTimeout(timer));
    }, keepaliveMs);
    keepalive.unref();
  };

  void connect();

  return {
    get live() {
      return live;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      clearTimeout(reconnect);
      clearInterval(keepalive);
      const open = client;
      client = undefined;
      live = false;
      metrics.catalogNoticesLive.set(0);
      if (open) {
        open.on("error", () => {});
        await open.end().catch(() => {});
      }
    },
  };
}

/** The change feed of a PostgreSQL database; none for SQLite (one process: its own writes are all there is). */
export function catalogChangeFeedFor(
  databaseUrl: string,
  options: ChangeFeedOptions = {},
): CatalogChangeFeed | undefined {
  const target = parseDatabaseUrl(databaseUrl);
  return target.kind === "postgres" ? listenForCatalogChanges(target, options) : undefined;
}
