// validate and list: the listing body comes from a JSON file, flags, or both (flags win).
import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import { payForListing, validateListing, type ListingRequest, type ValidationReport } from "../client/index.js";
import {
  buyerIndex,
  clientFor,
  confirmer,
  EXIT,
  globalsOf,
  output,
  payerKey,
  progress,
  usdcOption,
  UsageError,
  type PayerFlags,
} from "./support.js";
import { LISTING_FEE_ATOMIC, NETWORK } from "../constants.js";

interface ListingFlags {
  resource?: string;
  method?: "GET" | "POST";
  price?: string;
  description?: string;
  payTo?: string;
  network?: string;
}

function addListingOptions(command: Command): Command {
  return command
    .argument("[file]", "JSON file with the listing body (resource, method, priceUsdc, description, sellerPayTo)")
    .option("--resource <url>", "the seller's https endpoint")
    .addOption(new Option("--method <method>", "HTTP method buyers call").choices(["GET", "POST"]))
    .option("--price <usdc>", "sale price in USDC, e.g. 0.02")
    .option("--description <text>", "what the endpoint does")
    .option("--pay-to <address>", "the seller's wallet (sellerPayTo)")
    .option("--network <network>", `payment network (${NETWORK})`);
}

function listingFrom(file: string | undefined, flags: ListingFlags): ListingRequest {
  let body: Record<string, unknown> = {};
  if (file) {
    try {
      body = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new UsageError(`cannot read the listing file ${file}: ${(error as Error).message}`);
    }
  }
  const fromFlags = {
    resource: flags.resource,
    method: flags.method,
    priceUsdc: flags.price,
    description: flags.description,
    sellerPayTo: flags.payTo,
    network: flags.network,
  };
  for (const [key, value] of Object.entries(fromFlags)) if (value !== undefined) body[key] = value;
  if (Object.keys(body).length === 0)
    throw new UsageError("no listing given: pass a JSON file or --resource, --price, --description and --pay-to");
  // The server checks the shape and names every offending field.
  return body as unknown as ListingRequest;
}

function reportText(report: ValidationReport): string {
  const lines = report.checks.map(
    (check) =>
      `${check.ok ? "ok  " : "FAIL"} ${check.name}${check.code ? ` [${check.code}]` : ""}${check.reason ? `: ${check.reason}` : ""}`,
  );
  return [
    ...lines,
    report.ok
      ? "All checks passed: the listing can be paid for."
      : "The listing would be refused; nothing was charged.",
  ].join("\n");
}

export function validateCommand(): Command {
  return addListingOptions(new Command("validate"))
    .description("dry-run a listing: every check of POST /listings, free (exit 1 when a check fails)")
    .action(async (file: string | undefined, flags: ListingFlags, command: Command) => {
      const globals = globalsOf(command);
      const report = await validateListing(clientFor(globals), listingFrom(file, flags));
      output(globals, report, () => reportText(report));
      if (!report.ok) process.exitCode = EXIT.failed;
    });
}

export function listCommand(): Command {
  return addListingOptions(new Command("list"))
    .description("list an endpoint: validate, show the fee's challenge, ask, pay the fee with x402, print the listing")
    .option("--yes", "pay without asking")
    .option("--max-fee <usdc>", "refuse a fee above this", usdcOption, LISTING_FEE_ATOMIC)
    .option("--chain-file <file>", "take the payer key from a local chain file (.dev/chain.json)")
    .option("--buyer <n>", "which buyer of --chain-file pays", buyerIndex, 0)
    .addHelpText("after", "\nThe payer key is X402_PRIVATE_KEY unless --chain-file is given.")
    .action(
      async (file: string | undefined, flags: ListingFlags & PayerFlags & { maxFee: string }, command: Command) => {
        const globals = globalsOf(command);
        const listing = listingFrom(file, flags);
        const privateKey = payerKey(flags);
        progress("validating the listing (free)");
        const report = await validateListing(clientFor(globals), listing);
        if (!report.ok) {
          process.stderr.write(`${reportText(report)}\n`);
          output(globals, { listed: false, report }, () => "Not listed: fix the failing checks (see above).");
          process.exitCode = EXIT.failed;
          return;
        }
        const result = await payForListing(globals.url, listing, {
          privateKey,
          maxAtomic: flags.maxFee,
          confirm: confirmer(flags),
          onProgress: progress,
        });
        output(globals, { listed: true, ...result }, () =>
          [
            `Listed ${result.listing.resource}`,
            `  id ${result.listing.id}${result.listing.renewed ? " (renewed)" : ""}, expires ${result.listing.expiresAt}`,
            `  fee ${result.listing.listingFeeUsdc} USDC, transaction ${result.listing.transaction ?? result.settlement?.transaction ?? "?"}`,
            `  catalog ${result.listing.catalog}`,
          ].join("\n"),
        );
      },
    );
}
