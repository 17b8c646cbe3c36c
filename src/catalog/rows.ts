// The rows catalog documents render: a stored listing, and a page of them; and the rule that gives a
// price in USDC its stored atomic units (what a demo route charges for its seed row). Documents, web
// pages and handlers name them from here, never from src/storage/ (dependency rules forbid it).
export type { Listing, Page } from "../storage/listing/listing-store.js";
export { normalizePrice } from "../storage/listing-types.js";
