// Many payers at once: concurrent paid listings, each from its own buyer, all list exactly once and
// each payer is charged exactly once on chain (settlements go out in parallel from one settler).
import { describe, expect, it } from "vitest";
import { testDatabaseKinds } from "../storage/databases.js";
import { useMarketServer, usePaidMarket } from "../support/paid-market.js";
import { sdkPaymentHeader } from "../support/payments.js";
import { summariseListing } from "../support/sellers.js";

const PAYERS = 8;
const FEE = 100_000n;

const market = usePaidMarket({ buyers: PAYERS * 2 });

describe.each(testDatabaseKinds())("on $kind", (databaseKind) => {
  const site = useMarketServer(market, databaseKind);

  it(`lists ${PAYERS} concurrent paid listings from ${PAYERS} payers exactly once, each payer charged once`, async () => {
    // Each database run takes its own payers, so balances start untouched by the other run.
    const payers = market.chain.buyers.slice(
      databaseKind.kind === "sqlite" ? 0 : PAYERS,
      databaseKind.kind === "sqlite" ? PAYERS : PAYERS * 2,
    );
    const before = await Promise.all(payers.map((payer) => market.chain.balanceOf(payer.address)));
    const marketBefore = await market.chain.balanceOf(market.chain.marketplacePayTo);
    const sentBefore = await market.chain.publicClient.getTransactionCount({ address: market.chain.settler.address });
    const rowsBefore = (await site.server.contexts.listings.store.counts(new Date())).rawAll;
    const headers = await Promise.all(
      payers.map((payer) => sdkPaymentHeader(market.chain, payer.privateKey, site.feeChallenge)),
    );

    const responses = await Promise.all(
      headers.map((header, index) =>
        site.server.fetch("/listings", {
          method: "POST",
          headers: { "content-type": "application/json", "PAYMENT-SIGNATURE": header },
          body: JSON.stringify(
            summariseListing(market.seller, {
              method: "POST",
              resource: `${market.seller.url}/api/burst-${databaseKind.kind}-${index}`,
            }),
          ),
        }),
      ),
    );

    expect(responses.map((response) => response.status)).toEqual(payers.map(() => 200));
    const ids = await Promise.all(responses.map(async (response) => ((await response.json()) as { id: string }).id));
    expect(new Set(ids).size).toBe(PAYERS);
    expect((await site.server.contexts.listings.store.counts(new Date())).rawAll).toBe(rowsBefore + PAYERS);
    const after = await Promise.all(payers.map((payer) => market.chain.balanceOf(payer.address)));
    expect(after).toEqual(before.map((balance) => balance - FEE));
    expect(await market.chain.balanceOf(market.chain.marketplacePayTo)).toBe(marketBefore + FEE * BigInt(PAYERS));
    expect(await market.chain.publicClient.getTransactionCount({ address: market.chain.settler.address })).toBe(
      sentBefore + PAYERS,
    );
  });
});
