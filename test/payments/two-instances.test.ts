// Two service instances sharing one PostgreSQL, each settling with its own key, receive one payment
// at the same moment: exactly one listing and one transfer. Skipped without TEST_POSTGRES_URL.
import type { PaymentRequired } from "@x402/core/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";
import { chainPayments, paymentKeyOf, sdkPaymentHeader } from "../support/payments.js";
import { challenge, challengeAnswer, requirement, startSeller, type Seller } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";

const postgres = testDatabaseKinds().find((kind) => kind.kind === "postgres");
const SELLER = "0x2546BcD3c84621e976D8185a91A922aE77ECEc30";

describe.skipIf(!postgres)("two instances on one PostgreSQL", () => {
  let chain: LocalChain;
  let database: TestDatabase;
  let seller: Seller;
  const servers: TestServer[] = [];

  beforeAll(async () => {
    chain = await startLocalChain({ buyers: 2 });
    database = await postgres!.create();
    seller = await startSeller(() =>
      challengeAnswer(challenge([requirement({ payTo: SELLER, amount: "20000", asset: chain.asset })])),
    );
    const env = { DATABASE_URL: database.url, ALLOW_LOOPBACK_SELLERS: "true" };
    // One settler key per instance: the second settles with a buyer account (funded with ETH by anvil).
    for (const key of [chain.settler.privateKey, chain.buyers[1]!.privateKey]) {
      servers.push(await startTestServer(env, { payments: await chainPayments(chain, key) }));
    }
  });

  afterAll(async () => {
    for (const server of servers) await server.close();
    await seller?.close();
    await database?.drop();
    await chain?.stop();
  });

  it("gives one payment sent to both at once exactly one listing and one transfer", async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const feeChallenge = (await (await a.fetch("/listings/challenge")).json()) as PaymentRequired;
    const header = await sdkPaymentHeader(chain, chain.buyers[0]!.privateKey, feeChallenge);
    const body = JSON.stringify({
      resource: `${seller.url}/shared`,
      priceUsdc: "0.02",
      description: "Listed once, whichever instance wins.",
      sellerPayTo: SELLER,
    });
    const send = (server: TestServer) =>
      server.fetch("/listings", {
        method: "POST",
        headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
        body,
      });
    const settlers = [chain.settler.address, chain.buyers[1]!.address];
    const txsBefore = await Promise.all(settlers.map((address) => chain.publicClient.getTransactionCount({ address })));
    const before = await chain.balanceOf(chain.marketplacePayTo);

    const responses = await Promise.all([send(a), send(b), send(a), send(b)]);
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses.filter((status) => status === 200).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);

    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before + 100_000n);
    const txsAfter = await Promise.all(settlers.map((address) => chain.publicClient.getTransactionCount({ address })));
    expect(txsAfter[0]! - txsBefore[0]! + (txsAfter[1]! - txsBefore[1]!)).toBe(1);
    const counts = await a.contexts.listings.store.counts(new Date());
    expect(counts).toMatchObject({ foreign: 1, rawAll: 1 });
    expect((await b.contexts.listings.store.findPayment(paymentKeyOf(header)))?.payment.state).toBe("settled");

    // Afterwards either instance answers the same payment with the one result.
    expect((await send(b)).status).toBe(200);
  });
});
