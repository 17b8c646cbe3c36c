// The free reads: search, show, status, and watch (polling the feed).
import { setTimeout as sleep } from "node:timers/promises";
import { Command } from "commander";
import { findListing, ToolkitError, type CatalogItem, type Schemas } from "../client/index.js";

type FeedRead = { data?: Schemas["FeedDocument"]; error?: Schemas["ErrorBody"]; response: Response };
import { clientFor, globalsOf, output, positiveInteger, positiveNumber, progress } from "./support.js";
import { followEvents } from "./webhook-commands.js";
import { linkTo } from "../market/links.js";

export function itemLine(item: CatalogItem): string {
  return `${item.metadata.listingId}  ${item.metadata.priceUsdc.padStart(8)} USDC  ${item.method.padEnd(4)} ${item.resource}  ${item.description}`;
}

function failed(what: string, status: number, message?: string): ToolkitError {
  return new ToolkitError(
    "request",
    `${what} answered ${status}${message ? `: ${message}` : ""}`,
    "check --url and the parameters",
  );
}

export function searchCommand(): Command {
  return new Command("search")
    .description("search the catalog (description, resource URL, seller address)")
    .argument("[query]", "text to look for; none lists everything")
    .option("--include-seed", "include the marketplace's own /kr-* demo endpoints")
    .option("--limit <n>", "page size (1-200)", positiveInteger(200), 20)
    .option("--cursor <cursor>", "the next page: nextCursor of the previous search")
    .action(
      async (
        query: string | undefined,
        flags: { includeSeed?: boolean; limit: number; cursor?: string },
        command: Command,
      ) => {
        const globals = globalsOf(command);
        const { data, error, response } = await clientFor(globals).GET("/search", {
          params: {
            query: {
              limit: flags.limit,
              ...(query && { query }),
              ...(flags.includeSeed && { includeSeed: true }),
              ...(flags.cursor && { cursor: flags.cursor }),
            },
          },
        });
        if (!data) throw failed("GET /search", response.status, error?.message);
        output(globals, data, () => {
          const { total, nextCursor } = data.pagination;
          const footer = `${data.items.length} of ${total} listing(s)${nextCursor ? `; next page: --cursor ${nextCursor}` : ""}`;
          return [...data.items.map(itemLine), footer].join("\n");
        });
      },
    );
}

export function showCommand(): Command {
  return new Command("show")
    .description("show one listing, by id or by resource URL")
    .argument("<id>", "listing id (metadata.listingId) or the resource URL")
    .action(async (id: string, _flags: unknown, command: Command) => {
      const globals = globalsOf(command);
      const item = await findListing(clientFor(globals), id);
      if (!item) throw new ToolkitError("request", `no active listing ${id}`, "find listings with: x402-market search");
      output(globals, item, () => JSON.stringify(item, null, 2));
    });
}

export function statusCommand(): Command {
  return new Command("status")
    .description("the service's status and counts")
    .action(async (_flags: unknown, command: Command) => {
      const globals = globalsOf(command);
      const { data, error, response } = await clientFor(globals).GET("/status.json");
      if (!data) throw failed("GET /status.json", response.status, error?.message);
      output(globals, data, () =>
        [
          `${data.name} ${data.version}: ${data.ok ? "ok" : "NOT OK"}`,
          `  listings: ${data.sellerListingCountForeign} from sellers, ${data.sellerListingCountSeed} demo rows`,
          `  listing fee: ${data.listingFee.usdc} USDC to ${data.listingFee.payTo} on ${data.listingFee.network}`,
        ].join("\n"),
      );
    });
}

export function watchCommand(): Command {
  return new Command("watch")
    .description(
      "poll /feed.json and print new listings as they appear; with --listing or --seller, that listing's or seller's events (Ctrl-C stops)",
    )
    .option("--listing <id>", "follow one listing's events instead (as x402-market events --listing <id> --follow)")
    .option(
      "--seller <payTo>",
      "follow every listing of this seller instead (as x402-market events --seller <payTo> --follow)",
    )
    .option("--since <time>", "start after this ISO 8601 instant (default: after the newest listing now)")
    .option("--interval <seconds>", "seconds between polls", positiveNumber, 5)
    .option("--count <n>", "stop after this many new listings", positiveInteger(1_000_000))
    .option("--once", "poll once and stop")
    .action(
      async (
        flags: { since?: string; interval: number; count?: number; once?: boolean; listing?: string; seller?: string },
        command: Command,
      ) => {
        const globals = globalsOf(command);
        if (flags.listing || flags.seller) {
          return followEvents(
            globals,
            { ...(flags.listing && { listing: flags.listing }), ...(flags.seller && { seller: flags.seller }) },
            flags.once ? null : flags.interval,
          );
        }
        const client = clientFor(globals);
        let since: string;
        if (flags.since !== undefined) since = flags.since;
        else {
          const { data, error, response } = await client.GET("/feed.json", { params: { query: { limit: 1 } } });
          if (!data) throw failed("GET /feed.json", response.status, error?.message);
          since = data.nextSince ?? new Date().toISOString();
        }
        progress(
          `watching ${linkTo({ baseUrl: globals.url }, "feed")} for listings after ${since}, every ${flags.interval} s`,
        );
        let etag: string | undefined;
        let seen = 0;
        for (;;) {
          const { data, error, response }: FeedRead = await client.GET("/feed.json", {
            params: { query: { since, limit: 200 }, ...(etag && { header: { "If-None-Match": etag } }) },
          });
          if (response.status !== 304) {
            if (!data) throw failed("GET /feed.json", response.status, error?.message);
            etag = response.headers.get("ETag") ?? undefined;
            for (const item of [...data.items].reverse()) {
              output(globals, item, () => `${item.metadata.listedAt}  ${itemLine(item)}`);
              seen += 1;
              if (flags.count !== undefined && seen >= flags.count) return;
            }
            if (data.nextSince) since = data.nextSince;
          }
          if (flags.once) return;
          await sleep(flags.interval * 1000);
        }
      },
    );
}
