// buy: find the listing in the catalog, then pay its seller directly (see src/client/purchase.ts).
import { Command } from "commander";
import type { components } from "../../generated/openapi.js";
import { buyFromSeller, findListing, ToolkitError } from "../client/index.js";
import {
  buyerIndex,
  clientFor,
  confirmer,
  globalsOf,
  output,
  payerKey,
  progress,
  usdcOption,
  type PayerFlags,
} from "./support.js";

export function buyCommand(): Command {
  return new Command("buy")
    .description("buy from a listed seller: pays the seller's own x402 challenge, under your cap, after confirmation")
    .argument("<listing>", "listing id or resource URL (see: x402-market search)")
    .requiredOption("--max <usdc>", "spending cap: refuse any price above this, e.g. 0.05", usdcOption)
    .option("--data <json>", "request body for POST resources (default {})")
    .option("--yes", "pay without asking")
    .option("--force", "buy even when the marketplace's re-probes find the listing unhealthy or drifted")
    .option("--chain-file <file>", "take the payer key from a local chain file (.dev/chain.json)")
    .option("--buyer <n>", "which buyer of --chain-file pays", buyerIndex, 0)
    .addHelpText(
      "after",
      "\nThe payer key is X402_PRIVATE_KEY unless --chain-file is given. For a seller with a private CA, set NODE_EXTRA_CA_CERTS.",
    )
    .action(
      async (
        listing: string,
        flags: PayerFlags & { max: string; data?: string; force?: boolean },
        command: Command,
      ) => {
        const globals = globalsOf(command);
        const privateKey = payerKey(flags);
        progress(`looking up ${listing} in the catalog`);
        const item = await findListing(clientFor(globals), listing);
        if (!item)
          throw new ToolkitError("request", `no active listing ${listing}`, "find listings with: x402-market search");
        const unfit = unfitReason(item.metadata.health);
        if (unfit && !flags.force)
          throw new ToolkitError(
            "refused",
            `not buying ${item.resource}: ${unfit}`,
            "buy it anyway with --force, or find a healthy listing with: x402-market search",
          );
        if (unfit) progress(`buying anyway (--force): ${unfit}`);
        const result = await buyFromSeller(item, {
          privateKey,
          maxAtomic: flags.max,
          body: flags.data,
          confirm: confirmer(flags),
          onProgress: progress,
        });
        if (result.settlement?.transaction)
          progress(`paid ${result.paid.amountUsdc} USDC, transaction ${result.settlement.transaction}`);
        output(globals, { resource: item.resource, listingId: item.metadata.listingId, ...result }, () =>
          typeof result.answer === "string" ? result.answer : JSON.stringify(result.answer, null, 2),
        );
      },
    );
}

type ItemHealth = components["schemas"]["CatalogItem"]["metadata"]["health"];

/** Why the marketplace's re-probes advise against buying, or null (healthy, or not re-probed yet). */
function unfitReason(health: ItemHealth): string | null {
  if (health.status !== "unhealthy" && health.status !== "drifted") return null;
  const why =
    health.status === "drifted"
      ? "its endpoint's live x402 challenge no longer matches the listing (price, payTo, token or network changed)"
      : "its endpoint failed the marketplace's last re-probes";
  const code = health.failureCode ? ` (last probe: ${health.failureCode})` : "";
  const since = health.lastHealthyAt ? `; last healthy ${health.lastHealthyAt}` : "; never healthy since listed";
  return `the listing is ${health.status}: ${why}${code}${since}`;
}
