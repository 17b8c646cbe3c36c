// The x402-market CLI end to end: run as a subprocess against a server on a local anvil chain, with
// a real seller (tools/demo/seller.ts) that settles its sales. Asserts --json output, exit codes
// and balances.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, writeChainFile, type LocalChain } from "../../src/chain/local-chain.js";
import type { Payments } from "../../src/payments/setup.js";
import { startDemoSeller, type DemoSeller } from "../../tools/demo/seller.js";
import { jsonOf, runCli, startCli, TSX_BIN } from "../support/cli.js";
import { chainPayments } from "../support/payments.js";
import { startTestServer, type TestServer } from "../support/server.js";

const SELLER = privateKeyToAccount(generatePrivateKey()).address;
const ANSWER = { haiku: ["one", "two", "three"] };

let chain: LocalChain;
let payments: Payments;
let seller: DemoSeller;
let server: TestServer;
let work: string;
let chainFile: string;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 3 });
  payments = await chainPayments(chain);
  seller = await startDemoSeller({
    asset: chain.asset,
    payTo: SELLER,
    priceAtomic: "20000",
    description: "test seller",
    settle: { rpcUrl: chain.rpcUrl, settlerKey: chain.buyers[2]!.privateKey },
    answer: () => ANSWER,
  });
  server = await startTestServer(
    {
      ALLOW_LOOPBACK_SELLERS: "true",
      PAYMENT_RATE_PER_CLIENT: "100000",
      PROBE_RATE_PER_CLIENT: "1000",
      PROBE_RATE_PER_HOST: "1000",
    },
    { payments },
  );
  work = mkdtempSync(join(tmpdir(), "x402-market-cli-"));
  chainFile = join(work, "chain.json");
  await writeChainFile(chainFile, chain);
});

afterAll(async () => {
  await server?.close();
  await seller?.close();
  await chain?.stop();
});

const listingBody = (overrides: Record<string, unknown> = {}) => ({
  resource: `${seller.url}/haiku`,
  method: "POST",
  priceUsdc: "0.02",
  description: "Writes a haiku about autonomous agents.",
  sellerPayTo: SELLER,
  ...overrides,
});

function listingFile(name: string, overrides: Record<string, unknown> = {}): string {
  const file = join(work, name);
  writeFileSync(file, JSON.stringify(listingBody(overrides)));
  return file;
}

const url = () => ["--url", server.url];

describe("x402-market usage", () => {
  it("answers --help with exit 0 and refuses bad command lines with exit 2", async () => {
    const [help, noCap, badLimit, unknown, noKey] = await Promise.all([
      runCli(["buy", "--help"], {}, TSX_BIN),
      runCli(["buy", "some-id", ...url()]),
      runCli(["search", "--limit", "0", ...url()]),
      runCli(["frobnicate"]),
      runCli(["list", listingFile("no-key.json"), ...url(), "--yes"]),
    ]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("--max <usdc>");
    expect(noCap.code).toBe(2);
    expect(noCap.stderr).toContain("--max");
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain("expected a whole number from 1 to 200");
    expect(unknown.code).toBe(2);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain("X402_PRIVATE_KEY");
  });
});

describe("x402-market against a server on the local chain", () => {
  it("status and validate (good and bad) print the service's documents", async () => {
    const [status, good, bad] = await Promise.all([
      runCli(["status", ...url(), "--json"]),
      runCli(["validate", listingFile("good.json"), ...url(), "--json"]),
      runCli([
        "validate",
        listingFile("bad.json"),
        "--pay-to",
        privateKeyToAccount(generatePrivateKey()).address,
        ...url(),
        "--json",
      ]),
    ]);
    expect(status.code, status.stderr).toBe(0);
    expect(jsonOf(status)).toMatchObject({ ok: true, role: "marketplace", listingFee: { usdc: "0.10" } });
    expect(good.code, good.stderr).toBe(0);
    expect(jsonOf(good)).toMatchObject({ ok: true, charged: false, saved: false });
    expect(bad.code).toBe(1);
    const report = jsonOf<{ ok: boolean; checks: Array<{ name: string; ok: boolean; code?: string }> }>(bad);
    expect(report.ok).toBe(false);
    expect(report.checks).toContainEqual(
      expect.objectContaining({ name: "seller-probe", ok: false, code: "pay_to_mismatch" }),
    );
  });

  it("list without --yes and without a terminal refuses with exit 3 and charges nothing", async () => {
    const before = await chain.balanceOf(chain.marketplacePayTo);
    const run = await runCli([
      "list",
      listingFile("unconfirmed.json"),
      ...url(),
      "--chain-file",
      chainFile,
      "--buyer",
      "0",
    ]);
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toContain("0.10 USDC (100000 atomic units");
    expect(run.stderr).toContain("pass --yes");
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(before);
  });

  it("list --yes pays the fee and watch sees the new listing appear", async () => {
    const watch = startCli(["watch", ...url(), "--interval", "0.2", "--count", "1", "--json"]);
    while (!watch.stderr().includes("watching")) await sleep(50);
    const payer = chain.buyers[0]!;
    const [market, buyer] = [await chain.balanceOf(chain.marketplacePayTo), await chain.balanceOf(payer.address)];
    const run = await runCli(["list", listingFile("listing.json"), ...url(), "--yes", "--json"], {
      X402_PRIVATE_KEY: payer.privateKey,
    });
    expect(run.code, run.stderr).toBe(0);
    const { listed, listing } = jsonOf<{
      listed: boolean;
      listing: { id: string; resource: string; listingFeeUsdc: string };
    }>(run);
    expect(listed).toBe(true);
    expect(listing).toMatchObject({ resource: `${seller.url}/haiku`, listingFeeUsdc: "0.10" });
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(market + 100000n);
    expect(await chain.balanceOf(payer.address)).toBe(buyer - 100000n);

    const watched = await watch.done;
    expect(watched.code, watched.stderr).toBe(0);
    expect(jsonOf<{ metadata: { listingId: string } }>(watched).metadata.listingId).toBe(listing.id);
  });

  it("search finds the listing and show prints it by id (unknown id: exit 1)", async () => {
    const search = await runCli(["search", "haiku", ...url(), "--json"]);
    expect(search.code, search.stderr).toBe(0);
    const { items } = jsonOf<{ items: Array<{ resource: string; metadata: { listingId: string } }> }>(search);
    expect(items.map((item) => item.resource)).toEqual([`${seller.url}/haiku`]);
    const id = items[0]!.metadata.listingId;
    const [show, missing] = await Promise.all([
      runCli(["show", id, ...url(), "--json"]),
      runCli(["show", "00000000-0000-4000-8000-000000000000", ...url(), "--json"]),
    ]);
    expect(show.code, show.stderr).toBe(0);
    expect(jsonOf(show)).toMatchObject({
      resource: `${seller.url}/haiku`,
      accepts: [{ amount: "20000", payTo: SELLER }],
    });
    expect(missing.code).toBe(1);
    expect(jsonOf(missing)).toMatchObject({ error: "request", message: expect.stringContaining("no active listing") });
  });

  it("events prints what happened to the listing; webhooks create, show and delete a subscription with its secret", async () => {
    const search = await runCli(["search", "haiku", ...url(), "--json"]);
    const id = jsonOf<{ items: Array<{ metadata: { listingId: string } }> }>(search).items[0]!.metadata.listingId;
    // Reads only, so side by side; the subscription's steps below go one after another.
    const [events, unnamed, watched] = await Promise.all([
      runCli(["events", "--listing", id, ...url(), "--json"]),
      runCli(["events", ...url()]),
      runCli(["watch", "--listing", id, "--once", ...url(), "--json"]),
    ]);
    expect(events.code, events.stderr).toBe(0);
    expect(jsonOf(events)).toMatchObject({ type: "listing.created", listingId: id, status: { state: "live" } });
    expect(unnamed.code).toBe(2);
    expect(watched.code, watched.stderr).toBe(0);
    expect(jsonOf(watched)).toMatchObject({ type: "listing.created", listingId: id });

    const created = await runCli([
      "webhooks",
      "create",
      "http://127.0.0.1:9/hooks",
      "--listing",
      id,
      "--event",
      "listing.delisted",
      ...url(),
      "--json",
    ]);
    expect(created.code, created.stderr).toBe(0);
    const subscription = jsonOf<{ id: string; secret: string; status: string }>(created);
    expect(subscription).toMatchObject({ status: "pending", secret: expect.stringMatching(/^whsec_/) });
    // A wrong secret's delete beside a show: had it deleted anything, the real delete below would fail.
    const [shown, wrong] = await Promise.all([
      runCli(["webhooks", "show", subscription.id, ...url(), "--json"], { WEBHOOK_SECRET: subscription.secret }),
      runCli(["webhooks", "delete", subscription.id, "--secret", "whsec_wrong", ...url(), "--json"]),
    ]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(jsonOf(shown)).toMatchObject({ id: subscription.id, listingIds: [id], events: ["listing.delisted"] });
    expect(wrong.code).toBe(3);
    const deleted = await runCli(["webhooks", "delete", subscription.id, ...url(), "--json"], {
      WEBHOOK_SECRET: subscription.secret,
    });
    expect(deleted.code, deleted.stderr).toBe(0);
  });

  it("buy refuses a price over the cap (exit 3, nothing paid), then pays the seller exactly its price", async () => {
    const resource = `${seller.url}/haiku`;
    const buyer = chain.buyers[1]!;
    const before = { buyer: await chain.balanceOf(buyer.address), seller: await chain.balanceOf(SELLER) };
    const keyArgs = ["--chain-file", chainFile, "--buyer", "1"];

    const overCap = await runCli(["buy", resource, ...url(), ...keyArgs, "--max", "0.01", "--yes", "--json"]);
    expect(overCap.code, overCap.stderr).toBe(3);
    expect(overCap.stderr).toContain("above your cap of 0.01 USDC");
    expect(seller.sales).toHaveLength(0);
    expect(await chain.balanceOf(SELLER)).toBe(before.seller);

    const run = await runCli(["buy", resource, ...url(), ...keyArgs, "--max", "0.05", "--yes", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    const bought = jsonOf<{ answer: unknown; paid: { amountUsdc: string }; settlement: { transaction: string } }>(run);
    expect(bought.answer).toEqual(ANSWER);
    expect(bought.paid.amountUsdc).toBe("0.02");
    expect(seller.sales).toEqual([bought.settlement.transaction]);
    expect(await chain.balanceOf(SELLER)).toBe(before.seller + 20000n);
    expect(await chain.balanceOf(buyer.address)).toBe(before.buyer - 20000n);
  });
});
