// claim, update, delist: a listing's owner (its sellerPayTo) signs EIP-712 typed data with its key
// (X402_PRIVATE_KEY, or a buyer of a local chain file); refresh: anyone, free.
import { readFileSync } from "node:fs";
import { Command, Option } from "commander";
import {
  claimListing,
  delistListing,
  refreshListing,
  updateListing,
  type ListingChanges,
  type OwnerActionResult,
} from "../client/index.js";
import { buyerIndex, globalsOf, output, payerKey, progress, UsageError, type PayerFlags } from "./support.js";

type OwnerFlags = Pick<PayerFlags, "chainFile" | "buyer">;

function withOwnerKey(command: Command): Command {
  return command
    .argument("<listing-id>", "the listing's id (metadata.listingId of its catalog item)")
    .option("--chain-file <file>", "take the owner's key from a local chain file (.dev/chain.json)")
    .option("--buyer <n>", "which buyer of --chain-file is the owner", buyerIndex, 0)
    .addHelpText(
      "after",
      "\nThe owner's key (the listing's sellerPayTo) is X402_PRIVATE_KEY unless --chain-file is given. Contract wallets (EIP-1271) are not supported.",
    );
}

function resultText(result: OwnerActionResult): string {
  return [result.message, `  state ${result.state}, owner verified: ${result.ownerVerified ? "yes" : "no"}`].join("\n");
}

export function claimCommand(): Command {
  return withOwnerKey(new Command("claim"))
    .description("claim a listing as its owner: sign with sellerPayTo's key; the listing shows ownerVerified")
    .action(async (listingId: string, flags: OwnerFlags, command: Command) => {
      const globals = globalsOf(command);
      progress(`signing the claim of ${listingId}`);
      const result = await claimListing({ baseUrl: globals.url, privateKey: payerKey(flags), listingId });
      output(globals, result, () => resultText(result));
    });
}

interface UpdateFlags extends OwnerFlags {
  description?: string;
  method?: "GET" | "POST";
  price?: string;
  inputSchema?: string;
  removeInputSchema?: boolean;
}

function changesFrom(flags: UpdateFlags): ListingChanges {
  const changes: ListingChanges = {};
  if (flags.description !== undefined) changes.description = flags.description;
  if (flags.method !== undefined) changes.method = flags.method;
  if (flags.price !== undefined) changes.priceUsdc = flags.price;
  if (flags.removeInputSchema) changes.inputSchema = null;
  else if (flags.inputSchema !== undefined) {
    try {
      changes.inputSchema = JSON.parse(readFileSync(flags.inputSchema, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new UsageError(`cannot read the input schema file ${flags.inputSchema}: ${(error as Error).message}`);
    }
  }
  if (Object.keys(changes).length === 0)
    throw new UsageError(
      "nothing to change: pass --description, --method, --price, --input-schema or --remove-input-schema",
    );
  return changes;
}

export function updateCommand(): Command {
  return withOwnerKey(new Command("update"))
    .description(
      "change a listing's description, method, input schema or price (signed by its owner; a new price or method must show in the seller's 402 first)",
    )
    .option("--description <text>", "the new description")
    .addOption(new Option("--method <method>", "the new HTTP method buyers call").choices(["GET", "POST"]))
    .option("--price <usdc>", "the new sale price in USDC, e.g. 0.02")
    .option("--input-schema <file>", "a JSON file with the new input schema")
    .option("--remove-input-schema", "remove the input schema")
    .action(async (listingId: string, flags: UpdateFlags, command: Command) => {
      const globals = globalsOf(command);
      const changes = changesFrom(flags);
      progress(`signing the update of ${listingId} (${Object.keys(changes).join(", ")})`);
      const result = await updateListing({ baseUrl: globals.url, privateKey: payerKey(flags), listingId }, changes);
      output(globals, result, () => resultText(result));
    });
}

export function delistCommand(): Command {
  return withOwnerKey(new Command("delist"))
    .description("withdraw a listing at once (signed by its owner); the listing fee is not refunded")
    .action(async (listingId: string, flags: OwnerFlags, command: Command) => {
      const globals = globalsOf(command);
      progress(`signing the delisting of ${listingId} (the fee is not refunded)`);
      const result = await delistListing({ baseUrl: globals.url, privateKey: payerKey(flags), listingId });
      output(globals, result, () => resultText(result));
    });
}

export function refreshCommand(): Command {
  return new Command("refresh")
    .description(
      "re-probe a listing's seller now and update its health and seller metadata (free, anyone; rate-limited)",
    )
    .argument("<listing-id>", "the listing's id")
    .action(async (listingId: string, _flags: unknown, command: Command) => {
      const globals = globalsOf(command);
      const result = await refreshListing({ baseUrl: globals.url, listingId });
      output(globals, result, () =>
        [
          result.ok
            ? `The seller answered as listed: ${result.detail}`
            : `The probe failed (${result.code}): ${result.detail}`,
          `  seller metadata ${result.metadataChanged ? "updated" : "unchanged"}; health ${result.healthRecorded ? "recorded" : "not recorded"}`,
        ].join("\n"),
      );
    });
}
