import { toCatalogItem } from "../catalog/catalog-item.js";
import { linkTo, linksTo } from "../market/links.js";
import { exampleListing, listingRequestSchema } from "../documents/listing-request.js";
import type { Handler } from "../services.js";

/** Items shown by `GET /listings`; the discovery routes page through all of them. */
const NEWEST = 50;

/** `GET /listings`: the free catalog of active third-party listings plus fee, schema and example. */
export const getListings: Handler<"getListings"> = async (_input, services) => {
  const { market, store, contract } = services;
  const page = await store.page({ includeSeed: false, limit: NEWEST, offset: 0, now: services.now() });
  return {
    status: 200,
    body: {
      listingFeeUsdc: market.feeUsdc,
      listingFeePayTo: market.payTo,
      ttlDays: market.ttlDays,
      count: page.total,
      items: page.rows.map((row) => toCatalogItem(row, market)),
      schema: listingRequestSchema(contract.document),
      example: exampleListing(market),
      links: {
        ...linksTo(market, ["resources", "search", "challenge", "feed"]),
        validate: linkTo(market, "/listings/validate"),
        schema: linkTo(market, "/listings/schema"),
      },
    },
  };
};
