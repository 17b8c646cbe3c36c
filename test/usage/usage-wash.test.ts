// Usage that costs real money to fake (issue 25), on a local anvil chain through the service's own
// indexer: plain token transfers of the exact price are not x402 sales; an authorization the payer
// or the seller submitted itself is not a facilitator's settlement; fresh wallets funded from one
// source (one hop or two back) that sends to nobody else are one ring and not counted, while a
// common source that deals with others only collapses its payers into one; genuine buyers beside
// sybils still count. Every removed call is published by reason next to `raw`.
import { createTestClient, createWalletClient, erc20Abi, http, parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { chainPayments, handSignedPayload, payingFetch, submitAuthorization } from "../support/payments.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { listingInput } from "../storage/fixtures.js";
import { startPaidSeller, type PaidSeller } from "./paid-seller.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";
import { runUsagePass } from "../support/harness.js";
import type { PassReport } from "../../src/usage/indexer.js";

const ENV = { USAGE_INTERVAL_SECONDS: "0", USAGE_CONFIRMATIONS: "0" };
const PRICE = 10_000n;

type Usage = Record<string, unknown> & {
  l30DaysTotalCalls: number;
  l30DaysUniquePayers: number;
  raw: Record<string, unknown>;
  excluded: Record<string, number>;
};

let chain: LocalChain;
let payments: Payments;
let server: TestServer;
let database: TestDatabase;
const closers: PaidSeller[] = [];

const fresh = () => generatePrivateKey();
const addressOf = (key: Hex) => privateKeyToAccount(key).address;

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

/** A wallet of its own with gas and `usdc` atomic units from `funder` (a plain transfer). */
async function funded(funder: Hex, usdc: bigint, gas = false): Promise<Hex> {
  const key = fresh();
  await transfer(funder, addressOf(key), usdc);
  if (gas)
    await createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) }).setBalance({
      address: addressOf(key),
      value: parseEther("1"),
    });
  return key;
}

/** A wallet with USDC straight from the token's mint (no funder the indexer can follow): a buyer from outside. */
async function minted(usdc: bigint, gas = false): Promise<Hex> {
  const key = fresh();
  await chain.mintUsdc(addressOf(key), usdc);
  if (gas)
    await createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) }).setBalance({
      address: addressOf(key),
      value: parseEther("1"),
    });
  return key;
}

async function buy(seller: PaidSeller, key: Hex, times = 1): Promise<void> {
  for (let time = 0; time < times; time++) {
    const response = await payingFetch(chain, key)(`${seller.url}/answer`, { method: "POST" });
    expect(response.status).toBe(200);
  }
}

/** A seller listed at PRICE and settling through a facilitator whose gas key is `gasKey` (a third party unless said otherwise). */
async function listedSeller(
  gasKey: Hex = chain.buyers[0]!.privateKey,
): Promise<{ id: string; payTo: Address; key: Hex; shop: PaidSeller }> {
  const key = fresh();
  const payTo = addressOf(key);
  const id = (
    await server.contexts.listings.store.createListing(
      listingInput({ sellerPayTo: payTo, priceUsdc: "0.01" }),
      new Date(Date.now() - 60_000),
    )
  ).id;
  const shop = await startPaidSeller(chain, { payTo, priceAtomic: PRICE.toString(), gasKey });
  closers.push(shop);
  return { id, payTo, key, shop };
}

let lastPass: PassReport | null = null;

async function indexed(): Promise<void> {
  lastPass = await runUsagePass(server);
  expect(lastPass).not.toBeNull();
}

async function usageOf(id: string): Promise<Usage | undefined> {
  const response = await server.fetch(`/listings/${id}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    item: { metadata: { usage?: Usage } };
    usageHistory: { calls: number; payers: number }[];
  };
  if (body.item.metadata.usage) {
    const today = body.usageHistory.at(-1)!;
    // The daily history follows the same rules as the counts.
    expect({ calls: today.calls, payers: today.payers }).toEqual({
      calls: body.item.metadata.usage.l30DaysTotalCalls,
      payers: body.item.metadata.usage.l30DaysUniquePayers,
    });
  }
  return body.item.metadata.usage;
}

// Each purchase and transfer waits for its block: generous bounds for a loaded machine.
describe.each(testDatabaseKinds())("usage that costs real money to fake ($kind)", { timeout: 180_000 }, (kind) => {
  beforeAll(async () => {
    chain = await startLocalChain({ buyers: 4 });
    payments = await chainPayments(chain);
    database = await kind.create();
    server = await startTestServer({ ...ENV, DATABASE_URL: database.url }, { payments });
  }, 60_000);

  afterAll(async () => {
    for (const shop of closers.splice(0)) await shop.close();
    await server?.close();
    await payments?.close();
    await chain?.stop();
    await database?.drop();
  });

  it("does not count plain transfers of the exact price: 10 fresh wallets from one funder, 3 each, count 0 and do not lift the listing", async () => {
    const target = await listedSeller();
    const honest = await listedSeller();
    const funder = chain.buyers[1]!.privateKey;
    for (let wallet = 0; wallet < 10; wallet++) {
      const key = await funded(funder, 3n * PRICE, true);
      for (let time = 0; time < 3; time++) await transfer(key, target.payTo, PRICE);
    }
    await buy(honest.shop, await minted(PRICE));
    await indexed();

    const usage = await usageOf(target.id);
    expect(usage).toMatchObject({
      l30DaysTotalCalls: 0,
      l30DaysUniquePayers: 0,
      raw: { l30DaysTotalCalls: 30, l30DaysUniquePayers: 10 },
      excluded: { not_x402_authorization: 30 },
    });
    expect(await usageOf(honest.id)).toMatchObject({ l30DaysTotalCalls: 1, l30DaysUniquePayers: 1, excluded: {} });
    const popular = (await (await server.fetch(`/discovery/resources?sort=popular&limit=2`)).json()) as {
      items: { metadata: { listingId: string } }[];
    };
    expect(popular.items[0]!.metadata.listingId).toBe(honest.id);
  });

  it("does not count an authorization submitted by the seller or by the payer itself", async () => {
    // The seller settles with its own key: tx.from is the seller.
    const target = await listedSeller();
    const selfSettling = await startPaidSeller(chain, {
      payTo: target.payTo,
      priceAtomic: PRICE.toString(),
      gasKey: target.key,
    });
    closers.push(selfSettling);
    await createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) }).setBalance({
      address: target.payTo,
      value: parseEther("1"),
    });
    await buy(selfSettling, await minted(2n * PRICE), 2);
    // The payer signs an EIP-3009 authorization and sends transferWithAuthorization itself.
    const payerKey = await minted(PRICE, true);
    const payload = await handSignedPayload(payerKey, {
      scheme: "exact",
      network: "eip155:8453",
      amount: PRICE.toString(),
      asset: chain.asset,
      payTo: target.payTo,
      maxTimeoutSeconds: 300,
      extra: { name: "USD Coin", version: "2" },
    });
    expect((await submitAuthorization(chain, payerKey, payload)).status).toBe("success");
    // And one genuine sale, settled by a facilitator.
    await buy(target.shop, await minted(PRICE));
    await indexed();

    expect(await usageOf(target.id)).toMatchObject({
      l30DaysTotalCalls: 1,
      l30DaysUniquePayers: 1,
      raw: { l30DaysTotalCalls: 4, l30DaysUniquePayers: 3 },
      excluded: { self_submitted: 3 },
    });
  });

  it("removes fresh wallets funded by one source that pays nobody else, one hop and two hops back", async () => {
    const oneHop = await listedSeller();
    const ring = chain.buyers[2]!.privateKey;
    for (let wallet = 0; wallet < 5; wallet++) await buy(oneHop.shop, await funded(ring, 2n * PRICE), 2);

    const twoHops = await listedSeller();
    const root = chain.buyers[3]!.privateKey;
    const middles = [await funded(root, 3n * PRICE, true), await funded(root, 3n * PRICE, true)];
    for (const middle of middles)
      for (let wallet = 0; wallet < 3; wallet++) await buy(twoHops.shop, await funded(middle, PRICE));
    await indexed();

    expect(await usageOf(oneHop.id)).toMatchObject({
      l30DaysTotalCalls: 0,
      l30DaysUniquePayers: 0,
      raw: { l30DaysTotalCalls: 10, l30DaysUniquePayers: 5 },
      excluded: { common_funding: 10 },
    });
    expect(await usageOf(twoHops.id)).toMatchObject({
      l30DaysTotalCalls: 0,
      l30DaysUniquePayers: 0,
      raw: { l30DaysTotalCalls: 6, l30DaysUniquePayers: 6 },
      excluded: { common_funding: 6 },
    });
  });

  it("counts payers of a common source that deals with others as one payer, and a seller-funded ring not at all", async () => {
    const shared = await listedSeller();
    const family = await minted(10n * PRICE, true);
    for (let wallet = 0; wallet < 3; wallet++) await buy(shared.shop, await funded(family, PRICE));
    // The source also pays someone who is not a buyer here.
    await transfer(family, addressOf(fresh()), PRICE);

    const looped = await listedSeller();
    await chain.mintUsdc(looped.payTo, 10n * PRICE);
    await createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) }).setBalance({
      address: looped.payTo,
      value: parseEther("1"),
    });
    const middle = await funded(looped.key, 4n * PRICE, true);
    for (let wallet = 0; wallet < 2; wallet++) await buy(looped.shop, await funded(middle, PRICE));
    await indexed();

    expect(await usageOf(shared.id)).toMatchObject({
      l30DaysTotalCalls: 3,
      l30DaysUniquePayers: 1,
      raw: { l30DaysTotalCalls: 3, l30DaysUniquePayers: 3 },
      excluded: {},
    });
    expect(await usageOf(looped.id)).toMatchObject({
      l30DaysTotalCalls: 0,
      raw: { l30DaysTotalCalls: 2 },
      excluded: { seller_funded: 2 },
    });
  });

  // Issue 42, item 10: the seller's own tokens, passed through middle wallets that each send one unit
  // to a stranger (so none of them "sends to nobody but the seller's payers"), paid back to it by real
  // x402 authorizations a third party settles. Before, 30 such calls counted and passed a genuine sale.
  it("does not count wallets the seller funded through a one-unit hop, nor a trail with no outside source; a genuine buyer still counts", async () => {
    const washed = await listedSeller();
    const honest = await listedSeller();
    const gas = createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) });
    await chain.mintUsdc(washed.payTo, 100n * PRICE);
    await gas.setBalance({ address: washed.payTo, value: parseEther("1") });
    const middle = await funded(washed.key, 31n * PRICE, true);
    await transfer(middle, addressOf(fresh()), 1n);
    for (let wallet = 0; wallet < 10; wallet++) await buy(washed.shop, await funded(middle, 3n * PRICE), 3);
    // Straight from the seller, the payer then sending one unit to a stranger.
    const direct = await funded(washed.key, 2n * PRICE, true);
    await transfer(direct, addressOf(fresh()), 1n);
    await buy(washed.shop, direct, 1);
    // Five hops from the seller (beyond what is traced), every middle sending one unit to a stranger:
    // within three hops nothing shows where the money came from but one unit minted to the payer.
    let hop = washed.key;
    for (let step = 0; step < 4; step++) {
      hop = await funded(hop, 6n * PRICE - BigInt(step), true);
      await transfer(hop, addressOf(fresh()), 1n);
    }
    const far = await funded(hop, 2n * PRICE);
    await chain.mintUsdc(addressOf(far), 1n);
    await buy(washed.shop, far, 2);
    // One genuine buyer of the washed seller, and two of the honest one.
    await buy(washed.shop, await minted(PRICE));
    await buy(honest.shop, await minted(PRICE));
    const exchanged = await minted(5n * PRICE, true);
    await buy(honest.shop, await funded(exchanged, PRICE));
    await indexed();

    expect(await usageOf(washed.id)).toMatchObject({
      l30DaysTotalCalls: 1,
      l30DaysUniquePayers: 1,
      raw: { l30DaysTotalCalls: 34, l30DaysUniquePayers: 13 },
      excluded: { seller_funded: 31, untraced_funding: 2 },
    });
    expect(await usageOf(honest.id)).toMatchObject({ l30DaysTotalCalls: 2, l30DaysUniquePayers: 2, excluded: {} });
    const popular = (await (await server.fetch(`/discovery/resources?sort=popular&limit=100`)).json()) as {
      items: { metadata: { listingId: string } }[];
    };
    const rank = (id: string) => popular.items.findIndex((item) => item.metadata.listingId === id);
    expect(rank(honest.id)).toBeGreaterThanOrEqual(0);
    expect(rank(honest.id)).toBeLessThan(rank(washed.id));
  });

  it("still counts a buyer funded by a hub the seller paid into (an exchange, a pool)", async () => {
    const seller = await listedSeller();
    await chain.mintUsdc(seller.payTo, 5n * PRICE);
    await createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) }).setBalance({
      address: seller.payTo,
      value: parseEther("1"),
    });
    const hub = await minted(40n * PRICE, true);
    for (let customer = 0; customer < 21; customer++) await transfer(hub, addressOf(fresh()), PRICE);
    await transfer(seller.key, addressOf(hub), 5n * PRICE);
    await buy(seller.shop, await funded(hub, PRICE));
    await indexed();

    expect(await usageOf(seller.id)).toMatchObject({ l30DaysTotalCalls: 1, l30DaysUniquePayers: 1, excluded: {} });
  });

  it("still counts genuine buyers mixed with sybils", async () => {
    const target = await listedSeller();
    const ring = await minted(10n * PRICE, true);
    for (let wallet = 0; wallet < 4; wallet++) await buy(target.shop, await funded(ring, 2n * PRICE), 2);
    // Genuine: two from outside, and one funded by its own wallet that funds nobody else.
    await buy(target.shop, await minted(PRICE));
    await buy(target.shop, await minted(2n * PRICE), 2);
    const own = await minted(2n * PRICE, true);
    await buy(target.shop, await funded(own, PRICE));
    await indexed();

    const usage = await usageOf(target.id);
    expect(usage).toMatchObject({
      l30DaysTotalCalls: 4,
      l30DaysUniquePayers: 3,
      l30DaysVolumeUsdc: "0.04",
      raw: { l30DaysTotalCalls: 12, l30DaysUniquePayers: 7 },
      excluded: { common_funding: 8 },
    });
    const row = await server.contexts.listings.store.transactions.db.prisma.listing.findUnique({
      where: { id: target.id },
    });
    expect(row!.calls30d).toBe(4);
  });

  it("reads one receipt per transaction and each funding address once, within the pass's budgets", async () => {
    expect(lastPass!.receipts).toBeGreaterThan(0);
    // Nothing new: the next pass reads no transaction again.
    await indexed();
    expect(lastPass).toMatchObject({ receipts: 0, inserted: 0 });
  });
});
