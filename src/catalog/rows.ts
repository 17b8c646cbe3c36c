// The rows catalog documents render: a stored listing, and a page of them. Documents and web pages
// name them from here, never from src/storage/ (a dependency rule forbids it).
export type { Listing, Page } from "../storage/listing/listing-store.js";
