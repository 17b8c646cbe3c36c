// Money older than the usage window (30 days) counts as from outside, but only for what it paid in
// (issue 42, item 10): a wallet idle for the whole window that drops one unit into a payer funded by a
// chain of the seller's own wallets does not make that payer count; a buyer whose window funding is
// all old money does. The chain is moved 31 days ahead between the old funding and the sales, and the
// sales are EIP-3009 authorizations a third party submits (a facilitator's view), valid at chain time.
import { createTestClient, createWalletClient, erc20Abi, http, parseEther, type Address, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { chainPayments, handSignedPayload, submitAuthorization } from "../support/payments.js";
import { runUsagePass } from "../support/harness.js";
import { startTestServer, type TestServer } from "../support/server.js";
import { listingInput } from "../storage/fixtures.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";

const DAY_MS = 86_400_000;
const PRICE = 10_000n;

let offset = 0;
const now = () => new Date(Date.now() + offset);

describe.each(testDatabaseKinds())("money older than the usage window ($kind)", { timeout: 180_000 }, (kind) => {
  let chain: LocalChain;
  let payments: Payments;
  let database: TestDatabase;
  let server: TestServer;

  beforeAll(async () => {
    offset = 0;
    chain = await startLocalChain({ buyers: 3 });
    payments = await chainPayments(chain);
    database = await kind.create();
    server = await startTestServer(
      { USAGE_INTERVAL_SECONDS: "0", USAGE_CONFIRMATIONS: "0", DATABASE_URL: database.url },
      { payments, now },
    );
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    await payments?.close();
    await chain?.stop();
    await database?.drop();
  });

  const testClient = () => createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) });
  const addressOf = (key: Hex) => privateKeyToAccount(key).address;
  const withGas = async (key: Hex) => {
    await testClient().setBalance({ address: addressOf(key), value: parseEther("1") });
    return key;
  };
  const transfer = async (key: Hex, to: Address, amount: bigint) => {
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
  };
  const funded = async (funder: Hex, amount: bigint) => {
    const key = await withGas(generatePrivateKey());
    await transfer(funder, addressOf(key), amount);
    return key;
  };
  /** One x402 payment of PRICE from `payer` to `payTo`, its authorization submitted by a third party. */
  const pay = async (payer: Hex, payTo: Address) => {
    const block = await chain.publicClient.getBlock();
    const payload = await handSignedPayload(
      payer,
      {
        scheme: "exact",
        network: "eip155:8453",
        amount: PRICE.toString(),
        asset: chain.asset,
        payTo,
        maxTimeoutSeconds: 300,
        extra: { name: "USD Coin", version: "2" },
      },
      { validAfter: "0", validBefore: String(block.timestamp + 3600n) },
    );
    expect((await submitAuthorization(chain, chain.buyers[0]!.privateKey, payload)).status).toBe("success");
  };

  it("counts a buyer paying with money older than the window, not one unit of it dropped into the seller's own chain", async () => {
    const source = chain.buyers[1]!.privateKey;
    const dusty = await funded(source, 1n);
    const saver = await funded(source, 2n * PRICE);
    // 31 days later, on the chain and on the service's clock.
    await testClient().increaseTime({ seconds: 31 * 86_400 });
    await testClient().mine({ blocks: 1 });
    offset = 31 * DAY_MS;

    const sellerKey = await withGas(generatePrivateKey());
    const seller = addressOf(sellerKey);
    const id = (
      await server.contexts.listings.store.createListing(
        listingInput({ sellerPayTo: seller, priceUsdc: "0.01" }),
        now(),
      )
    ).id;
    await chain.mintUsdc(seller, 20n * PRICE);
    // The seller's tokens through four middles (each sending a stranger one unit), then a payer that
    // also receives one unit from the idle wallet.
    let hop = sellerKey;
    for (let step = 0; step < 4; step++) {
      hop = await funded(hop, 6n * PRICE - BigInt(step));
      await transfer(hop, addressOf(generatePrivateKey()), 1n);
    }
    const ringed = await funded(hop, 2n * PRICE);
    await transfer(dusty, addressOf(ringed), 1n);
    await pay(ringed, seller);
    await pay(ringed, seller);
    // A buyer funded by the saver, whose money is all older than the window.
    const buyer = await funded(saver, 2n * PRICE);
    await pay(buyer, seller);
    await pay(buyer, seller);

    const report = await runUsagePass(server);
    expect(report).not.toBeNull();
    const response = await server.fetch(`/listings/${id}`);
    const body = (await response.json()) as { item: { metadata: { usage?: Record<string, unknown> } } };
    expect(body.item.metadata.usage).toMatchObject({
      l30DaysTotalCalls: 2,
      l30DaysUniquePayers: 1,
      raw: { l30DaysTotalCalls: 4, l30DaysUniquePayers: 2 },
      excluded: { untraced_funding: 2 },
    });
  });
});
