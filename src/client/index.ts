// The published client (package.json "exports"): only re-exports, so no module of the client
// imports this barrel and none can form a cycle through it.
export type { components, paths } from "../../generated/openapi.js";
export {
  createMarketplaceClient,
  DEFAULT_MARKETPLACE_URL,
  type CatalogItem,
  type ListingCreated,
  type ListingRequest,
  type MarketplaceClient,
  type MarketplaceClientOptions,
  type Schemas,
  type ValidationReport,
} from "./marketplace-client.js";
export { findListing, findListingById, findListingByResource } from "./catalog.js";
export {
  atomicToUsdc,
  createPayer,
  payingFetch,
  readChallenge,
  requirementMismatches,
  usdcToAtomic,
  type ExpectedPayment,
  type PayerOptions,
} from "./payments.js";
export { buyFromSeller, type BuyOptions, type BuyResult, type PaymentSteps, type Quote } from "./purchase.js";
export { payForListing, validateListing, type ListResult } from "./paid-listing.js";
export { ToolkitError, type FailureKind } from "./errors.js";
export {
  claimListing,
  delistListing,
  refreshListing,
  signingDocumentFor,
  signOwnerTypedData,
  updateListing,
  type ListingChanges,
  type OwnerAction,
  type OwnerActionResult,
  type OwnerOptions,
  type RefreshResult,
  type SigningDocument,
} from "./ownership.js";
export {
  deleteWebhook,
  getWebhook,
  listingStatus,
  sellerEvents,
  subscribeSeller,
  subscribeWebhook,
  type ListingEventRecord,
  type ListingStatusDocument,
  type WebhookCreated,
  type WebhookCreateRequest,
  type WebhookSubscription,
} from "./webhooks.js";
