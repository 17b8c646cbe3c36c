// An instance killed (SIGKILL) in the middle of a round, as a real process on PostgreSQL: the
// listings it had leased are probed by the other instance once the leases run out, each once.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { databaseKinds } from "../support/catalog.js";
import { SELLER_PAY_TO } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";
import type { TestDatabase } from "../storage/databases.js";
import { listingInput } from "../storage/fixtures.js";
import { paying, startHealthSeller, type HealthSeller } from "./support.js";

const postgres = databaseKinds.find((kind) => kind.kind === "postgres");
const LEASE_MS = 3000;

describe.skipIf(!postgres)("an instance killed mid-round", () => {
  let database: TestDatabase;
  let server: TestServer;
  let seller: HealthSeller;
  let hanging = true;

  beforeAll(async () => {
    database = await postgres!.create();
    server = await startTestServer({
      DATABASE_URL: database.url,
      ALLOW_LOOPBACK_SELLERS: "true",
      HEALTH_HOST_GAP_MS: "0",
      PROBE_TIMEOUT_MS: "2000",
    });
    const asset = server.contexts.listings.market.asset;
    seller = await startHealthSeller(() => (hanging ? { ...paying(asset)(), delayMs: 60_000 } : paying(asset)()));
    for (let i = 0; i < 6; i++) {
      await server.contexts.listings.store.createListing(
        listingInput({
          resource: `${seller.url}/api/${i}`,
          method: "GET",
          priceUsdc: "0.03",
          sellerPayTo: SELLER_PAY_TO,
        }),
        new Date(),
      );
    }
  });
  afterAll(async () => {
    await server?.close();
    await seller?.close();
    await database?.drop();
  });

  it("leaves leases that the other instance takes over once they run out", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "test/health/fixtures/lease-holder.ts"], {
      env: {
        ...process.env,
        DATABASE_URL: database.url,
        HOLDER: "doomed-instance",
        LEASE_MS: String(LEASE_MS),
        ASSET: server.contexts.listings.market.asset,
      },
      stdio: ["ignore", "pipe", "inherit"],
    });
    onTestFinished(() => void child.kill("SIGKILL"));
    const claimed = await new Promise<string>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`the lease holder exited (${code})`)));
      createInterface({ input: child.stdout! }).once("line", resolve);
    });
    expect(claimed).toBe("claimed 6");
    const { prisma } = server.database;
    expect(await prisma.listingHealth.count({ where: { leasedBy: "doomed-instance" } })).toBe(6);
    // It is probing (the seller hangs; one probe per host at a time): kill it there.
    while (seller.visits.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    hanging = false;
    const killedAt = Date.now();

    expect((await server.contexts.listings.health.prober.runRound()).probed).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, killedAt + LEASE_MS + 200 - Date.now())));
    const visitsBefore = seller.visits.length;
    const report = await server.contexts.listings.health.prober.runRound();
    expect(report.probed).toBe(6);
    expect(seller.visits.length - visitsBefore).toBe(6);
    const rows = await prisma.listingHealth.findMany();
    expect(
      rows.every((row) => row.leasedBy === null && row.lastCheckedAt !== null && row.consecutiveSuccesses === 1),
    ).toBe(true);
  });
});
