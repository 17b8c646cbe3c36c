// Which subscriptions an event goes to: a seller's (its payTo), chosen listings' (their ids), or a
// saved search's (a new or updated listing whose text has every word of the query, within its price
// and tag filters). Built once per delivery pass from the subscriptions that follow the log.
import type { Listing } from "../../generated/prisma/sqlite/client.js";
import type { ListingEvent } from "../queries/listing-event-store.js";
import type { WebhookSubscription } from "./webhook-store.js";

export interface SavedSearch {
  q: string;
  maxPrice?: number;
  tags?: string[];
}

/** Events a saved search is told about: a listing that may newly match it. */
const SEARCH_EVENTS = new Set(["listing.created", "listing.updated", "listing.renewed"]);

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

export function searchMatches(
  search: SavedSearch,
  listing: Pick<Listing, "description" | "serviceName" | "tags" | "resource" | "priceUsdc">,
): boolean {
  const haystack = new Set(
    words(`${listing.description} ${listing.serviceName ?? ""} ${listing.tags ?? ""} ${listing.resource}`),
  );
  if (!words(search.q).every((word) => haystack.has(word))) return false;
  if (search.maxPrice !== undefined && Number(listing.priceUsdc) > search.maxPrice) return false;
  const tags = listing.tags ? (JSON.parse(listing.tags) as string[]).map((tag) => tag.toLowerCase()) : [];
  return (search.tags ?? []).every((tag) => tags.includes(tag.toLowerCase()));
}

export class SubscriptionIndex {
  private readonly bySeller = new Map<string, WebhookSubscription[]>();
  private readonly byListing = new Map<string, WebhookSubscription[]>();
  private readonly searches: WebhookSubscription[] = [];

  constructor(subscriptions: WebhookSubscription[]) {
    const add = (map: Map<string, WebhookSubscription[]>, key: string, subscription: WebhookSubscription) =>
      map.set(key, [...(map.get(key) ?? []), subscription]);
    for (const subscription of subscriptions) {
      if (subscription.kind === "seller" && subscription.sellerPayTo)
        add(this.bySeller, subscription.sellerPayTo, subscription);
      else if (subscription.kind === "listings")
        for (const id of (subscription.listingIds as string[] | null) ?? []) add(this.byListing, id, subscription);
      else if (subscription.kind === "search") this.searches.push(subscription);
    }
  }

  /** Whether any saved search could want this event (then the listing's text is read). */
  wantsListing(event: ListingEvent): boolean {
    return this.searches.length > 0 && SEARCH_EVENTS.has(event.type);
  }

  /** The subscriptions this event goes to; `listing` is the listing's row when a saved search may want it. */
  recipients(event: ListingEvent, listing: Listing | null): WebhookSubscription[] {
    const candidates = [
      ...(this.bySeller.get(event.sellerPayTo) ?? []),
      ...(this.byListing.get(event.listingId) ?? []),
    ];
    if (listing && SEARCH_EVENTS.has(event.type)) {
      candidates.push(
        ...this.searches.filter((subscription) =>
          searchMatches(subscription.search as unknown as SavedSearch, listing),
        ),
      );
    }
    const unique = new Map(candidates.map((subscription) => [subscription.id, subscription]));
    return [...unique.values()].filter(
      (subscription) => event.seq > subscription.fromSeq && wants(subscription, event.type),
    );
  }
}

function wants(subscription: WebhookSubscription, type: string): boolean {
  const types = subscription.eventTypes as string[] | null;
  return !types || types.includes(type);
}
