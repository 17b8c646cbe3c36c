// Many payers at once: concurrent paid listings, each from its own buyer, all list exactly once and
// each payer is charged exactly once on chain (settlements go out in parallel from one settler).
import type { PaymentRequired } from "@x402/core/types";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { testDatabaseKinds, type TestDatabase } from "../storage/databases.js";
import { chainPayments, sdkPaymentHeader } from "../support/payments.js";
import { challenge, challengeAnswer, requirement, startSeller, type Seller, SELLER_PAY_TO, summariseListing } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";

const PAYERS = 8;
const FEE = 100_000n;
const RELAXED_LIMITS = { ALLOW_LOOPBACK_SELLERS: "true", PAYMENT_RATE_PER_CLIENT: "100000", PROBE_RATE_PER_CLIENT: "1000", PROBE_RATE_PER_HOST: "1000" };

let chain: LocalChain;
let payments: Payments;
let seller: Seller;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: PAYERS * 2 });
  payments = await chainPayments(chain);
  seller = await startSeller(() => challengeAnswer(challenge([requirement({ payTo: SELLER_PAY_TO, amount: "30000", asset: chain.asset })])));
});

afterAll(async () => {
  await seller?.close();
  await chain?.stop();
});

describe.each(testDatabaseKinds())("on $kind", (databaseKind) => {
  let database: TestDatabase;
  let server: TestServer;
  let feeChallenge: PaymentRequired;

  beforeAll(async () => {
    database = await databaseKind.create();
    server = await startTestServer({ ...RELAXED_LIMITS, DATABASE_URL: database.url }, { payments });
    feeChallenge = (await (await server.fetch("/listings/challenge")).json()) as PaymentRequired;
  });

  afterAll(async () => {
    await server?.close();
    await database?.drop();
  });

  it(`lists ${PAYERS} concurrent paid listings from ${PAYERS} payers exactly once, each payer charged once`, async () => {
    // Each database run takes its own payers, so balances start untouched by the other run.
    const payers = chain.buyers.slice(databaseKind.kind === "sqlite" ? 0 : PAYERS, databaseKind.kind === "sqlite" ? PAYERS : PAYERS * 2);
    const before = await Promise.all(payers.map((payer) => chain.balanceOf(payer.address)));
    const marketBefore = await chain.balanceOf(chain.marketplacePayTo);
    const sentBefore = await chain.publicClient.getTransactionCount({ address: chain.settler.address });
    const rowsBefore = (await server.contexts.listings.store.counts(new Date())).rawAll;
    const headers = await Promise.all(payers.map((payer) => sdkPaymentHeader(chain, payer.privateKey, feeChallenge)));

    const responses = await Promise.all(
      headers.map((header, index) =>
        server.fetch("/listings", {
          method: "POST",
          headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
          body: JSON.stringify(summariseListing(seller, { method: "POST", resource: `${seller.url}/api/burst-${databaseKind.kind}-${index}` })),
        }),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(payers.map(() => 200));
    const ids = await Promise.all(responses.map(async (response) => ((await response.json()) as { id: string }).id));
    expect(new Set(ids).size).toBe(PAYERS);
    expect((await server.contexts.listings.store.counts(new Date())).rawAll).toBe(rowsBefore + PAYERS);
    const after = await Promise.all(payers.map((payer) => chain.balanceOf(payer.address)));
    expect(after).toEqual(before.map((balance) => balance - FEE));
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(marketBefore + FEE * BigInt(PAYERS));
    expect(await chain.publicClient.getTransactionCount({ address: chain.settler.address })).toBe(sentBefore + PAYERS);
  });
});
