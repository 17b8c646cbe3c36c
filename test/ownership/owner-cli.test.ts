// The owner's commands of x402-market as a subprocess against a server on the local chain: list (the
// owner pays), update, refresh and delist with the owner's key from the chain file; a key that is not
// the owner's is refused (exit 3) and changes nothing.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalChain, writeChainFile, type LocalChain } from "../../src/chain/local-chain.js";
import { jsonOf, runCli } from "../support/cli.js";
import { PAID_FLOW_ENV } from "../support/fee-market.js";
import { chainPayments } from "../support/payments.js";
import { challenge, challengeAnswer, requirement, startSeller, type Seller } from "../support/sellers.js";
import { startTestServer, type TestServer } from "../support/server.js";

let chain: LocalChain;
let seller: Seller;
let server: TestServer;
let chainFile: string;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 2 });
  seller = await startSeller(() =>
    challengeAnswer(challenge([requirement({ payTo: chain.buyers[0]!.address, amount: "10000", asset: chain.asset })])),
  );
  server = await startTestServer(PAID_FLOW_ENV, { payments: await chainPayments(chain) });
  chainFile = join(mkdtempSync(join(tmpdir(), "owner-cli-")), "chain.json");
  await writeChainFile(chainFile, chain);
});

afterAll(async () => {
  await server?.close();
  await seller?.close();
  await chain?.stop();
});

describe("x402-market claim, update, refresh, delist", () => {
  const cli = (...args: string[]) => runCli(["--url", server.url, "--json", ...args]);

  it("lets the owner update and delist its listing, and refuses another key", async () => {
    const owner = chain.buyers[0]!;
    const listed = await cli(
      "list",
      "--yes",
      "--chain-file",
      chainFile,
      "--buyer",
      "0",
      "--resource",
      `${seller.url}/api/cli`,
      "--price",
      "0.01",
      "--description",
      "Answers questions from the command line",
      "--pay-to",
      owner.address,
    );
    expect(listed.code, listed.stderr).toBe(0);
    const id = jsonOf<{ listing: { id: string } }>(listed).listing.id;

    const claimed = await cli("claim", id, "--chain-file", chainFile, "--buyer", "0");
    expect(claimed.code, claimed.stderr).toBe(0);
    expect(jsonOf(claimed)).toMatchObject({ action: "claim", ownerVerified: true });

    const updated = await cli(
      "update",
      id,
      "--description",
      "Answers questions, now with sources",
      "--chain-file",
      chainFile,
      "--buyer",
      "0",
    );
    expect(updated.code, updated.stderr).toBe(0);
    expect(jsonOf(updated)).toMatchObject({
      action: "update",
      changed: ["description"],
      item: { description: "Answers questions, now with sources" },
    });

    const stranger = await cli("delist", id, "--chain-file", chainFile, "--buyer", "1");
    expect(stranger.code).toBe(3);
    expect(stranger.stderr).toContain(owner.address);
    expect((await server.fetch(`/listings/${id}`)).status).toBe(200);

    const refreshed = await cli("refresh", id);
    expect(refreshed.code, refreshed.stderr).toBe(0);
    expect(jsonOf(refreshed)).toMatchObject({ listingId: id, ok: true });

    const nothing = await cli("update", id, "--chain-file", chainFile);
    expect(nothing.code).toBe(2);

    const delisted = await cli("delist", id, "--chain-file", chainFile, "--buyer", "0");
    expect(delisted.code, delisted.stderr).toBe(0);
    expect(jsonOf<{ message: string }>(delisted).message).toContain("not refunded");
    expect((await server.fetch(`/listings/${id}`)).status).toBe(404);
  }, 120_000); // eight subprocesses, each starting tsx
});
