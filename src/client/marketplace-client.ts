/**
 * The marketplace client: openapi-fetch typed from the contract (generated/openapi.ts), so a wrong
 * path, query or body does not compile. Paid calls go through the x402 SDK: pass
 * `fetch: payingFetch(payer)` and every 402 is answered with a payment the payer agrees to.
 */
import createClient, { type Client } from "openapi-fetch";
import type { components, paths } from "../../generated/openapi.js";
import { unreachable } from "./errors.js";

export type Schemas = components["schemas"];
export type CatalogItem = Schemas["CatalogItem"];
export type ListingRequest = Schemas["ListingRequest"];
export type ListingCreated = Schemas["ListingCreated"];
export type ValidationReport = Schemas["ValidationReport"];
export type MarketplaceClient = Client<paths>;

export const DEFAULT_MARKETPLACE_URL = "http://localhost:8402";

export interface MarketplaceClientOptions {
  /** The service's origin; default MARKETPLACE_URL or http://localhost:8402. */
  baseUrl?: string;
  /** E.g. `payingFetch(payer)` for the paid `POST /listings`. */
  fetch?: (input: Request) => Promise<Response>;
}

export function createMarketplaceClient(options: MarketplaceClientOptions = {}): MarketplaceClient {
  const baseUrl = (options.baseUrl ?? process.env.MARKETPLACE_URL ?? DEFAULT_MARKETPLACE_URL).replace(/\/+$/, "");
  const send = options.fetch ?? ((request: Request) => fetch(request));
  // fetch rejects with a bare "fetch failed"; say which server and what to do instead.
  const explained = (request: Request) =>
    send(request).catch((error: unknown) => {
      throw error instanceof TypeError ? unreachable(baseUrl, error) : error;
    });
  return createClient<paths>({ baseUrl, fetch: explained });
}
