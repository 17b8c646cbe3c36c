// One `npm start` with no payment configuration (it starts its own local chain and writes
// DEV_CHAIN_FILE) over the given database, for a minute of light traffic, one paid listing, SIGTERM.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { ChainFile } from "../../src/chain/local-chain.js";
import { startService, type ServiceProcess } from "../support/process.js";
import type { Seller } from "../support/sellers.js";
import { startLightTraffic, type TrafficReport } from "../support/traffic.js";
import {
  LISTING_FEE,
  bazaarResources,
  listWithStockBuyer,
  startChallengingSeller,
  tokenBalance,
} from "./paid-listing.js";
import { RUN_MS, TEST_TIMEOUT_MS, expectCleanStop, expectSteadyRun, sleepUntil } from "./run-checks.js";

export function embeddedChainRun(createDatabase: () => Promise<{ url: string; drop(): Promise<void> }>): void {
  let dir: string;
  let database: { url: string; drop(): Promise<void> } | undefined;
  let service: ServiceProcess | undefined;
  let seller: Seller | undefined;
  let traffic: ReturnType<typeof startLightTraffic> | undefined;
  let report: TrafficReport | undefined;
  let trafficStarted = 0;
  let listedResource: string | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "process-run-"));
    database = await createDatabase();
    service = await startService({ DATABASE_URL: database.url, DEV_CHAIN_FILE: join(dir, "chain.json") });
    trafficStarted = Date.now();
    traffic = startLightTraffic([service.url]);
  }, TEST_TIMEOUT_MS);

  afterAll(async () => {
    await traffic?.stop();
    service?.kill();
    await seller?.close();
    await database?.drop();
    await rm(dir, { recursive: true, force: true });
  }, TEST_TIMEOUT_MS);

  it(
    "runs its own local chain and takes a listing paid by the SDK's stock buyer: 200, exactly 100000 to the marketplace, listed in /bazaar.json",
    async () => {
      const chain = JSON.parse(await readFile(join(dir, "chain.json"), "utf8")) as ChainFile;
      expect(service!.logs.some((log) => log.msg.startsWith("LOCAL CHAIN, NOT REAL MONEY"))).toBe(true);
      seller = await startChallengingSeller(chain.asset);
      const resource = `${seller.url}/api/summarise`;
      const before = await tokenBalance(chain.rpcUrl, chain.asset, chain.marketplacePayTo);

      const listed = await listWithStockBuyer(service!.url, {
        buyerKey: chain.buyers[0]!.privateKey,
        asset: chain.asset,
        resource,
      });

      expect(listed.status, JSON.stringify(listed.body)).toBe(200);
      expect(listed.receipt).toMatchObject({ success: true, payer: chain.buyers[0]!.address });
      expect(listed.body).toMatchObject({
        resource,
        listingFeeUsdc: "0.10",
        renewed: false,
        transaction: listed.receipt!.transaction,
      });
      expect(await tokenBalance(chain.rpcUrl, chain.asset, chain.marketplacePayTo)).toBe(before + LISTING_FEE);
      expect(seller.requests).toEqual(["POST /api/summarise"]);
      expect(await bazaarResources(service!.url)).toContain(resource);
      listedResource = resource;
    },
    TEST_TIMEOUT_MS,
  );

  it(
    `stays up for ${RUN_MS / 1000} s of light traffic, answering every request correctly, with no error logged`,
    async () => {
      await sleepUntil(trafficStarted + RUN_MS);
      report = await traffic!.stop();
      expectSteadyRun([service!], report, Date.now() - trafficStarted);
      if (listedResource) expect(await bazaarResources(service!.url)).toContain(listedResource);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    "stops on SIGTERM: exit 0 within seconds, logs stopped, and its local chain goes with it",
    async () => {
      await expectCleanStop(service!);
    },
    TEST_TIMEOUT_MS,
  );
}
