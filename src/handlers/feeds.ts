import { SYNDICATION_SIZE, atomFeed, feedDocument, rssFeed } from "../catalog/feed-documents.js";
import { taggedJson, taggedText } from "../catalog/rendered.js";
import type { Handler, Services } from "../http/handler-types.js";

async function newestForeign(services: Services, since: Date | undefined, limit: number) {
  const freshness = await services.freshness.current();
  const rows = await services.store.feed({ since, limit, now: services.now() });
  return { ...freshness, rows };
}

/** `/feed.json` and aliases: newest first; `since` is exclusive. */
export const getFeed: Handler<"getFeed"> = async (input, services) => {
  const since = input.query.since === undefined ? undefined : new Date(input.query.since);
  const limit = input.query.limit ?? 50;
  const { token, stamp, rows } = await newestForeign(services, since, limit);
  return taggedJson(feedDocument(services, rows, { since: since ?? null, limit }, stamp.changedAt), token);
};

/** `/feed.atom`, `/atom.xml`: Atom 1.0. */
export const getAtomFeed: Handler<"getAtomFeed"> = async (_input, services) => {
  const { token, stamp, rows } = await newestForeign(services, undefined, SYNDICATION_SIZE);
  return taggedText(atomFeed(services, rows, stamp.changedAt), "application/atom+xml", token);
};

/** `/feed.rss` and aliases: RSS 2.0. */
export const getRssFeed: Handler<"getRssFeed"> = async (_input, services) => {
  const { token, stamp, rows } = await newestForeign(services, undefined, SYNDICATION_SIZE);
  return taggedText(rssFeed(services, rows, stamp.changedAt), "application/rss+xml", token);
};
