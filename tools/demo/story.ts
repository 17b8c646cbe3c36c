// The whole story on a throwaway local chain, with real payments: the service (embedded chain, as
// `npm start` runs it), the demo seller, then the x402-market CLI as a newcomer would use it:
// list the seller's endpoint (paying the fee), find it with search, buy from it. Balances are
// printed before and after; everything started here is stopped, on success and on failure.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createPublicClient, formatUnits, http, type Address } from "viem";
import type { ChainFile } from "../../src/chain/local-chain.js";
import { testUsdcAbi } from "../../src/chain/contracts.js";
import { chainForRpc } from "../../src/chain/viem-chain.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/logger.js";
import { startServer, type RunningServer } from "../../src/server.js";
import { DEMO_SELLER_CERTIFICATE, startDemoSeller, type DemoSeller } from "./seller.js";

const CLI = fileURLToPath(new URL("../../src/cli/x402-market.mjs", import.meta.url));
const PRICE_USDC = "0.02";
const HAIKU = { haiku: ["Agents trade in light", "a fee, a proof, a settled", "answer comes back home"] };

export interface StoryResult {
  listingId: string;
  answer: unknown;
  /** Atomic balances of the test token. */
  before: Record<"buyer" | "seller" | "marketplace", bigint>;
  after: Record<"buyer" | "seller" | "marketplace", bigint>;
  /** The listing's metadata.usage after the sale was indexed. */
  usage?:
    | {
        l30DaysTotalCalls: number;
        l30DaysUniquePayers: number;
        l30DaysVolumeUsdc: string;
        provenance: string;
        currentToBlock: string;
      }
    | undefined;
}

/** Runs the CLI as a separate process (as a user would) and parses its --json output. */
function cli(args: string[], log: (line: string) => void): Promise<unknown> {
  log(`\n$ x402-market ${args.map((arg) => (/[\s"]/.test(arg) ? JSON.stringify(arg) : arg)).join(" ")}`);
  const env = { ...process.env, NODE_EXTRA_CA_CERTS: fileURLToPath(DEMO_SELLER_CERTIFICATE) };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [CLI, ...args, "--json"], { env, timeout: 60_000 }, (error, stdout, stderr) => {
      if (stderr.trim()) log(stderr.trimEnd());
      if (error) reject(new Error(`x402-market ${args[0]} failed (exit ${String(error.code)}): ${stdout}${stderr}`));
      else resolve(JSON.parse(stdout) as unknown);
    });
  });
}

export async function runStory(log: (line: string) => void = console.log): Promise<StoryResult> {
  const work = mkdtempSync(join(tmpdir(), "x402-demo-"));
  const chainFile = join(work, "chain.json");
  let server: RunningServer | undefined;
  let seller: DemoSeller | undefined;
  try {
    log("Starting the marketplace on a throwaway local chain (test tokens, NOT real money) ...");
    const config = loadConfig({
      PORT: "0",
      LOG_LEVEL: "error",
      DATABASE_URL: `file:${join(work, "marketplace.db")}`,
      DEV_CHAIN_FILE: chainFile,
      LOAD_SEED: "false",
    });
    server = await startServer(config, createLogger(config.logLevel));
    const chain = JSON.parse(readFileSync(chainFile, "utf8")) as ChainFile;
    const [buyer, sellerAccount, facilitatorAccount] = chain.buyers as [
      ChainFile["buyers"][number],
      ChainFile["buyers"][number],
      ChainFile["buyers"][number],
    ];
    const reader = createPublicClient({ chain: chainForRpc(chain.rpcUrl), transport: http(chain.rpcUrl) });
    const wallets = {
      buyer: buyer.address,
      seller: sellerAccount.address,
      marketplace: chain.marketplacePayTo,
    } satisfies Record<string, Address>;
    const balances = async () => {
      const read = (address: Address) =>
        reader.readContract({ address: chain.asset, abi: testUsdcAbi, functionName: "balanceOf", args: [address] });
      return {
        buyer: await read(wallets.buyer),
        seller: await read(wallets.seller),
        marketplace: await read(wallets.marketplace),
      };
    };
    log(`  marketplace ${server.url}, chain ${chain.rpcUrl}, token ${chain.asset}`);

    seller = await startDemoSeller({
      asset: chain.asset,
      payTo: sellerAccount.address,
      priceAtomic: "20000",
      description: "Demo: a haiku about agents",
      // Settled by a third party's key, as a facilitator does: a sale the seller submits itself is not counted (self_submitted).
      settle: { rpcUrl: chain.rpcUrl, settlerKey: facilitatorAccount.privateKey },
      answer: () => HAIKU,
    });
    const resource = `${seller.url}/haiku`;
    log(`  the seller's endpoint ${resource} asks ${PRICE_USDC} test USDC, paid to ${sellerAccount.address}`);
    const before = await balances();

    const common = ["--url", server.url, "--chain-file", chainFile];
    const listed = (await cli(
      [
        "list",
        ...common,
        "--buyer",
        "1",
        "--yes",
        "--resource",
        resource,
        "--method",
        "POST",
        "--price",
        PRICE_USDC,
        "--description",
        "Writes a haiku about autonomous agents.",
        "--pay-to",
        sellerAccount.address,
      ],
      log,
    )) as { listing: { id: string; expiresAt: string; transaction?: string } };
    log(
      `  listed ${listed.listing.id} until ${listed.listing.expiresAt}, fee transaction ${listed.listing.transaction ?? "?"}`,
    );
    const found = (await cli(["search", "haiku", "--url", server.url], log)) as {
      items: Array<{ resource: string; metadata: { listingId: string } }>;
    };
    const item = found.items.find((candidate) => candidate.resource === resource);
    if (!item) throw new Error(`search did not find ${resource}`);
    log(`  found listing ${item.metadata.listingId}`);
    const bought = (await cli(
      ["buy", item.metadata.listingId, ...common, "--buyer", "0", "--max", "0.05", "--yes"],
      log,
    )) as { answer: unknown };
    log(`  the seller's answer: ${JSON.stringify(bought.answer)}`);

    // The sale, as the chain shows it: the usage indexer reads the transfer and publishes the counts.
    if (server.jobs.names.includes("usage-indexer")) await server.jobs.runNow("usage-indexer");
    const document = (await (await fetch(`${server.url}/listings/${item.metadata.listingId}`)).json()) as {
      item: { metadata: { usage?: StoryResult["usage"] } };
    };
    const usage = document.item.metadata.usage;
    log(`\n  GET /listings/${item.metadata.listingId} -> metadata.usage (counted from the chain's Transfer events):`);
    log(`  ${JSON.stringify(usage, null, 2).replaceAll("\n", "\n  ")}`);

    const after = await balances();
    log("\nTest USDC balances   before  ->  after");
    for (const role of ["buyer", "seller", "marketplace"] as const) {
      log(
        `  ${role.padEnd(12)} ${formatUnits(before[role], 6).padStart(10)}  -> ${formatUnits(after[role], 6).padStart(10)}   (${wallets[role]})`,
      );
    }
    log("The seller paid the 0.10 listing fee to the marketplace and earned 0.02 from the buyer, paid directly.");
    return { listingId: item.metadata.listingId, answer: bought.answer, before, after, usage };
  } finally {
    await seller?.close();
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  }
}
