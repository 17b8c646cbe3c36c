// The feeds area (spec/feeds.tsp): the JSON feed a poller pages with `since`, and its Atom and RSS views.
import { SYNDICATION_SIZE, atomFeed, feedDocument, rssFeed } from "../documents/feeds.js";
import { taggedJson, taggedText } from "../contract/rendered.js";
import { HttpError } from "../contract/errors.js";
import { catalogState, feedRows, type FeedQuery } from "../queries/catalog.js";
import { sellerEvents } from "../queries/listing-events.js";
import { sellerAtomFeed, sellerFeedDocument } from "../documents/seller-feeds.js";
import type { CatalogAreaContext, Handler } from "../services.js";
import type { AreaHandlers } from "./area-handlers.js";

async function newestForeign(
  services: CatalogAreaContext,
  since: Date | undefined,
  limit: number,
  filters: Pick<FeedQuery, "health" | "source"> = {},
) {
  const state = await catalogState(services);
  const rows = await feedRows(services, { since, limit, ...filters });
  return { ...state, rows };
}

/** The earliest `since` both databases store: PostgreSQL has no year 0000 (it refused it as out of range). */
const EARLIEST_SINCE = new Date("0001-01-01T00:00:00.000Z");

/**
 * `since` as an instant. The contract's date-time admits what a Date cannot hold (a leap second,
 * 23:59:60): the client's mistake, a 400. An instant before year 1 asks for every row, as year 1 does.
 */
function sinceOf(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const since = new Date(value);
  if (Number.isNaN(since.getTime())) {
    const message = "must be an instant a date can hold (no leap second such as 23:59:60)";
    throw new HttpError(400, "invalid_request", `Invalid request: query since ${message}.`, [
      { in: "query", field: "since", message },
    ]);
  }
  return since < EARLIEST_SINCE ? EARLIEST_SINCE : since;
}

/** `/feed.json` and aliases: newest first; `since` is exclusive. */
const getFeed: Handler<"getFeed"> = async (input, services) => {
  const since = sinceOf(input.query.since);
  const limit = input.query.limit ?? 50;
  const { token, changedAt, rows } = await newestForeign(services, since, limit, {
    health: input.query.health,
    source: input.query.source,
  });
  return taggedJson(feedDocument(services, rows, { since: since ?? null, limit }, changedAt), token);
};

/** `/feed.atom`, `/atom.xml`: Atom 1.0. */
const getAtomFeed: Handler<"getAtomFeed"> = async (_input, services) => {
  const { token, changedAt, rows } = await newestForeign(services, undefined, SYNDICATION_SIZE);
  return taggedText(atomFeed(services, rows, changedAt), "application/atom+xml", token);
};

/** `/feed.rss` and aliases: RSS 2.0. */
const getRssFeed: Handler<"getRssFeed"> = async (_input, services) => {
  const { token, changedAt, rows } = await newestForeign(services, undefined, SYNDICATION_SIZE);
  return taggedText(rssFeed(services, rows, changedAt), "application/rss+xml", token);
};

/**
 * One seller's events. An expiry warning is an event without a catalog write, so these feeds are
 * rendered on each read and never kept by the response cache; their ETag (from the bytes) answers 304.
 */
async function sellerFeed(services: CatalogAreaContext, payTo: string) {
  const seller = payTo.toLowerCase();
  const [{ changedAt }, events] = await Promise.all([catalogState(services), sellerEvents(services, seller)]);
  return { seller, events, changedAt };
}

/** `/sellers/{payTo}/feed.json`: a JSON Feed 1.1 of one seller's listing events. */
const getSellerFeed: Handler<"getSellerFeed"> = async (input, services) => {
  const { seller, events } = await sellerFeed(services, input.params.payTo);
  return taggedJson(sellerFeedDocument(services, seller, events), null);
};

/** `/sellers/{payTo}/feed.atom`: the same events in Atom 1.0. */
const getSellerAtomFeed: Handler<"getSellerAtomFeed"> = async (input, services) => {
  const { seller, events, changedAt } = await sellerFeed(services, input.params.payTo);
  return taggedText(sellerAtomFeed(services, seller, events, changedAt), "application/atom+xml", null);
};

export const feedsHandlers: AreaHandlers<"feeds"> = {
  getFeed,
  getAtomFeed,
  getRssFeed,
  getSellerFeed,
  getSellerAtomFeed,
};
