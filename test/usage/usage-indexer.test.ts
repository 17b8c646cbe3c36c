// Usage from the chain, end to end on a local anvil chain: purchases through the x402 SDK's stock
// buyer (@x402/fetch) move a listing's counts; self-payments, the marketplace's own transfers and a
// seller-funded wallet do not; a price shared by two listings counts for the seller; confirmations
// hold a sale back; a restart resumes without counting twice; a reorg is corrected; the window moves.
import { createTestClient, createWalletClient, erc20Abi, http, parseUnits, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ANVIL_MNEMONIC, deriveAccounts, startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { chainPayments, payingFetch } from "../support/payments.js";
import { runUsagePass, usageStore } from "../support/harness.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { listingInput } from "../storage/fixtures.js";
import { startPaidSeller, type PaidSeller } from "./paid-seller.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";

const DAY_MS = 86_400_000;
const ENV = { USAGE_INTERVAL_SECONDS: "0", USAGE_CONFIRMATIONS: "1" };

let chain: LocalChain;
let payments: Payments;
let server: TestServer;
let databaseUrl: string;
let database: TestDatabase;
let offset = 0;
const now = () => new Date(Date.now() + offset);
const sellers: PaidSeller[] = [];
let sellerA: { address: Address; privateKey: Hex };
let sellerB: { address: Address; privateKey: Hex };
let sellerC: Address;
const ids: Record<string, string> = {};

async function pass(target: TestServer = server): Promise<void> {
  await runUsagePass(target);
}

async function mine(blocks = 1): Promise<void> {
  await createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) }).mine({ blocks });
}

async function documentOf(id: string, target: TestServer = server) {
  const response = await target.fetch(`/listings/${id}`);
  expect(response.status).toBe(200);
  return (await response.json()) as {
    item: {
      metadata: {
        usage?: Record<string, unknown> & { raw: Record<string, unknown> };
        sellerUsage?: Record<string, unknown>;
      };
    };
    usageHistory: { day: string; calls: number; payers: number; volumeUsdc: string }[];
    usageIndexer?: { currentToBlock: string; headBlock: string; lagBlocks: number; checkedAt: string };
  };
}

async function usageOf(id: string) {
  return (await documentOf(id)).item.metadata.usage;
}

async function buy(seller: PaidSeller, key: Hex): Promise<void> {
  const response = await payingFetch(chain, key)(`${seller.url}/answer`, { method: "POST" });
  expect(response.status).toBe(200);
}

async function transfer(key: Hex, to: Address, amount: bigint): Promise<void> {
  const wallet = createWalletClient({
    account: privateKeyToAccount(key),
    chain: chain.chain,
    transport: http(chain.rpcUrl),
  });
  const hash = await wallet.writeContract({
    address: chain.asset,
    abi: erc20Abi,
    functionName: "transfer",
    args: [to, amount],
  });
  await chain.publicClient.waitForTransactionReceipt({ hash });
}

/** Transfers to sellers (funding read behind payers is stored too, as "skip"). */
async function storedTransfers(target: TestServer = server): Promise<number> {
  return target.contexts.listings.store.transactions.db.prisma.usageTransfer.count({
    where: { kind: { not: "skip" } },
  });
}

describe.each(testDatabaseKinds())("usage from the chain ($kind)", (kind) => {
  beforeAll(async () => {
    chain = await startLocalChain({ buyers: 6 });
    payments = await chainPayments(chain);
    database = await kind.create();
    databaseUrl = database.url;
    sellers.length = 0;
    server = await startTestServer({ ...ENV, DATABASE_URL: databaseUrl }, { payments, now });
    sellerA = chain.buyers[3]!;
    sellerB = chain.buyers[4]!;
    sellerC = privateKeyToAccount(generatePrivateKey()).address;
    const gasKey = chain.buyers[5]!.privateKey;
    const store = server.contexts.listings.store;
    ids.a = (await store.createListing(listingInput({ sellerPayTo: sellerA.address, priceUsdc: "0.02" }), now())).id;
    ids.b1 = (await store.createListing(listingInput({ sellerPayTo: sellerB.address, priceUsdc: "0.05" }), now())).id;
    ids.b2 = (await store.createListing(listingInput({ sellerPayTo: sellerB.address, priceUsdc: "0.05" }), now())).id;
    ids.b3 = (await store.createListing(listingInput({ sellerPayTo: sellerB.address, priceUsdc: "0.07" }), now())).id;
    // Listed (by the test's clock) 20 days from now: still live when the clock passes this sale's 30 days.
    offset = 20 * DAY_MS;
    ids.c = (await store.createListing(listingInput({ sellerPayTo: sellerC, priceUsdc: "0.03" }), now())).id;
    offset = 0;
    sellers.push(
      await startPaidSeller(chain, { payTo: sellerA.address, priceAtomic: "20000", gasKey }),
      await startPaidSeller(chain, { payTo: sellerB.address, priceAtomic: "50000", gasKey }),
      await startPaidSeller(chain, { payTo: sellerC, priceAtomic: "30000", gasKey }),
    );
  }, 60_000);

  afterAll(async () => {
    for (const seller of sellers) await seller.close();
    await server?.close();
    await payments?.close();
    await chain?.stop();
    await database?.drop();
  });

  it("shows no usage for a listing nobody has paid yet, once its seller is indexed", async () => {
    await pass();
    expect(await usageOf(ids.a!)).toBeUndefined();
    expect((await documentOf(ids.a!)).item.metadata.sellerUsage).toBeUndefined();
  });

  it("counts purchases made with the stock x402 buyer, once they have their confirmations", async () => {
    const [a, b] = sellers as [PaidSeller, PaidSeller];
    await buy(a, chain.buyers[0]!.privateKey);
    await buy(a, chain.buyers[1]!.privateKey);
    await buy(a, chain.buyers[0]!.privateKey);
    await buy(b, chain.buyers[1]!.privateKey);
    await pass();
    // The last sale's block has no confirmation yet (USAGE_CONFIRMATIONS=1).
    expect(await usageOf(ids.b1!)).toBeUndefined();
    expect((await documentOf(ids.b1!)).item.metadata.sellerUsage).toBeUndefined();
    await mine();
    await pass();

    const usage = await usageOf(ids.a!);
    expect(usage).toMatchObject({
      l30DaysTotalCalls: 3,
      l30DaysUniquePayers: 2,
      l30DaysVolumeUsdc: "0.06",
      provenance: "settled-onchain",
    });
    expect(Date.parse(usage!.lastCalledAt as string)).toBeGreaterThan(Date.now() - 60_000);
    expect(usage!.raw).toMatchObject({ l30DaysTotalCalls: 3, l30DaysUniquePayers: 2 });

    // 0.05 is the price of two of seller B's listings: the sale counts for the seller, shown on each of its listings.
    for (const id of [ids.b1!, ids.b2!, ids.b3!]) {
      const document = await documentOf(id);
      expect(document.item.metadata.usage).toMatchObject({ l30DaysTotalCalls: 0 });
      expect(document.item.metadata.sellerUsage).toMatchObject({
        l30DaysTotalCalls: 1,
        l30DaysUniquePayers: 1,
        l30DaysVolumeUsdc: "0.05",
        listings: 3,
      });
    }
  });

  it("ranks by the filtered calls and fills the listing document's daily history", async () => {
    const row = await server.contexts.listings.store.transactions.db.prisma.listing.findUnique({
      where: { id: ids.a! },
    });
    expect(row!.calls30d).toBe(3);
    const { usageHistory } = await documentOf(ids.a!);
    expect(usageHistory).toHaveLength(30);
    expect(usageHistory.at(-1)).toEqual({
      day: new Date().toISOString().slice(0, 10),
      calls: 3,
      payers: 2,
      volumeUsdc: "0.06",
    });
    expect(usageHistory.slice(0, -1).every((day) => day.calls === 0)).toBe(true);
  });

  it("shows where the indexer stands: its block, the head, the lag (here the one confirmation it waits for)", async () => {
    const head = await chain.publicClient.getBlockNumber();
    const { usageIndexer } = await documentOf(ids.a!);
    expect(usageIndexer).toEqual({
      currentToBlock: String(head - 1n),
      headBlock: String(head),
      lagBlocks: 1,
      checkedAt: expect.any(String),
    });
    expect(Date.parse(usageIndexer!.checkedAt)).toBeGreaterThan(Date.now() - 60_000);
  });

  it("does not count self-payments, the marketplace's transfers, nor a wallet the seller funded", async () => {
    const a = sellers[0]!;
    await buy(a, sellerA.privateKey);
    const marketplaceKey = deriveAccounts(ANVIL_MNEMONIC, 3)[2]!.privateKey;
    await chain.mintUsdc(chain.marketplacePayTo, parseUnits("1", 6));
    await transfer(marketplaceKey, sellerA.address, 20_000n);
    const washKey = generatePrivateKey();
    await transfer(sellerA.privateKey, privateKeyToAccount(washKey).address, 40_000n);
    await buy(a, washKey);
    await buy(a, washKey);
    await mine();
    await pass();

    const usage = await usageOf(ids.a!);
    expect(usage).toMatchObject({ l30DaysTotalCalls: 3, l30DaysUniquePayers: 2, l30DaysVolumeUsdc: "0.06" });
    expect(usage!.raw).toMatchObject({ l30DaysTotalCalls: 7, l30DaysUniquePayers: 5, l30DaysVolumeUsdc: "0.14" });
    const row = await server.contexts.listings.store.transactions.db.prisma.listing.findUnique({
      where: { id: ids.a! },
    });
    expect(row!.calls30d).toBe(3);
  });

  it("resumes after a restart from its checkpoint without counting anything twice", async () => {
    const stored = await storedTransfers();
    const before = await usageOf(ids.a!);
    await server.close();
    server = await startTestServer({ ...ENV, DATABASE_URL: databaseUrl }, { payments, now });
    await buy(sellers[0]!, chain.buyers[2]!.privateKey);
    await mine();
    await pass();
    expect(await storedTransfers()).toBe(stored + 1);
    expect(await usageOf(ids.a!)).toMatchObject({
      l30DaysTotalCalls: (before!.l30DaysTotalCalls as number) + 1,
      l30DaysUniquePayers: 3,
    });
    await pass();
    expect(await storedTransfers()).toBe(stored + 1);
  });

  it("lets a sale drop out of the 30-day window without any new transfer", async () => {
    await buy(sellers[2]!, chain.buyers[0]!.privateKey);
    await mine();
    await pass();
    expect(await usageOf(ids.c!)).toMatchObject({ l30DaysTotalCalls: 1 });
    offset = 30 * DAY_MS + 60_000;
    try {
      await pass();
      expect(await usageOf(ids.c!)).toMatchObject({ l30DaysTotalCalls: 0, l30DaysUniquePayers: 0 });
    } finally {
      offset = 0;
      await pass();
    }
    expect(await usageOf(ids.c!)).toMatchObject({ l30DaysTotalCalls: 1 });
  });

  it("corrects a reorg: transfers of abandoned blocks are removed and the chain is read again", async () => {
    const testClient = createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) });
    const before = await usageOf(ids.a!);
    const stored = await storedTransfers();
    const snapshot = await testClient.snapshot();
    await buy(sellers[0]!, chain.buyers[1]!.privateKey);
    await mine(2);
    await pass();
    expect(await usageOf(ids.a!)).toMatchObject({ l30DaysTotalCalls: (before!.l30DaysTotalCalls as number) + 1 });
    expect(await storedTransfers()).toBe(stored + 1);

    await testClient.revert({ id: snapshot });
    await mine(5);
    await pass();
    expect(await storedTransfers()).toBe(stored);
    expect(await usageOf(ids.a!)).toMatchObject({
      l30DaysTotalCalls: before!.l30DaysTotalCalls,
      l30DaysUniquePayers: before!.l30DaysUniquePayers,
    });
    const checkpoint = await usageStore(server).checkpoint();
    const block = await chain.publicClient.getBlock({ blockNumber: checkpoint!.blockNumber });
    expect(checkpoint!.blockHash).toBe(block.hash);
  });
});
