// The delivering instance SIGKILLed in the middle of a burst, as a real `npm start` process on
// PostgreSQL beside a second instance: once its lease runs out, the second instance delivers the
// rest. Every event arrives, in order; at most the one in flight at the kill arrives twice (the
// same webhook-id: at-least-once). Skipped without TEST_POSTGRES_URL.
// The lease's 30 s are not waited out: the test reads the end the killed process wrote, then moves
// it to a moment ago, as its holder would write it (JobLeases.acquire).
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { databaseKinds } from "../support/catalog.js";
import { expireKilledHoldersLease } from "../support/killed-lease.js";
import { startService, type ServiceProcess } from "../support/process.js";
import { startTestServer, type TestServer } from "../support/server.js";
import type { TestDatabase } from "../storage/databases.js";
import { listingInput } from "../storage/fixtures.js";
import { startReceiver, type Receiver } from "./receiver.js";

const postgres = databaseKinds.find((kind) => kind.kind === "postgres");
const PAY_TO = "0x2546bcd3c84621e976d8185a91a922ae77ecec30";
const EVENTS = 30;

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 180_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await condition());) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(!postgres)("the webhook deliverer killed mid-burst", () => {
  let database: TestDatabase;
  let survivor: TestServer;
  let doomed: ServiceProcess | undefined;
  let receiver: Receiver;

  beforeAll(async () => {
    database = await postgres!.create();
    survivor = await startTestServer({
      DATABASE_URL: database.url,
      ALLOW_LOOPBACK_SELLERS: "true",
      WEBHOOK_TIMEOUT_MS: "5000",
    });
    receiver = await startReceiver();
    receiver.delayMs = 250;
  });
  afterAll(async () => {
    doomed?.kill();
    await survivor?.close();
    await receiver?.close();
    await database?.drop();
  });

  // A process start (a build and a local chain) plus a lease's run-out: minutes on a loaded machine.
  it("loses nothing and repeats at most the delivery in flight", { timeout: 420_000 }, async () => {
    const created = await survivor.fetch("/webhooks", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, search: { q: "burst" } }),
    });
    expect(created.status).toBe(201);
    receiver.secret = ((await created.json()) as { secret: string }).secret;
    for (let i = 0; i < EVENTS; i++) {
      await survivor.contexts.listings.store.createListing(
        listingInput({
          resource: `https://burst.example.com/${i}`,
          description: `burst number ${i}`,
          sellerPayTo: PAY_TO,
        }),
        new Date(),
      );
    }
    const recorded = (await survivor.repositories.events.after(0, 1000)).map((event) => event.id);
    expect(recorded).toHaveLength(EVENTS);

    // The other instance, a real process, delivers on its own timer (this one only when asked).
    const started = Date.now();
    doomed = await startService(
      {
        DATABASE_URL: database.url,
        ALLOW_LOOPBACK_SELLERS: "true",
        WEBHOOK_INTERVAL_MS: "100",
        LOAD_SEED: "false",
        SEARCH_SEMANTIC: "false",
        DEV_CHAIN_FILE: join(mkdtempSync(join(tmpdir(), "webhook-kill-")), "chain.json"),
      },
      { readyTimeoutMs: 180_000 },
    );
    await until(() => receiver.events().length >= 5, "the process delivering its first events");
    process.kill(-doomed.pgid, "SIGKILL");
    const killedAt = Date.now();
    await until(() => doomed!.exit !== null, "the killed process to be gone");
    const atKill = receiver.events().length;
    expect(atKill).toBeLessThan(EVENTS);
    // Slow answers only had to keep a delivery in flight at the kill.
    receiver.delayMs = 0;

    await expireKilledHoldersLease(survivor, "webhook-delivery", { pid: doomed.pid, startedAt: started, killedAt });

    // Once it has run out the survivor finishes the burst.
    await until(async () => {
      await survivor.jobs.runNow("webhook-delivery");
      return new Set(receiver.events().map((event) => event.id)).size === EVENTS;
    }, "the survivor to deliver the rest");

    const ids = receiver.events().map((event) => event.id);
    expect(new Set(ids)).toEqual(new Set(recorded));
    expect(ids.length - EVENTS).toBeLessThanOrEqual(1);
    const firstArrival = ids.filter((id, index) => ids.indexOf(id) === index);
    expect(firstArrival).toEqual(recorded);
    expect(receiver.events().every((event) => event.verified)).toBe(true);
  });
});
