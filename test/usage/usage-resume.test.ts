// A pass that dies half-way (the node starts failing between two chunks, as a crash would stop it)
// leaves the rows and the checkpoint consistent: every transfer at or below the checkpoint is
// stored, none above it. A new instance on the same database resumes there and counts each sale once.
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { chainPayments, payingFetch } from "../support/payments.js";
import { startRpcProxy, type RpcProxy } from "../support/rpc-proxy.js";
import { runUsagePass, usageStore } from "../support/harness.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { listingInput } from "../storage/fixtures.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";
import { startPaidSeller, type PaidSeller } from "./paid-seller.js";

const SALES = 6;

describe("usage indexer interrupted mid-pass", () => {
  let chain: LocalChain;
  let payments: Payments;
  let proxy: RpcProxy;
  let database: TestDatabase;
  let server: TestServer;
  let seller: PaidSeller;
  let listingId: string;
  let env: Record<string, string>;
  let payTo: `0x${string}`;

  beforeAll(async () => {
    chain = await startLocalChain({ buyers: 2 });
    payments = await chainPayments(chain);
    proxy = await startRpcProxy(chain.rpcUrl);
    database = await testDatabaseKinds()[0]!.create();
    // One block per chunk, so a pass commits many times; the indexer reads the chain through the proxy.
    env = {
      DATABASE_URL: database.url,
      CHAIN_RPC_URL: proxy.url,
      USAGE_INTERVAL_SECONDS: "0",
      USAGE_CONFIRMATIONS: "0",
      USAGE_MAX_BLOCK_RANGE: "1",
    };
    server = await startTestServer(env, { payments });
    payTo = privateKeyToAccount(generatePrivateKey()).address;
    seller = await startPaidSeller(chain, { payTo, priceAtomic: "10000", gasKey: chain.buyers[1]!.privateKey });
    listingId = (
      await server.contexts.listings.store.createListing(
        listingInput({ sellerPayTo: payTo, priceUsdc: "0.01" }),
        new Date(Date.now() - 3_600_000),
      )
    ).id;
    for (let sale = 0; sale < SALES; sale++) {
      const response = await payingFetch(chain, chain.buyers[0]!.privateKey)(`${seller.url}/answer`, {
        method: "POST",
      });
      expect(response.status).toBe(200);
    }
  }, 60_000);

  afterAll(async () => {
    await seller?.close();
    await server?.close();
    await proxy?.close();
    await payments?.close();
    await chain?.stop();
    await database?.drop();
  });

  it("keeps rows and checkpoint together, and a new instance resumes without counting twice", async () => {
    const prisma = server.contexts.listings.store.transactions.db.prisma;
    const head = await chain.publicClient.getBlockNumber();
    const running = runUsagePass(server);
    // Let two sales' chunks commit, then the node fails every log query from here on.
    const storedSales = () => prisma.usageTransfer.count({ where: { payTo: payTo.toLowerCase() } });
    while ((await storedSales()) < 2) await new Promise((resolve) => setTimeout(resolve, 2));
    proxy.inject("eth_getLogs", { kind: "status", status: 500 }, 1_000);
    await running;

    const checkpoint = (await usageStore(server).checkpoint())!.blockNumber;
    expect(checkpoint).toBeGreaterThan(0n);
    expect(checkpoint).toBeLessThan(head);
    const stored = await prisma.usageTransfer.findMany({
      where: { payTo: payTo.toLowerCase() },
      select: { id: true, blockNumber: true },
    });
    const onChain = await chain.publicClient.getContractEvents({
      address: chain.asset,
      abi: TRANSFER_ABI,
      eventName: "Transfer",
      args: { to: payTo },
      fromBlock: 0n,
      toBlock: checkpoint,
    });
    // Exactly the transfers up to the checkpoint: some, not all, and nothing beyond it.
    expect(stored.map((row) => row.id).sort()).toEqual(
      onChain.map((log) => `${log.transactionHash}:${log.logIndex}`).sort(),
    );
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.length).toBeLessThan(SALES);

    await server.close();
    proxy.clear();
    server = await startTestServer(env, { payments });
    await runUsagePass(server);
    expect((await usageStore(server).checkpoint())!.blockNumber).toBe(head);
    expect(
      await server.contexts.listings.store.transactions.db.prisma.usageTransfer.count({
        where: { payTo: payTo.toLowerCase() },
      }),
    ).toBe(SALES);
    const document = (await (await server.fetch(`/listings/${listingId}`)).json()) as {
      item: { metadata: { usage: { l30DaysTotalCalls: number; l30DaysUniquePayers: number } } };
    };
    expect(document.item.metadata.usage).toMatchObject({ l30DaysTotalCalls: SALES, l30DaysUniquePayers: 1 });
  }, 120_000);
});

const TRANSFER_ABI = [
  {
    type: "event",
    name: "Transfer",
    inputs: [
      { indexed: true, name: "from", type: "address" },
      { indexed: true, name: "to", type: "address" },
      { indexed: false, name: "value", type: "uint256" },
    ],
  },
] as const;
