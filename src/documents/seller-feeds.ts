// One seller's listing events as feeds (GET /sellers/{payTo}/feed.json and feed.atom): what a seller
// would otherwise learn only by polling each listing, in any feed reader.
import { Feed } from "feed";
import type { components } from "../../generated/openapi.js";
import { linksTo, linkWithParams } from "../market/links.js";
import type { DocumentContext } from "./context.js";
import { htmlText } from "./feeds.js";

type ListingEventRecord = components["schemas"]["ListingEventRecord"];
export type SellerFeedDocument = components["schemas"]["SellerFeedDocument"];

const TITLE = (name: string, payTo: string) => `${name}: listings of ${payTo}`;
const DESCRIPTION =
  "What happened to this seller's listings: listed, renewed, updated, health changes, drift, expiry, delisting.";

const WHAT: Record<ListingEventRecord["type"], string> = {
  "listing.created": "listed",
  "listing.renewed": "renewed",
  "listing.updated": "updated",
  "listing.delisted": "delisted by its owner",
  "listing.expiring": "expiring soon",
  "listing.expired": "expired",
  "listing.health_changed": "health changed",
  "listing.drifted": "its 402 no longer matches the listing",
  "listing.verified": "owner verified",
};

function eventTitle(event: ListingEventRecord): string {
  const change =
    event.data && "from" in event.data && "to" in event.data
      ? ` (${String(event.data.from)} → ${String(event.data.to)})`
      : "";
  return `Listing ${event.listingId}: ${WHAT[event.type]}${change}`;
}

function eventText(event: ListingEventRecord): string {
  const reasons = event.status.reasons.map((reason) => `${reason.code}: ${reason.message}`).join(" ");
  return `${event.type} at ${event.at}. Status now: ${event.status.state}. ${reasons}`;
}

const pageOf = (services: DocumentContext, event: ListingEventRecord) =>
  linkWithParams(services.market, "/listing/{id}", { id: event.listingId });

export function sellerFeedDocument(
  services: DocumentContext,
  payTo: string,
  events: ListingEventRecord[],
): SellerFeedDocument {
  const { market } = services;
  return {
    version: "https://jsonfeed.org/version/1.1",
    title: TITLE(market.name, payTo),
    home_page_url: linkWithParams(market, "/", {}),
    feed_url: linkWithParams(market, "/sellers/{payTo}/feed.json", { payTo }),
    description: DESCRIPTION,
    sellerPayTo: payTo,
    items: events.map((event) => ({
      id: event.id,
      url: pageOf(services, event),
      title: eventTitle(event),
      content_text: eventText(event),
      date_published: event.at,
      event,
    })),
    links: {
      ...linksTo(market, ["market", "resources"]),
      atom: linkWithParams(market, "/sellers/{payTo}/feed.atom", { payTo }),
    },
  };
}

export function sellerAtomFeed(
  services: DocumentContext,
  payTo: string,
  events: ListingEventRecord[],
  updatedAt: Date,
): string {
  const { market } = services;
  const self = linkWithParams(market, "/sellers/{payTo}/feed.atom", { payTo });
  const feed = new Feed({
    id: self,
    title: TITLE(market.name, payTo),
    description: DESCRIPTION,
    link: linkWithParams(market, "/", {}),
    updated: events[0] ? new Date(events[0].at) : updatedAt,
    generator: market.name,
    copyright: "Listings are their sellers' own descriptions.",
    feedLinks: { atom: self, json: linkWithParams(market, "/sellers/{payTo}/feed.json", { payTo }) },
  });
  for (const event of events) {
    feed.addItem({
      title: htmlText(eventTitle(event)),
      id: `urn:x402-market:${event.id}`,
      link: pageOf(services, event),
      date: new Date(event.at),
      description: htmlText(eventText(event)),
    });
  }
  return feed.atom1();
}
