// Only for src/queries/ranked-search.ts, which another change is editing now: it still names these
// types from here. The listing store lives in ./listing/listing-store.ts (issue 44); once
// ranked-search.ts imports it from there, delete this file. Nothing else imports it.
export type { CatalogView, Listing, ListingStore, Page } from "./listing/listing-store.js";
