// Two service instances on one PostgreSQL schema, one chain: the usage indexer runs on one of them at
// a time (the "usage-indexer" lease), every transfer is stored once, and both serve the same counts.
// When the holder stops, the other takes over.
import { privateKeyToAccount, generatePrivateKey } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { chainPayments, payingFetch } from "../support/payments.js";
import { runUsagePass, stopJob } from "../support/harness.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { listingInput } from "../storage/fixtures.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";
import { startPaidSeller, type PaidSeller } from "./paid-seller.js";

const postgres = testDatabaseKinds().find((kind) => kind.kind === "postgres");
const ENV = { USAGE_INTERVAL_SECONDS: "0", USAGE_CONFIRMATIONS: "0" };

describe.skipIf(!postgres)("usage indexer, two instances on PostgreSQL", () => {
  let chain: LocalChain;
  let payments: Payments;
  let db: TestDatabase;
  let first: TestServer;
  let second: TestServer;
  let seller: PaidSeller;
  let listingId: string;
  /** The instance that held the indexer's lease in the first test. */
  let holder: TestServer;

  beforeAll(async () => {
    chain = await startLocalChain({ buyers: 3 });
    payments = await chainPayments(chain);
    db = await postgres!.create();
    first = await startTestServer({ ...ENV, DATABASE_URL: db.url }, { payments });
    second = await startTestServer({ ...ENV, DATABASE_URL: db.url }, { payments });
    const payTo = privateKeyToAccount(generatePrivateKey()).address;
    listingId = (
      await first.contexts.listings.store.createListing(
        listingInput({ sellerPayTo: payTo, priceUsdc: "0.01" }),
        new Date(),
      )
    ).id;
    seller = await startPaidSeller(chain, { payTo, priceAtomic: "10000", gasKey: chain.buyers[2]!.privateKey });
  }, 60_000);

  afterAll(async () => {
    await seller?.close();
    await first?.close();
    await second?.close();
    await db?.drop();
    await payments?.close();
    await chain?.stop();
  });

  const buy = async (index: number) => {
    const response = await payingFetch(chain, chain.buyers[index]!.privateKey)(`${seller.url}/answer`, {
      method: "POST",
    });
    expect(response.status).toBe(200);
  };
  const callsSeenBy = async (server: TestServer) => {
    const document = (await (await server.fetch(`/listings/${listingId}`)).json()) as {
      item: { metadata: { usage?: { l30DaysTotalCalls: number } } };
    };
    return document.item.metadata.usage?.l30DaysTotalCalls;
  };

  it("indexes on one instance only; both show the same counts", async () => {
    await buy(0);
    const passes = await Promise.all([runUsagePass(first), runUsagePass(second)]);
    const ran = [first, second].filter((_, index) => passes[index] !== null);
    expect(ran).toHaveLength(1);
    expect(passes.find((pass) => pass !== null)).toMatchObject({ inserted: 1 });
    holder = ran[0]!;
    // The other instance, asked again while the lease is held, still does not index.
    const other = ran[0] === first ? second : first;
    expect(await runUsagePass(other)).toBeNull();
    expect(
      await first.contexts.listings.store.transactions.db.prisma.usageTransfer.count({
        where: { kind: { not: "skip" } },
      }),
    ).toBe(1);
    // The instance that did not write hears of the commit by change notice (PostgreSQL), within the 1 s staleness bound.
    await expect.poll(() => callsSeenBy(first), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => callsSeenBy(second), { timeout: 15_000 }).toBe(1);
  });

  it("hands over when the holder stops", async () => {
    const other = holder === first ? second : first;
    await stopJob(holder, "usage-indexer");
    await buy(1);
    expect(await runUsagePass(other)).toMatchObject({ inserted: 1 });
    expect(await callsSeenBy(other)).toBe(2);
    await expect.poll(() => callsSeenBy(holder), { timeout: 15_000 }).toBe(2);
  });
});
