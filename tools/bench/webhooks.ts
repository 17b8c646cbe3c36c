/**
 * `npm run bench:webhooks`: 10,000 subscriptions (one per listing) and a burst of 10,000 events
 * delivered by the service, run as `npm start` runs it, to a local receiver. Prints events/s,
 * delivery p50/p99 from the change, and catalog read latency during the burst against idle in the
 * same run (target: at most 1.2x), with the load average.
 *
 * Set-up, not measured: the listings are bulk-inserted, the subscriptions written as verified (their
 * handshake is tested in test/webhooks/), and the burst is written to the change log by this process
 * through the service's own outbox path (CatalogTransactions.write), as 10,000 changes would be.
 * `WEBHOOK_BENCH_SIZE` scales it (default 10000).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/database.js";
import { ListingStore } from "../../src/storage/listing/listing-store.js";
import { WebhookStore } from "../../src/webhooks/webhook-store.js";
import { listingEvent } from "../../src/storage/listing/listing-status.js";
import { newChallenge, newSecret, secretHash } from "../../src/webhooks/signing.js";
import { MAX_PER_ENDPOINT } from "../../src/webhooks/subscriptions.js";
import { seedListings } from "./seed-listings.js";
import { serve } from "./servers.js";

const SIZE = Number(process.env.WEBHOOK_BENCH_SIZE ?? 10_000);
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

async function readLatencies(url: string, stop: () => boolean, minMs: number): Promise<number[]> {
  const latencies: number[] = [];
  const started = Date.now();
  for (let i = 0; !stop() || Date.now() - started < minMs; i++) {
    const at = performance.now();
    const response = await fetch(`${url}/discovery/resources?limit=20&offset=${(i * 37) % 2000}`);
    await response.arrayBuffer();
    latencies.push(performance.now() - at);
    if (Date.now() - started > 300_000) break;
  }
  return latencies;
}

async function main() {
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), "bench-webhooks-")), "bench.db")}`;
  console.log(`seeding ${SIZE} listings and ${SIZE} subscriptions ...`);
  await seedListings(databaseUrl, SIZE);
  let db = await openDatabase(databaseUrl);
  const webhooks = new WebhookStore(new ListingStore(db).transactions);
  const listings = await db.prisma.listing.findMany({ where: { leftoverSeed: false }, take: SIZE });

  const arrivals = new Map<string, number>();
  const receiver = createServer((request, response) => {
    const id = String(request.headers["webhook-id"]);
    request.resume();
    request.on("end", () => {
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  const now = new Date();
  for (const listing of listings) {
    const secret = newSecret();
    const created = await webhooks.create(
      {
        url: `${endpoint}?l=${listing.id}`,
        kind: "listings",
        listingIds: [listing.id],
        secret,
        secretHash: secretHash(secret),
        challenge: newChallenge(),
        clientIp: "127.0.0.1",
        host: "127.0.0.1",
      },
      { perUrl: MAX_PER_ENDPOINT, pendingPerClient: 1_000_000, pendingPerHost: 1_000_000, pendingTotal: 1_000_000 },
      now,
    );
    await webhooks.verified(created.id, now);
  }
  // The service migrates the file at start: it must be the only one with it open then.
  await db.close();

  const server = await serve("app", [], {
    DATABASE_URL: databaseUrl,
    ALLOW_LOOPBACK_SELLERS: "true",
    WEBHOOK_INTERVAL_MS: "200",
    ...(process.env.WEBHOOK_CONCURRENCY && { WEBHOOK_CONCURRENCY: process.env.WEBHOOK_CONCURRENCY }),
    SEARCH_SEMANTIC: "false",
    HEALTH_PROBE_INTERVAL_MS: "0",
  });
  db = await openDatabase(databaseUrl);
  const store = new ListingStore(db);
  try {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const idle = await readLatencies(server.url, () => true, 5000);
    const cpuBefore = server.cpuMs();

    const burstAt = Date.now();
    const drafts = listings.map((listing) =>
      listingEvent(listing, "listing.updated", new Date(burstAt), { by: "bench" }),
    );
    for (let i = 0; i < drafts.length; i += 1000) {
      await store.transactions.write(new Date(burstAt), async () => ({
        result: null,
        changed: false,
        events: drafts.slice(i, i + 1000),
      }));
    }
    const eventTimes = new Map(
      (
        await db.prisma.listingEvent.findMany({ where: { type: "listing.updated" }, select: { id: true, at: true } })
      ).map((event) => [event.id, event.at.getTime()]),
    );
    const burst = () => [...eventTimes.keys()].filter((id) => arrivals.has(id)).length;
    const during = await readLatencies(server.url, () => burst() >= drafts.length, 0);
    const doneAt = Date.now();
    const cpuMs = server.cpuMs() - cpuBefore;

    const delays = [...arrivals].flatMap(([id, at]) => (eventTimes.has(id) ? [at - eventTimes.get(id)!] : []));
    const ratio = percentile(during, 50) / percentile(idle, 50);
    const rows: Array<[string, string]> = [
      ["events delivered", `${delays.length} of ${drafts.length}`],
      ["events/s", (delays.length / ((doneAt - burstAt) / 1000)).toFixed(0)],
      ["delivery p50 from the change (ms)", percentile(delays, 50).toFixed(0)],
      ["delivery p99 from the change (ms)", percentile(delays, 99).toFixed(0)],
      ["service CPU per delivery (ms)", (cpuMs / Math.max(1, delays.length)).toFixed(2)],
      ["catalog read p50 idle (ms)", percentile(idle, 50).toFixed(2)],
      ["catalog read p50 during the burst (ms)", percentile(during, 50).toFixed(2)],
      [
        "catalog read p99 idle / burst (ms)",
        `${percentile(idle, 99).toFixed(2)} / ${percentile(during, 99).toFixed(2)}`,
      ],
      ["read p50 burst / idle (target <= 1.2x)", `${ratio.toFixed(2)}x ${ratio <= 1.2 ? "PASS" : "MISS"}`],
      ["service RSS (MiB)", server.rssMiB().toFixed(0)],
      ["load average (1 min) at the end", loadavg()[0]!.toFixed(2)],
    ];
    for (const [name, value] of rows) console.log(`${name.padEnd(44)} ${value}`);
  } finally {
    await server.stop();
    receiver.close();
    await db.close();
  }
}

await main();
