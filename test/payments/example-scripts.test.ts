// The served example scripts, run with bash exactly as served, against a running server on a local
// chain: list.sh validates and lists paying the fee; buy.sh finds that listing and pays its seller.
import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, writeChainFile, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { chainPayments } from "../support/payments.js";
import { DEMO_SELLER_CERTIFICATE, startDemoSeller, type DemoSeller } from "../../tools/demo/seller.js";
import { startTestServer, type TestServer } from "../support/server.js";

const SELLER = privateKeyToAccount(generatePrivateKey()).address;
const PRICE_ATOMIC = "30000";
const ANSWER = { summary: ["one", "two", "three", "four", "five"] };

let chain: LocalChain;
let payments: Payments;
let seller: DemoSeller;
let server: TestServer;
/** A directory without node_modules: the scripts must find the SDK through X402_SDK_DIR. */
let work: string;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 3 });
  payments = await chainPayments(chain);
  seller = await startDemoSeller({
    asset: chain.asset,
    payTo: SELLER,
    priceAtomic: PRICE_ATOMIC,
    description: "Summarises a page in five bullet points.",
    settle: { rpcUrl: chain.rpcUrl, settlerKey: chain.buyers[2]!.privateKey },
    answer: () => ANSWER,
  });
  server = await startTestServer(
    {
      ALLOW_LOOPBACK_SELLERS: "true",
      PAYMENT_RATE_PER_CLIENT: "100000",
      PROBE_RATE_PER_CLIENT: "1000",
      PROBE_RATE_PER_HOST: "1000",
      LOAD_SEED: "true",
    },
    { payments },
  );
  work = mkdtempSync(join(tmpdir(), "example-scripts-"));
  await writeChainFile(join(work, "chain.json"), chain);
});

afterAll(async () => {
  await server?.close();
  await seller?.close();
  await chain?.stop();
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Downloads a script from the server and runs it with bash in the work directory. */
async function runScript(path: string, env: Record<string, string>): Promise<Run> {
  const response = await server.fetch(path);
  expect(response.headers.get("content-type")).toMatch(/^text\/x-shellscript/);
  const file = join(work, path.replaceAll("/", "_"));
  writeFileSync(file, await response.text());
  const childEnv = { PATH: process.env.PATH!, HOME: process.env.HOME ?? work, X402_SDK_DIR: process.cwd(), ...env };
  return new Promise((done) => {
    execFile("bash", [file], { cwd: work, env: childEnv, timeout: 90_000 }, (error, stdout, stderr) => {
      done({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

function listingFile(name: string, overrides: Record<string, unknown> = {}): string {
  const file = join(work, name);
  const listing = {
    resource: `${seller.url}/api/summarise`,
    method: "POST",
    priceUsdc: "0.03",
    description: "Summarises any public web page into five bullet points.",
    sellerPayTo: SELLER,
    ...overrides,
  };
  writeFileSync(file, JSON.stringify(listing));
  return file;
}

describe("the example scripts, end to end on the local chain", () => {
  it("list.sh stops at the free validation when the listing would fail: nothing is charged", async () => {
    const before = await chain.balanceOf(chain.marketplacePayTo);
    const run = await runScript("/examples/list.sh", {
      BASE_URL: server.url,
      LISTING_FILE: listingFile("wrong-payee.json", { sellerPayTo: privateKeyToAccount(generatePrivateKey()).address }),
      CHAIN_FILE: join(work, "chain.json"),
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.stderr).toContain("validation answered 422");
    expect(run.stderr).toContain("pay_to_mismatch");
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before);
  });

  it("list.sh validates, then lists paying the fee with the development chain's first buyer", async () => {
    const [market, buyer] = [
      await chain.balanceOf(chain.marketplacePayTo),
      await chain.balanceOf(chain.buyers[0]!.address),
    ];
    const run = await runScript("/curl-list.sh", {
      BASE_URL: server.url,
      LISTING_FILE: listingFile("listing.json"),
      CHAIN_FILE: join(work, "chain.json"),
    });
    expect(run.code, run.stderr).toBe(0);
    const created = JSON.parse(run.stdout) as {
      id: string;
      resource: string;
      listingFeeUsdc: string;
      transaction: string;
    };
    expect(created).toMatchObject({ resource: `${seller.url}/api/summarise`, listingFeeUsdc: "0.10" });
    expect(run.stderr).toContain("1/3 validating");
    expect(run.stderr).toContain(`"transaction":"${created.transaction}"`);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(market + 100000n);
    expect(await chain.balanceOf(chain.buyers[0]!.address)).toBe(buyer - 100000n);
    const feed = (await (await server.fetch("/feed.json")).json()) as { items: Array<{ resource: string }> };
    expect(feed.items.map((item) => item.resource)).toContain(created.resource);
  });

  it("buy.sh finds that listing and pays its seller directly, who settles and answers", async () => {
    const buyerKey = chain.buyers[1]!.privateKey;
    const buyerAddress = chain.buyers[1]!.address;
    const [market, buyer] = [await chain.balanceOf(chain.marketplacePayTo), await chain.balanceOf(buyerAddress)];
    const run = await runScript("/examples/buy.sh", {
      BASE_URL: server.url,
      QUERY: "five bullet points",
      BUYER_PRIVATE_KEY: buyerKey,
      CURL_CA_BUNDLE: fileURLToPath(DEMO_SELLER_CERTIFICATE),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(ANSWER);
    expect(seller.sales).toHaveLength(1);
    expect(run.stderr).toContain(seller.sales[0]);
    expect(await chain.balanceOf(SELLER)).toBe(BigInt(PRICE_ATOMIC));
    expect(await chain.balanceOf(buyerAddress)).toBe(buyer - BigInt(PRICE_ATOMIC));
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(market);
  });

  it("buy.sh buys a first-party /kr-* demo endpoint (GET, paid to the marketplace) when INCLUDE_SEED=true", async () => {
    const market = await chain.balanceOf(chain.marketplacePayTo);
    // The seed rows are not re-probed yet here (health unknown): buy.sh considers healthy listings only unless told otherwise.
    const run = await runScript("/examples/buy.sh", {
      BASE_URL: server.url,
      INCLUDE_SEED: "true",
      HEALTH: "any",
      QUERY: "current time",
      CHAIN_FILE: join(work, "chain.json"),
      BUYER_INDEX: "1",
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain("GET http://localhost:");
    expect(JSON.parse(run.stdout)).toMatchObject({ demo: "/kr-time" });
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(market + 1000n);
  });

  it("buy.sh refuses to pay a seller whose challenge does not match the catalog", async () => {
    const sales = seller.sales.length;
    const original = seller.requirement.payTo;
    seller.requirement.payTo = privateKeyToAccount(generatePrivateKey()).address;
    try {
      const run = await runScript("/examples/buy.sh", {
        BASE_URL: server.url,
        RESOURCE: `${seller.url}/api/summarise`,
        BUYER_PRIVATE_KEY: chain.buyers[1]!.privateKey,
        CURL_CA_BUNDLE: fileURLToPath(DEMO_SELLER_CERTIFICATE),
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain("refusing to pay: no requirement of the challenge pays");
      expect(seller.sales).toHaveLength(sales);
    } finally {
      seller.requirement.payTo = original;
    }
  });
});
