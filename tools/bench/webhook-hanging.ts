/**
 * `npm run bench:webhook-hanging`: issue 42's item 4 at the service's default settings (a poll every
 * 2 s, a 10 s deadline, 4 slots, a 1 s slot budget), run as `npm start` runs it. One genuine
 * subscriber receives a few events alone, then `HANGING` (default 40) more subscribers verify and
 * then never answer, and the genuine one receives a few more events while they hang and their
 * retries come due. Prints the genuine delivery's delay from the change alone and beside them.
 * Before the fix the issue measured 2.1 s alone and 179 s beside forty (not re-run here: it takes
 * minutes); test/webhooks/hanging-subscribers.test.ts has the unfixed figures at a 2 s deadline.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { openDatabase } from "../../src/storage/database.js";
import { ListingStore } from "../../src/storage/listing/listing-store.js";
import { listingEvent } from "../../src/storage/listing/listing-status.js";
import { seedListings } from "./seed-listings.js";
import { serve } from "./servers.js";

const HANGING = Number(process.env.HANGING ?? 40);
const EVENTS = 8;
const EVENT_GAP_MS = 3000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;

async function main() {
  const databaseUrl = `file:${join(mkdtempSync(join(tmpdir(), "bench-webhook-hanging-")), "bench.db")}`;
  await seedListings(databaseUrl, 10);

  let hang = false;
  let hangingPosts = 0;
  const arrivals = new Map<string, number>();
  const open = new Set<ServerResponse>();
  const receiver = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        type: string;
        data: { challenge?: string };
      };
      const hanging = request.url!.startsWith("/hang");
      if (message.type === "webhook.verification")
        return void response.writeHead(200).end(JSON.stringify({ challenge: message.data.challenge }));
      if (hanging) {
        hangingPosts++;
        if (hang) return void open.add(response);
      } else arrivals.set(String(request.headers["webhook-id"]), Date.now());
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

  const server = await serve("app", [], {
    DATABASE_URL: databaseUrl,
    ALLOW_LOOPBACK_SELLERS: "true",
    SEARCH_SEMANTIC: "false",
    HEALTH_PROBE_INTERVAL_MS: "0",
    WEBHOOK_RATE_PER_CLIENT: "1000",
    WEBHOOK_PENDING_PER_CLIENT: "1000",
    WEBHOOK_PENDING_PER_HOST: "1000",
  });
  const db = await openDatabase(databaseUrl);
  const store = new ListingStore(db);
  const listing = (await db.prisma.listing.findFirst({ where: { leftoverSeed: false } }))!;
  const subscribe = async (url: string) => {
    const response = await fetch(`${server.url}/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url, listingIds: [listing.id] }),
    });
    if (response.status !== 201) throw new Error(`subscribe: ${response.status} ${await response.text()}`);
    return (await response.json()) as { id: string };
  };
  const verified = async (count: number) => {
    for (
      let i = 0;
      i < 100 && (await db.prisma.webhookSubscription.count({ where: { status: "active" } })) < count;
      i++
    )
      await sleep(200);
  };
  /** Writes `EVENTS` changes of the listing, EVENT_GAP_MS apart; the genuine subscriber's delay for each. */
  const delays = async (): Promise<number[]> => {
    const written: Array<{ id: string; at: number }> = [];
    for (let i = 0; i < EVENTS; i++) {
      const at = new Date();
      const draft = listingEvent(listing, "listing.updated", at, { by: "bench" });
      await store.transactions.write(at, async () => ({ result: null, changed: false, events: [draft] }));
      const event = await db.prisma.listingEvent.findFirst({ orderBy: { seq: "desc" }, select: { id: true } });
      written.push({ id: event!.id, at: at.getTime() });
      await sleep(EVENT_GAP_MS);
    }
    for (let i = 0; i < 600 && written.some((event) => !arrivals.has(event.id)); i++) await sleep(500);
    return written.map((event) => (arrivals.get(event.id) ?? NaN) - event.at);
  };
  try {
    await subscribe(`${base}/genuine`);
    await verified(1);
    const alone = await delays();
    for (let i = 0; i < HANGING; i++) await subscribe(`${base}/hang?n=${i}`);
    await verified(1 + HANGING);
    hang = true;
    const posts = hangingPosts;
    const beside = await delays();
    const rows: Array<[string, string]> = [
      ["genuine delay alone p50 / max (ms)", `${percentile(alone, 50)} / ${Math.max(...alone)}`],
      [`genuine delay beside ${HANGING} hanging p50 / max (ms)`, `${percentile(beside, 50)} / ${Math.max(...beside)}`],
      [
        "beside / alone, p50 and max (target <= 2x)",
        `${(percentile(beside, 50) / percentile(alone, 50)).toFixed(2)}x, ${(Math.max(...beside) / Math.max(...alone)).toFixed(2)}x`,
      ],
      [`POSTs to the hanging endpoints over ${(EVENTS * EVENT_GAP_MS) / 1000} s`, String(hangingPosts - posts)],
      ["load average (1 min) at the end", loadavg()[0]!.toFixed(2)],
    ];
    for (const [name, value] of rows) console.log(`${name.padEnd(48)} ${value}`);
  } finally {
    for (const response of open) response.destroy();
    await server.stop();
    receiver.close();
    await db.close();
  }
}

await main();
