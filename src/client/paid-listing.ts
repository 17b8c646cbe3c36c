// Listing an endpoint: the free dry run, the fee's challenge from an unpaid POST /listings, the
// user's agreement, then the paid POST /listings through the SDK.
import type { SettleResponse } from "@x402/core/types";
import { ToolkitError } from "./errors.js";
import {
  createMarketplaceClient,
  type ListingCreated,
  type ListingRequest,
  type MarketplaceClient,
  type ValidationReport,
} from "./marketplace-client.js";
import { atomicToUsdc, createPayer, payingFetch, readChallenge } from "./payments.js";
import { agreeToPay, settlementOf, type PaymentSteps, type Quote } from "./purchase.js";
import { linkTo } from "../market/links.js";

export interface ListResult {
  listing: ListingCreated;
  fee: Quote;
  settlement: SettleResponse | null;
}

/** The dry run's report; a body that breaks the schema (400) is a request failure. */
export async function validateListing(client: MarketplaceClient, listing: ListingRequest): Promise<ValidationReport> {
  const { data, error, response } = await client.POST("/listings/validate", { body: listing });
  if (data) return data;
  if (response.status === 422 && error && "checks" in error) return error;
  const fields =
    error && "fields" in error && error.fields
      ? `: ${error.fields.map((field) => `${field.field} ${field.message}`).join("; ")}`
      : "";
  throw new ToolkitError(
    "request",
    `POST /listings/validate answered ${response.status}: ${error && "message" in error ? error.message : "no body"}${fields}`,
    "fix the listing and try again",
    error,
  );
}

export async function payForListing(
  baseUrl: string,
  listing: ListingRequest,
  steps: PaymentSteps,
): Promise<ListResult> {
  const unpaidClient = createMarketplaceClient({ baseUrl });
  steps.onProgress?.("asking POST /listings for the fee's challenge");
  const { response: unpaid } = await unpaidClient.POST("/listings", {});
  const challenge = unpaid.status === 402 ? await readChallenge(unpaid) : null;
  const requirement = challenge?.accepts[0];
  if (!requirement)
    throw new ToolkitError("request", `the unpaid POST /listings answered ${unpaid.status} without an x402 challenge`);
  const fee: Quote = {
    purpose: "listing fee",
    resource: linkTo({ baseUrl }, "list"),
    requirement,
    amountUsdc: atomicToUsdc(requirement.amount),
  };
  await agreeToPay(fee, steps);

  steps.onProgress?.(`paying the ${fee.amountUsdc} USDC fee to ${requirement.payTo}; waiting for settlement`);
  const paying = payingFetch(createPayer(steps.privateKey, { expected: requirement }));
  const client = createMarketplaceClient({ baseUrl, fetch: (request) => paying(request) });
  const { data, error, response } = await client.POST("/listings", { body: listing }).catch((failure: unknown) => {
    if (failure instanceof ToolkitError) throw failure;
    throw new ToolkitError("payment", `the fee could not be paid: ${(failure as Error).message}`);
  });
  if (data) return { listing: data, fee, settlement: settlementOf(response) };
  const reason =
    error && "error" in error ? `${String(error.error)}: ${"message" in error ? String(error.message) : ""}` : "";
  if (response.status === 402)
    throw new ToolkitError(
      "payment",
      `the fee payment was refused (${reason})`,
      "check the payer's balance of the token",
      error,
    );
  throw new ToolkitError(
    "request",
    `POST /listings answered ${response.status} (${reason})`,
    "run validate to see which check fails",
    error,
  );
}
