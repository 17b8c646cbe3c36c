// The paid market most paid-flow files set up: a local anvil chain with in-process settlement, a
// seller on loopback that answers with its own x402 challenge, and, per database, a test server that
// takes the listing fee. Call usePaidMarket at the top of a file and useMarketServer inside each
// database's describe; both register their own beforeAll/afterAll, and the fields they return are
// filled in by those hooks (read them inside tests and hooks, not while the file is collected).
import type { PaymentRequired } from "@x402/core/types";
import { afterAll, beforeAll } from "vitest";
import { startLocalChain, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import type { TestDatabase, TestDatabaseKind } from "../storage/databases.js";
import { chainPayments } from "./payments.js";
import { challenge, challengeAnswer, requirement, SELLER_PAY_TO, startSeller, type Seller } from "./sellers.js";
import { startTestServer, type TestServer } from "./server.js";

/** Loopback sellers allowed; payment and probe limits out of the way of suites that pay many times. */
export const PAID_MARKET_LIMITS = {
  ALLOW_LOOPBACK_SELLERS: "true",
  PAYMENT_RATE_PER_CLIENT: "100000",
  PROBE_RATE_PER_CLIENT: "1000",
  PROBE_RATE_PER_HOST: "1000",
};

/** What the market's seller asks for its own endpoint: 0.03 of the chain's token, to SELLER_PAY_TO. */
export const SELLER_PRICE = "30000";

export interface PaidMarket {
  chain: LocalChain;
  payments: Payments;
  seller: Seller;
}

/**
 * For the whole file: a local chain with `buyers` funded buyers, its payments, and a seller that
 * answers `answer` (by default its challenge asking SELLER_PRICE; tests may swap `seller.answer`).
 */
export function usePaidMarket({ buyers, answer }: { buyers: number; answer?: Seller["answer"] }): PaidMarket {
  const market = {} as PaidMarket;
  beforeAll(async () => {
    market.chain = await startLocalChain({ buyers });
    market.payments = await chainPayments(market.chain);
    market.seller = await startSeller(
      answer ??
        (() =>
          challengeAnswer(
            challenge([requirement({ payTo: SELLER_PAY_TO, amount: SELLER_PRICE, asset: market.chain.asset })]),
          )),
    );
  });
  afterAll(async () => {
    await market.seller?.close();
    await market.chain?.stop();
  });
  return market;
}

export interface MarketServer {
  database: TestDatabase;
  server: TestServer;
  /** The listing fee's challenge, from GET /listings/challenge. */
  feeChallenge: PaymentRequired;
}

/** Inside a database's describe: a fresh database of that kind and a server taking fees through the market's payments. */
export function useMarketServer(
  market: PaidMarket,
  databaseKind: TestDatabaseKind,
  env: Record<string, string> = PAID_MARKET_LIMITS,
): MarketServer {
  const site = {} as MarketServer;
  beforeAll(async () => {
    site.database = await databaseKind.create();
    site.server = await startTestServer({ ...env, DATABASE_URL: site.database.url }, { payments: market.payments });
    site.feeChallenge = (await (await site.server.fetch("/listings/challenge")).json()) as PaymentRequired;
  });
  afterAll(async () => {
    await site.server?.close();
    await site.database?.drop();
  });
  return site;
}
