import type { Handler } from "../services.js";
import { dryRunListing, validationGuide } from "../listing/dry-run.js";

/** POST /listings/validate: the paid route's checks, without payment and without saving. */
export const validateListing: Handler<"validateListing"> = (input, { probe }) => dryRunListing(input.body!, input.clientIp, probe);

/** GET /listings/validate: how to call the dry run. */
export const getValidationGuide: Handler<"getValidationGuide"> = (_input, { market, contract }) => ({
  status: 200,
  body: validationGuide(market, contract.document),
});
