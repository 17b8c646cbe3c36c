import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getAddress, parseEther } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MULTICALL3_ADDRESS, multicall3Artifact, testUsdcAbi } from "../../src/chain/contracts.js";
import { startLocalChain, writeChainFile, type ChainFile, type LocalChain } from "../../src/chain/local-chain.js";

let chain: LocalChain;

beforeAll(async () => {
  chain = await startLocalChain({ buyers: 2, fundUsdc: "250" });
});

afterAll(async () => {
  await chain?.stop();
});

describe("local chain", () => {
  it("answers as Base (chain id 8453)", async () => {
    expect(chain.chainId).toBe(8453);
    expect(chain.network).toBe("eip155:8453");
    expect(chain.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await chain.publicClient.getChainId()).toBe(8453);
  });

  it("has a USDC stand-in with USDC's metadata and EIP-712 domain", async () => {
    const read = <F extends "name" | "symbol" | "version" | "decimals">(functionName: F) =>
      chain.publicClient.readContract({ address: chain.asset, abi: testUsdcAbi, functionName });
    expect(await read("name")).toBe("USD Coin");
    expect(await read("symbol")).toBe("USDC");
    expect(await read("version")).toBe("2");
    expect(await read("decimals")).toBe(6);
    const [, name, version, chainId, verifyingContract] = await chain.publicClient.readContract({
      address: chain.asset,
      abi: testUsdcAbi,
      functionName: "eip712Domain",
    });
    expect({ name, version, chainId, verifyingContract }).toEqual({
      name: "USD Coin",
      version: "2",
      chainId: 8453n,
      verifyingContract: chain.asset,
    });
  });

  it("funds each buyer with USDC and the settler with ETH for gas", async () => {
    expect(chain.buyers).toHaveLength(2);
    for (const buyer of chain.buyers) expect(await chain.balanceOf(buyer.address)).toBe(250_000_000n);
    expect(await chain.balanceOf(chain.marketplacePayTo)).toBe(0n);
    expect(await chain.publicClient.getBalance({ address: chain.settler.address })).toBeGreaterThan(parseEther("1"));
    const addresses = [chain.marketplacePayTo, chain.settler.address, ...chain.buyers.map((b) => b.address)];
    expect(new Set(addresses).size).toBe(addresses.length);
  });

  it("mints on demand", async () => {
    const [buyer] = chain.buyers;
    await chain.mintUsdc(buyer!.address, 5n);
    expect(await chain.balanceOf(buyer!.address)).toBe(250_000_005n);
  });

  it("has Multicall3 at the canonical address (tryAggregate as the SDK calls it, aggregate3 as viem does)", async () => {
    const [first, second] = chain.buyers;
    const balanceCall = (address: string) => ({
      target: chain.asset,
      callData: `0x70a08231${address.slice(2).toLowerCase().padStart(64, "0")}` as const,
    });
    const results = (await chain.publicClient.readContract({
      address: MULTICALL3_ADDRESS,
      abi: multicall3Artifact.abi,
      functionName: "tryAggregate",
      args: [false, [balanceCall(first!.address), { target: chain.asset, callData: "0xdeadbeef" }]],
    })) as Array<{ success: boolean; returnData: string }>;
    expect(results.map((r) => r.success)).toEqual([true, false]);
    expect(BigInt(results[0]!.returnData)).toBe(await chain.balanceOf(first!.address));

    const viaViem = await chain.publicClient.multicall({
      contracts: [
        { address: chain.asset, abi: testUsdcAbi, functionName: "balanceOf", args: [second!.address] },
        { address: chain.asset, abi: testUsdcAbi, functionName: "name" },
      ],
      allowFailure: false,
    });
    expect(viaViem).toEqual([250_000_000n, "USD Coin"]);

    const ethBalance = await chain.publicClient.readContract({
      address: MULTICALL3_ADDRESS,
      abi: multicall3Artifact.abi,
      functionName: "getEthBalance",
      args: [chain.settler.address],
    });
    expect(ethBalance).toBe(await chain.publicClient.getBalance({ address: chain.settler.address }));
  });

  it("writes the chain file for development tools", async () => {
    const dir = await mkdtemp(join(tmpdir(), "chain-file-"));
    try {
      const path = join(dir, ".dev", "chain.json");
      await writeChainFile(path, chain);
      const file = JSON.parse(await readFile(path, "utf8")) as ChainFile;
      expect(file).toEqual({
        rpcUrl: chain.rpcUrl,
        chainId: 8453,
        asset: getAddress(chain.asset),
        marketplacePayTo: chain.marketplacePayTo,
        buyers: chain.buyers,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("stops: the node no longer answers and a second stop is harmless", async () => {
    const other = await startLocalChain({ buyers: 1 });
    expect(other.rpcUrl).not.toBe(chain.rpcUrl);
    await other.stop();
    await other.stop();
    await expect(fetch(other.rpcUrl, { method: "POST" })).rejects.toThrow();
  });
});
