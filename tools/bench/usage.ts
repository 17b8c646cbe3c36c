/**
 * `npm run bench:usage`: the usage indexer catching up on 100,000 token transfers to 1,000 sellers
 * on a local anvil chain, in the service as `npm start` runs it (its own process, SQLite), while
 * uncached catalog reads (a distinct URL per request) are timed; then the same reads once it is
 * idle, in the same run. Prints events/s, RPC calls (counted by a JSON-RPC proxy in front of anvil),
 * catch-up time, the service's peak memory, and read latency while catching up vs idle (target:
 * within 20%).
 *
 * The transfers come from a small contract that emits many Transfer events per transaction (1,000
 * a transaction, 100 transactions, 20 empty blocks after each), each right after an
 * AuthorizationUsed by its payer (what transferWithAuthorization emits; the bench's deployer sends
 * them, a third party: every transfer is an x402 sale to check); the service is configured with
 * that contract as its payment token (self-settlement mode against the bench chain). The wash
 * checks' reads (receipts, the funding behind the payers) are counted in the RPC calls, and the
 * idle phase prints the calls per pass. Sizes: BENCH_TRANSFERS, BENCH_SELLERS.
 */
import { spawn } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import Sqlite from "better-sqlite3";
import solc from "solc";
import {
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  keccak256,
  toHex,
  type Abi,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { ANVIL_MNEMONIC, deriveAccounts, startLocalChain } from "../../src/chain/local-chain.js";
import { benchSeller, seedListings } from "./seed-listings.js";

const TRANSFERS = Number(process.env.BENCH_TRANSFERS ?? 100_000);
const SELLERS = Number(process.env.BENCH_SELLERS ?? 1_000);
const PER_TX = 1_000;
const PAYERS = 5_000;
const WINDOW_MS = 1_000;
const CONNECTIONS = 4;

const EMITTER = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract TransferEmitter {
  event Transfer(address indexed from, address indexed to, uint256 value);
  event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce);
  function emitMany(address[] calldata to, uint256[] calldata value, uint160 payerBase, uint256 payers, uint256 offset) external {
    for (uint256 i = 0; i < to.length; i++) {
      address payer = address(payerBase + uint160((offset + i) * 7919 % payers));
      emit AuthorizationUsed(payer, bytes32(offset + i));
      emit Transfer(payer, to[i], value[i]);
    }
  }
}`;

function compileEmitter(): { abi: Abi; bytecode: Hex } {
  const input = {
    language: "Solidity",
    sources: { "E.sol": { content: EMITTER } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    contracts: { "E.sol": { TransferEmitter: { abi: Abi; evm: { bytecode: { object: string } } } } };
  };
  const contract = output.contracts["E.sol"].TransferEmitter;
  return { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` };
}

/** A JSON-RPC proxy that counts calls by method (each element of a batch is a call). */
async function countingProxy(
  upstream: string,
): Promise<{ url: string; calls: Map<string, number>; close(): Promise<void> }> {
  const calls = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      try {
        const parsed = JSON.parse(body.toString("utf8")) as { method: string } | { method: string }[];
        for (const call of Array.isArray(parsed) ? parsed : [parsed])
          calls.set(call.method, (calls.get(call.method) ?? 0) + 1);
      } catch {
        // forwarded as is
      }
      fetch(upstream, { method: "POST", headers: { "content-type": "application/json" }, body })
        .then(async (answer) =>
          res
            .writeHead(answer.status, { "content-type": "application/json" })
            .end(Buffer.from(await answer.arrayBuffer())),
        )
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Service {
  url: string;
  rssMiB(): number;
  stop(): Promise<void>;
}

/** The service from its sources (as `npm start` runs it, through tsx: the working tree's code). */
async function startService(env: Record<string, string>): Promise<Service> {
  const child = spawn(
    process.execPath,
    ["--max-semi-space-size=4", "--max-old-space-size=384", "--import", "tsx", "src/main.ts"],
    {
      stdio: ["ignore", "pipe", "inherit"],
      // The reads come from one address: the per-client query limit is put out of reach.
      env: {
        ...process.env,
        PORT: "0",
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? "info",
        LOAD_SEED: "false",
        QUERY_RATE_PER_CLIENT: "1000000",
        ...env,
      },
    },
  );
  const lines = createInterface({ input: child.stdout! });
  let url = "";
  for await (const line of lines) {
    if (line.includes('"url"')) {
      url = (JSON.parse(line) as { url: string }).url;
      break;
    }
  }
  lines.close();
  // The service's log lines after start go to a file (BENCH_SERVICE_LOG), for a run that goes wrong.
  child.stdout!.pipe(createWriteStream(process.env.BENCH_SERVICE_LOG ?? "/dev/null"));
  if (!url) throw new Error("the service exited before it was listening");
  return {
    url,
    rssMiB: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"))![1]) / 1024,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

async function metric(service: Service, name: string): Promise<number> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const line = text.split("\n").find((row) => row.startsWith(`${name} `));
  return line ? Number(line.split(" ")[1]) : 0;
}

const int = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));

/** One window of uncached reads: distinct search queries and resources pages. */
async function readWindow(service: Service): Promise<{ requests: number; latencies: number[] }> {
  const result = await autocannon({
    url: service.url,
    connections: CONNECTIONS,
    duration: WINDOW_MS / 1000,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          path:
            Math.random() < 0.5
              ? `/discovery/search?query=${benchSeller(int(1, SELLERS))
                  .slice(2 + int(0, 28), 2 + 40)
                  .toLowerCase()
                  .slice(0, 10)}&limit=${int(1, 20)}`
              : `/discovery/resources?limit=${int(1, 20)}&offset=${"0".repeat(int(0, 8))}${int(0, SELLERS)}`,
        }),
      },
    ],
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`catalog reads failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return {
    requests: result.requests.total,
    latencies: [result.latency.mean, result.latency.p50, result.latency.p97_5],
  };
}

function summarise(windows: { requests: number; latencies: number[] }[]) {
  const total = windows.reduce((sum, window) => sum + window.requests, 0);
  const weighted = (index: number) =>
    windows.reduce((sum, window) => sum + window.latencies[index]! * window.requests, 0) / Math.max(1, total);
  return { windows: windows.length, requests: total, meanMs: weighted(0), p50Ms: weighted(1), p97_5Ms: weighted(2) };
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "bench-usage-"));
  const chain = await startLocalChain({ buyers: 1 });
  const proxy = await countingProxy(chain.rpcUrl);
  let service: Service | undefined;
  try {
    // The catalog: enough seeded listings for SELLERS sellers (one in five sells two or three).
    const databaseUrl = `file:${join(work, "bench.db")}`;
    const catalog = await seedListings(databaseUrl, Math.ceil(SELLERS * 1.3));
    const sqlite = new Sqlite(join(work, "bench.db"), { readonly: true });
    const prices = new Map<string, string>();
    for (const row of sqlite
      .prepare(`SELECT "sellerPayTo", "priceAtomic" FROM "Listing" ORDER BY "listedAt"`)
      .all() as {
      sellerPayTo: string;
      priceAtomic: string;
    }[]) {
      if (!prices.has(row.sellerPayTo)) prices.set(row.sellerPayTo, row.priceAtomic);
    }
    sqlite.close();
    const sellers = Array.from(
      { length: Math.min(SELLERS, catalog.sellers) },
      (_, index) => benchSeller(index + 1) as Address,
    );

    // The transfers, in bulk.
    const [deployer] = deriveAccounts(ANVIL_MNEMONIC, 1);
    const wallet = createWalletClient({
      account: privateKeyToAccount(deployer!.privateKey),
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    });
    const testClient = createTestClient({ mode: "anvil", chain: chain.chain, transport: http(chain.rpcUrl) });
    const emitter = compileEmitter();
    const deployHash = await wallet.deployContract({ abi: emitter.abi, bytecode: emitter.bytecode });
    const token = getAddress(
      (await chain.publicClient.waitForTransactionReceipt({ hash: deployHash })).contractAddress!,
    );
    const payerBase = BigInt(keccak256(toHex("bench payers")).slice(0, 34));
    const started = Date.now();
    for (let offset = 0; offset < TRANSFERS; offset += PER_TX) {
      const count = Math.min(PER_TX, TRANSFERS - offset);
      const to = Array.from({ length: count }, (_, index) => sellers[(offset + index) % sellers.length]!);
      const value = to.map((seller) => BigInt(prices.get(seller) ?? "10000"));
      const hash = await wallet.writeContract({
        address: token,
        abi: emitter.abi,
        functionName: "emitMany",
        args: [to, value, payerBase, BigInt(PAYERS), BigInt(offset)],
        gas: 29_000_000n,
      });
      const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
      if (receipt.status !== "success") throw new Error("emitMany reverted");
      await testClient.mine({ blocks: 20 });
    }
    const head = await chain.publicClient.getBlockNumber();
    console.log(
      `chain: ${TRANSFERS} transfers to ${sellers.length} sellers from ${PAYERS} payers in ${Math.ceil(TRANSFERS / PER_TX)} transactions, ${head} blocks (written in ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );

    proxy.calls.clear();
    const serviceStarted = Date.now();
    service = await startService({
      DATABASE_URL: databaseUrl,
      SETTLEMENT_RPC_URL: proxy.url,
      SETTLER_PRIVATE_KEY: chain.settler.privateKey,
      MARKETPLACE_PAY_TO: chain.marketplacePayTo,
      ASSET_ADDRESS: token,
      RECONCILE_INTERVAL_SECONDS: "0",
      HEALTH_PROBE_INTERVAL_MS: "0",
      USAGE_INTERVAL_SECONDS: "1",
      USAGE_CONFIRMATIONS: "0",
    });

    // While it catches up: read windows until every transfer is stored and the checkpoint is at the head.
    const busy: { requests: number; latencies: number[] }[] = [];
    let peakRss = service.rssMiB();
    let caughtUpMs = 0;
    for (;;) {
      const stored = await metric(service, "x402_usage_indexer_transfers_total");
      const checkpoint = await metric(service, "x402_usage_indexer_checkpoint_block");
      if (stored >= TRANSFERS && checkpoint >= Number(head)) {
        caughtUpMs = Date.now() - serviceStarted;
        break;
      }
      busy.push(await readWindow(service));
      peakRss = Math.max(peakRss, service.rssMiB());
      if (Date.now() - serviceStarted > 600_000) throw new Error("the indexer did not catch up within 10 minutes");
    }
    // Let the pass finish its checks and rollup (the calls they make count as catching up), then the
    // same reads with the indexer idle (a pass a second, nothing new).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const rpcWhileCatchingUp = new Map(proxy.calls);
    const idle: { requests: number; latencies: number[] }[] = [];
    proxy.calls.clear();
    const idleStarted = Date.now();
    for (let window = 0; window < Math.min(Math.max(5, busy.length), 20); window++)
      idle.push(await readWindow(service));
    const idleSeconds = (Date.now() - idleStarted) / 1000;
    const rpcIdle = new Map(proxy.calls);
    const idleRss = service.rssMiB();

    const db = new Sqlite(join(work, "bench.db"), { readonly: true });
    const counted = db
      .prepare(`SELECT SUM("calls30d") AS calls, COUNT(*) AS listings FROM "Listing" WHERE "usageSummary" IS NOT NULL`)
      .get() as {
      calls: number;
      listings: number;
    };
    const storedRows = (db.prepare(`SELECT COUNT(*) AS n FROM "UsageTransfer"`).get() as { n: number }).n;
    db.close();

    const rpcTotal = [...rpcWhileCatchingUp.values()].reduce((sum, n) => sum + n, 0);
    const busyReads = summarise(busy);
    const idleReads = summarise(idle);
    console.log(`\nusage indexer catch-up (service process, SQLite, ${sellers.length} sellers, confirmations 0)`);
    console.log(
      `  transfers stored          ${storedRows} (listings with usage: ${counted.listings}, attributed calls: ${counted.calls})`,
    );
    console.log(
      `  catch-up time             ${(caughtUpMs / 1000).toFixed(1)} s from the service's start (${head} blocks)`,
    );
    console.log(`  events/s                  ${Math.round(TRANSFERS / (caughtUpMs / 1000))}`);
    console.log(
      `  RPC calls                 ${rpcTotal} (${[...rpcWhileCatchingUp]
        .sort((a, b) => b[1] - a[1])
        .map(([method, n]) => `${method} ${n}`)
        .join(", ")})`,
    );
    const idleTotal = [...rpcIdle.values()].reduce((sum, n) => sum + n, 0);
    console.log(
      `  RPC calls when idle       ${(idleTotal / idleSeconds).toFixed(1)} a second at a pass a second (${[...rpcIdle]
        .sort((a, b) => b[1] - a[1])
        .map(([method, n]) => `${method} ${(n / idleSeconds).toFixed(1)}`)
        .join(", ")})`,
    );
    console.log(
      `  service RSS               peak ${peakRss.toFixed(0)} MiB while catching up, ${idleRss.toFixed(0)} MiB idle`,
    );
    console.log(
      `\nuncached catalog reads (${CONNECTIONS} connections, distinct URLs: searches and resources pages), latency in ms`,
    );
    console.log(
      `  while catching up  ${busyReads.requests} reads in ${busyReads.windows} s   mean ${busyReads.meanMs.toFixed(2)}  p50 ${busyReads.p50Ms.toFixed(2)}  p97.5 ${busyReads.p97_5Ms.toFixed(2)}`,
    );
    console.log(
      `  idle               ${idleReads.requests} reads in ${idleReads.windows} s   mean ${idleReads.meanMs.toFixed(2)}  p50 ${idleReads.p50Ms.toFixed(2)}  p97.5 ${idleReads.p97_5Ms.toFixed(2)}`,
    );
    const ratio = busyReads.meanMs / idleReads.meanMs;
    console.log(
      `  mean while catching up / idle = ${ratio.toFixed(2)}  (target <= 1.20: ${ratio <= 1.2 ? "PASS" : "MISS"})`,
    );
  } finally {
    await service?.stop();
    await proxy.close();
    await chain.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
