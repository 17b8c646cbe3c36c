// Following listings from a script or CI: `events` prints a listing's or a seller's events (and can
// keep following them), `webhooks create|show|delete` manages signed webhook subscriptions.
import { setTimeout as sleep } from "node:timers/promises";
import { Command, Option } from "commander";
import {
  deleteWebhook,
  getWebhook,
  listingStatus,
  sellerEvents,
  subscribeSeller,
  subscribeWebhook,
  type ListingEventRecord,
  type WebhookCreated,
  type WebhookCreateRequest,
} from "../client/index.js";
import {
  buyerIndex,
  clientFor,
  globalsOf,
  output,
  payerKey,
  positiveNumber,
  progress,
  UsageError,
  type GlobalOptions,
  type PayerFlags,
} from "./support.js";

function eventLine(event: ListingEventRecord): string {
  const change = event.data && "from" in event.data ? ` ${String(event.data.from)} -> ${String(event.data.to)}` : "";
  return `${event.at}  #${event.seq}  ${event.type.padEnd(22)} ${event.listingId}  now ${event.status.state}${change}`;
}

export function eventsCommand(): Command {
  return new Command("events")
    .description("print a listing's or a seller's events, oldest first (with --follow, keep printing new ones)")
    .addOption(
      new Option("--listing <id>", "one listing's events (any state: also why it is gone)").conflicts("seller"),
    )
    .option("--seller <payTo>", "every listing of this seller")
    .option("--follow", "keep polling and print events as they happen (Ctrl-C stops)")
    .option("--interval <seconds>", "seconds between polls with --follow", positiveNumber, 10)
    .action(
      async (flags: { listing?: string; seller?: string; follow?: boolean; interval: number }, command: Command) => {
        if (!flags.listing && !flags.seller) throw new UsageError("name --listing <id> or --seller <payTo>");
        await followEvents(globalsOf(command), flags, flags.follow ? flags.interval : null);
      },
    );
}

/** Prints a listing's or a seller's events oldest first; with an interval (seconds), keeps polling for new ones. */
export async function followEvents(
  globals: GlobalOptions,
  target: { listing?: string; seller?: string },
  intervalSeconds: number | null,
): Promise<void> {
  const client = clientFor(globals);
  const read = async () =>
    target.listing ? (await listingStatus(client, target.listing)).history : await sellerEvents(client, target.seller!);
  let last = 0;
  for (;;) {
    const fresh = (await read()).filter((event) => event.seq > last).reverse();
    for (const event of fresh) output(globals, event, () => eventLine(event));
    last = Math.max(last, ...fresh.map((event) => event.seq));
    if (intervalSeconds === null) return;
    await sleep(intervalSeconds * 1000);
  }
}

function createdText(created: WebhookCreated): string {
  return [
    `subscription ${created.id} (${created.kind}), ${created.status}`,
    `  secret: ${created.secret}   (shown once: keep it to verify deliveries and to show or delete this subscription)`,
    `  ${created.verification}`,
  ].join("\n");
}

interface CreateFlags extends Pick<PayerFlags, "chainFile" | "buyer"> {
  listing?: string[];
  search?: string;
  maxPrice?: number;
  seller?: boolean;
  event?: string[];
}

function webhooksCreate(): Command {
  return new Command("create")
    .description(
      "subscribe an endpoint (https) to listing events: chosen listings, a saved search, or as a seller every listing of its payTo",
    )
    .argument("<endpoint>", "the URL events are POSTed to")
    .option("--listing <id...>", "follow these listings")
    .option("--search <query>", "be told about new listings matching these words")
    .option("--max-price <usdc>", "with --search: at most this price per call", positiveNumber)
    .option("--seller", "follow every listing of the key's payTo (signed with X402_PRIVATE_KEY or --chain-file)")
    .option("--chain-file <file>", "with --seller: take the key from a local chain file (.dev/chain.json)")
    .option("--buyer <n>", "which buyer of --chain-file", buyerIndex, 0)
    .option("--event <type...>", "only these event types (e.g. listing.health_changed listing.expiring)")
    .action(async (endpoint: string, flags: CreateFlags, command: Command) => {
      const globals = globalsOf(command);
      const chosen = [flags.listing, flags.search, flags.seller].filter(Boolean).length;
      if (chosen !== 1) throw new UsageError("name exactly one of --listing, --search or --seller");
      const events = flags.event as WebhookCreateRequest["events"];
      let created: WebhookCreated;
      if (flags.seller) {
        progress("signing the subscription with the seller's key");
        created = await subscribeSeller({
          baseUrl: globals.url,
          privateKey: payerKey(flags),
          url: endpoint,
          ...(events && { events }),
        });
      } else {
        const search = flags.search
          ? { q: flags.search, ...(flags.maxPrice !== undefined && { maxPrice: flags.maxPrice }) }
          : undefined;
        created = await subscribeWebhook(clientFor(globals), {
          url: endpoint,
          ...(flags.listing && { listingIds: flags.listing }),
          ...(search && { search }),
          ...(events && { events }),
        });
      }
      output(globals, created, () => createdText(created));
    });
}

const secretOption = () =>
  new Option("--secret <whsec>", "the subscription's secret (or WEBHOOK_SECRET)")
    .env("WEBHOOK_SECRET")
    .makeOptionMandatory();

function webhooksShow(): Command {
  return new Command("show")
    .description("a subscription's status and its recent deliveries")
    .argument("<id>")
    .addOption(secretOption())
    .action(async (id: string, flags: { secret: string }, command: Command) => {
      const globals = globalsOf(command);
      const subscription = await getWebhook(clientFor(globals), id, flags.secret);
      output(globals, subscription, () =>
        [
          `subscription ${subscription.id} (${subscription.kind}) to ${subscription.url}: ${subscription.status}${subscription.disabledReason ? ` (${subscription.disabledReason})` : ""}`,
          ...subscription.deliveries.map(
            (d) =>
              `  #${d.eventSeq} ${d.eventId} ${d.status}, ${d.attempts} attempt(s)${d.lastError ? `, last: ${d.lastError}` : ""}`,
          ),
        ].join("\n"),
      );
    });
}

function webhooksDelete(): Command {
  return new Command("delete")
    .description("stop a subscription")
    .argument("<id>")
    .addOption(secretOption())
    .action(async (id: string, flags: { secret: string }, command: Command) => {
      const globals = globalsOf(command);
      await deleteWebhook(clientFor(globals), id, flags.secret);
      output(globals, { id, deleted: true }, () => `subscription ${id} deleted`);
    });
}

export function webhooksCommand(): Command {
  const group = new Command("webhooks").description("signed webhooks (Standard Webhooks) of listing events");
  for (const sub of [webhooksCreate(), webhooksShow(), webhooksDelete()]) group.addCommand(sub.exitOverride());
  return group;
}
