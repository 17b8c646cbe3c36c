// Reads of the change log for people and agents: one listing's status with its transitions
// (GET /listings/{id}/status, the listing document) and one seller's events (its feeds).
import type { components } from "../../generated/openapi.js";
import type { ListingEvent, ListingEventStore } from "./listing-event-store.js";
import { listingStatus } from "../storage/listing/listing-status.js";

export type ListingEventRecord = components["schemas"]["ListingEventRecord"];
export type ListingStatus = components["schemas"]["ListingStatus"];

export interface ListingEventsContext {
  events: ListingEventStore;
  now(): Date;
}

/** Transitions the listing document shows; its status route shows more. */
export const DOCUMENT_HISTORY = 20;
export const STATUS_HISTORY = 50;
export const SELLER_FEED_SIZE = 50;

export function eventRecord(row: ListingEvent): ListingEventRecord {
  return {
    id: row.id,
    seq: row.seq,
    type: row.type as ListingEventRecord["type"],
    listingId: row.listingId,
    sellerPayTo: row.sellerPayTo,
    at: row.at.toISOString(),
    status: row.status as unknown as ListingStatus,
    ...(row.data !== null && { data: row.data as Record<string, unknown> }),
  };
}

/** A listing's most recent transitions, newest first. */
export async function listingHistory(
  context: ListingEventsContext,
  listingId: string,
  limit: number,
): Promise<ListingEventRecord[]> {
  return (await context.events.forListing(listingId, limit)).map(eventRecord);
}

/** Any stored listing's status now and its transitions; null when no row is stored. */
export async function listingStatusOf(
  context: ListingEventsContext,
  listingId: string,
): Promise<{ status: ListingStatus; history: ListingEventRecord[] } | null> {
  const [listing, history] = await Promise.all([
    context.events.subject(listingId),
    listingHistory(context, listingId, STATUS_HISTORY),
  ]);
  if (!listing || listing.leftoverSeed) return null;
  return { status: listingStatus(listing, context.now()) as ListingStatus, history };
}

/** One seller's newest events. */
export async function sellerEvents(context: ListingEventsContext, payTo: string): Promise<ListingEventRecord[]> {
  return (await context.events.forSeller(payTo, SELLER_FEED_SIZE)).map(eventRecord);
}
