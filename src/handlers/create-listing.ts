import type { Handler } from "../services.js";
import { createPaidListing } from "../listing/paid-listing.js";

/** POST /listings: the paid listing (src/listing/paid-listing.ts). */
export const createListing: Handler<"createListing"> = (input, { store, payments, probe, market, logger, now }) =>
  createPaidListing(
    { body: input.body, headers: input.headers, clientIp: input.clientIp },
    { store, gate: payments.gate, probe, market, chain: payments.chain, logger, now },
  );
