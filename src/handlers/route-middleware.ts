import type { Context, Middleware } from "koa";
import { HttpError } from "../contract/errors.js";
import type { CanonicalOperationId } from "../../generated/operations.js";
import { queryRefusal, type RefusedClients } from "../http/refused-clients.js";
import type { RouteMiddleware } from "../http/routes.js";
import { searchQuestion, type SearchQuery } from "../queries/catalog.js";
import type { ListingsAreaContext } from "../services.js";

/**
 * A per-client limit checked before anything else of the request is read: `wait` answers how many
 * seconds the client must wait (0: go on, and for limits that count, the request was counted).
 * Only requests `applies` to are looked at.
 */
function limitedBy(
  wait: (ip: string) => Promise<number>,
  refusal: (ip: string, seconds: number) => string,
  applies: (ctx: Context) => boolean = () => true,
): Middleware {
  return async (ctx, next) => {
    if (applies(ctx)) {
      const seconds = await wait(ctx.ip);
      if (seconds > 0)
        throw new HttpError(429, "rate_limited", refusal(ctx.ip, seconds), undefined, {
          "Retry-After": String(seconds),
        });
    }
    await next();
  };
}

const paying = (ctx: Context) => Boolean(ctx.get("payment-signature"));

/**
 * The operations whose uncached answers read the catalog: each is one unit of the per-client query
 * budget (QUERY_RATE_PER_CLIENT). Their query strings make any number of distinct URLs, which the
 * response cache can answer only after a first read.
 */
export const CATALOG_WORK: ReadonlySet<CanonicalOperationId> = new Set<CanonicalOperationId>([
  "listResources",
  "getCatalog",
  "getForeignCatalog",
  "getStatus",
  "searchResources",
  "searchCatalog",
  "getFeed",
  "getAtomFeed",
  "getRssFeed",
  "getSellerFeed",
  "getSellerAtomFeed",
  "getListings",
  "getHomePage",
  "postMcp",
  "postA2a",
]);

/**
 * The operations that take a turn of the bound on uncached work as a whole. MCP and A2A take one per
 * catalog read inside (src/market-tools/tools.ts, src/mcp/resources.ts): a batch of 100 searches is 100 turns.
 */
export const GATED_CATALOG_WORK: ReadonlySet<CanonicalOperationId> = new Set(
  [...CATALOG_WORK].filter((operation) => operation !== "postMcp" && operation !== "postA2a"),
);

/** The searches whose question the sentence model reads (src/search/query-vectors.ts) before the search takes its turn. */
const QUESTION_READING: ReadonlyArray<CanonicalOperationId> = ["searchResources", "searchCatalog", "getHomePage"];

/**
 * The model's reading of a search's question, asked for before the search takes a turn of the bound
 * on uncached work (src/workers/work-gate.ts): the 40-100 ms the model's thread takes would otherwise
 * hold one of the gate's few turns while the request thread does nothing. Bounded by the model's own
 * queue (a full queue answers at once; the search then says `model-busy`).
 */
function questionReader(read: (text: string) => Promise<void>): Middleware {
  return async (ctx, next) => {
    const raw = ctx.query as Record<string, string | string[] | undefined>;
    const one = (name: string) => (typeof raw[name] === "string" ? (raw[name] as string) : undefined);
    const mode = one("mode");
    if (mode !== "lexical" && mode !== "substring") {
      const { text } = searchQuestion({
        query: one("query"),
        q: one("q"),
        maxPrice: one("maxPrice"),
        sort: one("sort") as SearchQuery["sort"],
      });
      if (text) await read(text.slice(0, 300)).catch(() => {});
    }
    await next();
  };
}

/** The middleware of particular operations, by canonical operation. */
export function routeMiddleware(
  services: Pick<ListingsAreaContext, "probe" | "work">,
  readQuestion?: ((text: string) => Promise<void>) | undefined,
  refused?: RefusedClients,
): RouteMiddleware {
  const { work, probe } = services;
  // The owner routes cost a signature recovery (5-15 ms of CPU, in the worker pool) or a probe each,
  // for anyone who sends one: a flood from one address costs a counter each.
  const ownerLimit = limitedBy(
    (ip) => work.ownerPerClient.take(ip),
    (ip, s) =>
      `too many owner requests (sign, claim, update, delist, refresh) from ${ip}; retry in ${s} s. Nothing was changed.`,
  );
  // Verifying a payment costs a signature check (8-10 ms of CPU when the facilitator is in-process),
  // valid or not; requests without a payment (the 402 challenge) are not counted.
  const paymentLimit = limitedBy(
    (ip) => work.paymentPerClient.take(ip),
    (ip, s) => `too many payments sent from ${ip}; retry in ${s} s. Nothing was charged.`,
    paying,
  );
  // A paying client over its seller-probe limit is refused before its body is parsed or its payment
  // verified, for a listing whose probe could not run anyway (the probe itself takes the token). The
  // unpaid POST /listings gets its challenge, and the dry run meets the limit at the probe.
  const probeLimit = limitedBy(
    (ip) => probe.clientWait(ip),
    (ip, s) => `too many probes from ${ip}; retry in ${s} s. Nothing was charged.`,
    paying,
  );
  // A subscription costs a signature recovery (seller) and, later, a verification request to its
  // endpoint: counted per client before the body is read.
  const webhookLimit = limitedBy(
    (ip) => work.webhookPerClient.take(ip),
    (ip, s) => `too many webhook subscriptions from ${ip}; retry in ${s} s. Nothing was saved.`,
  );
  // A sync page reads up to 2,000 change-log rows and renders up to 500 items (a few ms of CPU): a
  // mirror pages well within the limit, a flood from one address is refused for a counter each.
  const syncLimit = limitedBy(
    (ip) => work.syncPerClient.take(ip),
    (ip, s) => `too many sync pages from ${ip}; retry in ${s} s (load /sync/snapshot once, then follow updated_since).`,
  );
  // Catalog work (CATALOG_WORK): a page, feed or search the response cache has not answered (2-3.4 ms
  // of request-thread CPU for a search at 100k listings), an A2A message, each request of an MCP batch
  // (the handler takes the rest of the batch: src/mcp/http-transport.ts). Cached answers are sent
  // before route middleware runs, so they are never counted.
  // A client refused one unit would be refused again until its Retry-After: the entry answers it then.
  const queryLimit = limitedBy(async (ip) => {
    const seconds = await work.queryPerClient.take(ip);
    if (seconds > 0) refused?.refuse(ip, seconds);
    return seconds;
  }, queryRefusal);
  const reader = readQuestion && questionReader(readQuestion);
  const catalogWork = Object.fromEntries(
    [...CATALOG_WORK].map((operation) => [
      operation,
      reader && QUESTION_READING.includes(operation) ? [queryLimit, reader] : [queryLimit],
    ]),
  ) as RouteMiddleware;
  return {
    ...catalogWork,
    createListing: [paymentLimit, probeLimit],
    getDemoResource: [paymentLimit],
    postDemoResource: [paymentLimit],
    getOwnerSigningData: [ownerLimit],
    claimListing: [ownerLimit],
    updateListing: [ownerLimit],
    delistListing: [ownerLimit],
    refreshListing: [ownerLimit],
    createWebhook: [webhookLimit],
    getWebhookSigningData: [ownerLimit],
    getSyncListings: [syncLimit],
  };
}
